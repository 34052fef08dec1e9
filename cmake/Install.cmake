# What `cmake --install build --prefix P` puts where (docs/install.md). Included by the top
# CMakeLists.txt after every target is defined. One component per part, so that a test or a
# package can take only what it needs (`cmake --install build --component cli`):
#   cli          P/bin/tilescope, P/bin/tilescope-report (which `tilescope report` runs from
#                the same folder), their manual pages P/share/man/man1/*.1.gz
#   gui          P/bin/tilescope-gui, its manual page and P/share/applications/tilescope-gui.desktop
#   cupti        P/bin/tilescope-cupti-runner, where CUDA was found (collectors/cupti)
#   data         P/share/tilescope/{samples,plugins}, in the source tree's layout: an installed
#                binary finds them there, relative to itself (core/common/DataDirectory)
#   development  the core libraries (static, cmake/CoreLibrary.cmake installs each with its
#                headers under P/include/tilescope/) and the CMake package
#                P/lib/cmake/tilescope/, which gives find_package(tilescope) the target
#                tilescope::core
#   docs         P/share/doc/tilescope/{README.md,docs/}, so that the README's links resolve, and
#                the copyright file and changelog.Debian.gz
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
# Each of those system folders also as $ORIGIN/../X, ahead of /usr/X: the same folder for a
# binary in /usr/bin, the Debian package's. lintian refuses an absolute RUNPATH outside the
# package's own folders (custom-library-search-path), so the package keeps only the $ORIGIN
# form (cmake/PackageRunpath.cmake, a CPack step, drops the absolute twins); an install under
# another prefix finds nothing at $ORIGIN/../X and goes on to /usr/X.
function(tilescope_origin_rpath target)
  set(rpath "")
  foreach(folder ${ARGN})
    if(folder MATCHES "^/usr/(.*[^/])/*$")
      list(APPEND rpath "$ORIGIN/../${CMAKE_MATCH_1}")
    endif()
  endforeach()
  set_target_properties(${target} PROPERTIES INSTALL_RPATH "${rpath}")
endfunction()
get_filename_component(tilescope_graphviz_plugins ${TILESCOPE_GRAPHVIZ_DOT_LAYOUT} DIRECTORY)
tilescope_origin_rpath(tilescope-gui ${tilescope_graphviz_plugins})
tilescope_origin_rpath(tilescope-report ${tilescope_graphviz_plugins})
set(tilescope_cli_folders ${OPENBLAS_LIBRARY_DIRS})
if(MPI_C_FOUND)
  foreach(library ${MPI_C_LIBRARIES})
    get_filename_component(folder ${library} DIRECTORY)
    list(APPEND tilescope_cli_folders ${folder})
  endforeach()
endif()
tilescope_origin_rpath(tilescope ${tilescope_cli_folders})

# With their modes: a sample script (samples/sweeps/*.sh) stays executable.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/samples ${PROJECT_SOURCE_DIR}/plugins
        DESTINATION ${CMAKE_INSTALL_DATADIR}/tilescope COMPONENT data USE_SOURCE_PERMISSIONS)

install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT docs)
# Manual pages, the desktop entry, the copyright file and the Debian changelog.
include(${CMAKE_CURRENT_LIST_DIR}/PackageFiles.cmake)
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
