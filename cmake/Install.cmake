# What `cmake --install build --prefix P` puts where (docs/install.md). Included by the top
# CMakeLists.txt after every target is defined. One component per part, so that a test or a
# package can take only what it needs (`cmake --install build --component cli`):
#   cli          P/bin/tilescope, P/bin/tilescope-report (which `tilescope report` runs from
#                the same folder)
#   gui          P/bin/tilescope-gui
#   cupti        P/bin/tilescope-cupti-runner, where CUDA was found (collectors/cupti)
#   data         P/share/tilescope/{samples,plugins}, in the source tree's layout: an installed
#                binary finds them there, relative to itself (core/common/DataDirectory)
#   development  the core libraries (static, cmake/CoreLibrary.cmake installs each with its
#                headers under P/include/tilescope/) and the CMake package
#                P/lib/cmake/tilescope/, which gives find_package(tilescope) the target
#                tilescope::core
#   docs         P/share/doc/tilescope/{README.md,docs/}, so that the README's links resolve
#
# No path of the build or of the source tree goes into an installed binary: the core libraries
# are static, so no RPATH is needed for them, and CMake drops the build RPATH on install. An
# installed binary keeps only the system folders of the shared libraries it links that are not
# on the loader's search path (INSTALL_RPATH_USE_LINK_PATH takes link folders outside the
# project): OpenBLAS's variant folder (openblas-pthread) and Graphviz's, whose dot layout
# plugin views/ links directly.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS tilescope tilescope-report RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT cli)
install(TARGETS tilescope-gui RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT gui)
if(TARGET tilescope-cupti-runner)
  install(TARGETS tilescope-cupti-runner RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          COMPONENT cupti)
  set_target_properties(tilescope-cupti-runner PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
endif()
set_target_properties(tilescope tilescope-report tilescope-gui PROPERTIES
  INSTALL_RPATH_USE_LINK_PATH ON)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples ${PROJECT_SOURCE_DIR}/plugins
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tilescope COMPONENT data)

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT docs)

# The CMake package: tilescope::core brings every core library (tilescope::common,
# tilescope::arch, ...); tilescopeConfig.cmake finds the third-party packages their targets name.
set_target_properties(tilescope_core PROPERTIES EXPORT_NAME core)
add_library(tilescope::core ALIAS tilescope_core)
install(TARGETS tilescope_core EXPORT tilescopeTargets COMPONENT development)
set(TILESCOPE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilescope)
install(EXPORT tilescopeTargets NAMESPACE tilescope:: DESTINATION ${TILESCOPE_CMAKE_DIR}
        COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/tilescopeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tilescopeConfig.cmake INSTALL_DESTINATION ${TILESCOPE_CMAKE_DIR})
# Before 1.0 a minor version may change the headers: only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilescopeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilescopeConfig.cmake
              ${PROJECT_BINARY_DIR}/tilescopeConfigVersion.cmake
        DESTINATION ${TILESCOPE_CMAKE_DIR} COMPONENT development)
