# tilescope_core_library(NAME [USES folder...] [LINKS target...] [PUBLIC_LINKS target...])
#
# One static library, tilescope_NAME, from the .cpp files of the calling folder. USES names the
# core folders whose headers this folder includes; each must already be a library (declared
# above in core/CMakeLists.txt), which is what keeps the layers acyclic. A used folder is linked
# PUBLIC when one of this folder's headers includes it, PRIVATE otherwise. LINKS are third-party
# targets used by the sources only; PUBLIC_LINKS those that the headers expose.
#
# Each library is installed (component `development`) with its headers under
# include/tilescope/NAME/ and exported as tilescope::NAME (cmake/Install.cmake), so that code
# built against an installed tilescope includes "NAME/X.hpp" as core's own sources do.
include(GNUInstallDirs)
set(TILESCOPE_CORE_FOLDERS "" CACHE INTERNAL "core libraries in layer order")

function(tilescope_core_library name)
  cmake_parse_arguments(ARG "" "" "USES;LINKS;PUBLIC_LINKS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  file(GLOB headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.hpp ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
  set(target tilescope_${name})
  add_library(${target} STATIC ${sources} ${headers})
  tilescope_unity_build(${target})
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/core>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/tilescope>)
  # No source path here: a built or installed binary finds its data at run time
  # (core/common/DataDirectory), so that it can be moved.
  target_compile_definitions(${target} PUBLIC TILESCOPE_VERSION="${PROJECT_VERSION}")
  set(header_text "")
  foreach(h ${headers})
    file(READ ${h} text)
    string(APPEND header_text "${text}")
  endforeach()
  foreach(used ${ARG_USES})
    if(NOT TARGET tilescope_${used})
      message(FATAL_ERROR "core/${name} uses core/${used}, which is not a library declared "
                          "above it in core/CMakeLists.txt (a folder may only use lower layers)")
    endif()
    string(FIND "${header_text}" "#include \"${used}/" in_header)
    if(in_header GREATER -1)
      target_link_libraries(${target} PUBLIC tilescope_${used})
    else()
      target_link_libraries(${target} PRIVATE tilescope_${used})
    endif()
  endforeach()
  target_link_libraries(${target} PUBLIC fmt::fmt ${ARG_PUBLIC_LINKS} PRIVATE ${ARG_LINKS})
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS ${target} EXPORT tilescopeTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development)
  install(FILES ${headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilescope/${name}
          COMPONENT development)
  set(TILESCOPE_CORE_FOLDERS ${TILESCOPE_CORE_FOLDERS} ${target} CACHE INTERNAL "")
endfunction()
