# What a Debian package carries beside the programs (docs/install.md): a manual page for each
# program, made at build time from its own --help (cmake/ManPage.cmake), the GUI's desktop
# entry, and under /usr/share/doc/tilescope the machine-readable copyright file and the Debian
# changelog, compressed as Debian policy asks (gzip -9n: no name, no time stamp, so the package
# is reproducible). Included by cmake/Install.cmake; cmake/Packaging.cmake names the maintainer
# and the Debian revision used here.
set(TILESCOPE_PACKAGE_MAINTAINER "tilescope developers <tilescope@users.noreply.github.com>"
    CACHE STRING "the Maintainer field of the Debian package and its changelog's sign-off")
# A build folder configured before this address was chosen holds the old placeholder, whose
# host lintian refuses (bogus-mail-host): it is replaced, and only it.
if(TILESCOPE_PACKAGE_MAINTAINER STREQUAL "tilescope maintainers <maintainers@tilescope.invalid>")
  set(TILESCOPE_PACKAGE_MAINTAINER "tilescope developers <tilescope@users.noreply.github.com>"
      CACHE STRING "the Maintainer field of the Debian package and its changelog's sign-off" FORCE)
endif()
# The Debian revision of this version's package: 1 until the packaging alone changes.
set(TILESCOPE_DEBIAN_RELEASE 1)
set(TILESCOPE_DEBIAN_VERSION ${PROJECT_VERSION}-${TILESCOPE_DEBIAN_RELEASE})

find_program(TILESCOPE_GZIP gzip REQUIRED)
set(TILESCOPE_MAN_DIR ${PROJECT_BINARY_DIR}/man)
set(tilescope_man_pages "")
foreach(entry
    "tilescope|cli|predict, measure and compare deep-learning operators on architecture graphs|tilescope-report(1), tilescope-gui(1)"
    "tilescope-report|cli|write a report of a run, a comparison, a trace, a simulation or a sweep as HTML or PDF|tilescope(1), tilescope-gui(1)"
    "tilescope-gui|gui|the tilescope workbench: architecture graphs, predictions, mappings and measurements|tilescope(1), tilescope-report(1)")
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 program)
  list(GET parts 1 component)
  list(GET parts 2 summary)
  list(GET parts 3 see_also)
  set(page ${TILESCOPE_MAN_DIR}/${program}.1)
  add_custom_command(
    OUTPUT ${page}.gz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${TILESCOPE_MAN_DIR}
    # The GUI prints its help without a display; the offscreen platform, should it look for one.
    # In a sanitizer build a leak report at exit is no reason to fail the build of a page.
    COMMAND ${CMAKE_COMMAND} -E env QT_QPA_PLATFORM=offscreen ASAN_OPTIONS=detect_leaks=0
            ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program}> -DNAME=${program}
            -DVERSION=${PROJECT_VERSION} "-DSUMMARY=${summary}" "-DSEE_ALSO=${see_also}"
            -DOUT=${page} -P ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
    COMMAND ${TILESCOPE_GZIP} -9nf ${page}
    # tilescope's page has `tilescope report --help`, which runs tilescope-report.
    DEPENDS ${program} tilescope-report ${PROJECT_SOURCE_DIR}/cmake/ManPage.cmake
    COMMENT "Writing the manual page of ${program} from its --help"
    VERBATIM)
  list(APPEND tilescope_man_pages ${page}.gz)
  install(FILES ${page}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT ${component})
endforeach()
add_custom_target(tilescope_man_pages ALL DEPENDS ${tilescope_man_pages})

install(FILES ${PROJECT_SOURCE_DIR}/packaging/tilescope-gui.desktop
        DESTINATION ${CMAKE_INSTALL_DATADIR}/applications COMPONENT gui)

# The changelog's version is the package's (0.1.0-1); its sign-off, the Maintainer field.
configure_file(${PROJECT_SOURCE_DIR}/packaging/changelog.in
               ${PROJECT_BINARY_DIR}/packaging/changelog.Debian @ONLY)
add_custom_command(
  OUTPUT ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz
  COMMAND ${TILESCOPE_GZIP} -9nkf ${PROJECT_BINARY_DIR}/packaging/changelog.Debian
  DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.Debian
  VERBATIM)
add_custom_target(tilescope_debian_changelog ALL
                  DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright
              ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT docs)
