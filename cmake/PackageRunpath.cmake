# A CPack step (CPACK_PRE_BUILD_SCRIPTS), run on the staged files before the package is made:
# every binary's RUNPATH loses the absolute folders /usr/X that it also names as $ORIGIN/../X
# (cmake/Install.cmake puts both there), so that the package's binaries, in /usr/bin, reach
# the same system folders by the form lintian accepts. The RUNPATH only gets shorter, so it is
# rewritten in place.
file(GLOB_RECURSE staged LIST_DIRECTORIES false "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*")
foreach(file IN LISTS staged)
  if(NOT file MATCHES "/usr/bin/[^/]+$")
    continue()
  endif()
  file(READ_ELF "${file}" RUNPATH folders CAPTURE_ERROR error)
  if(error OR NOT folders)
    continue()
  endif()
  # READ_ELF gives the entries as a list; an empty one (CMake's padding) comes out as ";".
  string(REPLACE ";" ":" old "${folders}")
  set(kept "")
  foreach(folder IN LISTS folders)
    if(folder STREQUAL "")
      continue()
    endif()
    if(folder MATCHES "^/usr/(.+)$")
      list(FIND folders "$ORIGIN/../${CMAKE_MATCH_1}" twin)
      if(NOT twin EQUAL -1)
        continue()
      endif()
    endif()
    list(APPEND kept "${folder}")
  endforeach()
  string(REPLACE ";" ":" new "${kept}")
  if(NOT new STREQUAL old)
    file(RPATH_CHANGE FILE "${file}" OLD_RPATH "${old}" NEW_RPATH "${new}")
  endif()
endforeach()
