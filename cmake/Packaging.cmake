# `cpack -G DEB` in the build folder: tilescope_<version>-<revision>_<arch>.deb, for `apt install
# ./tilescope_*.deb` on Debian 12 (docs/install.md). It holds what cmake/Install.cmake installs
# under /usr, less the CUPTI runner: that links the CUDA toolkit, which no Debian package
# provides, so it is built where the GPU is (collectors/cupti builds alone).
# The Maintainer field and the Debian revision are set in cmake/PackageFiles.cmake, where the
# changelog that must agree with them is written. Checked by `lintian` (docs/install.md).

set(CPACK_PACKAGE_NAME tilescope)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "performance-analysis workbench for deep-learning hardware")
# In lines of at most 80 characters with the space CPack puts before each, as Debian's control
# file asks (lintian: extended-description-line-too-long); no semicolon, CMake's list separator.
set(CPACK_PACKAGE_DESCRIPTION
    "Describe a chip as an architecture graph, map operators onto it in a\n"
    "tile-centric notation and get latency predictions that say what bounds each\n"
    "node, then measure on the host or a GPU and correlate. The CLI (tilescope),\n"
    "the desktop GUI (tilescope-gui), the bundled architectures, workloads and\n"
    "profiles, and the core libraries with their CMake package\n"
    "(find_package(tilescope)).")
string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
set(CPACK_PACKAGE_CONTACT ${TILESCOPE_PACKAGE_MAINTAINER})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Debian policy: binaries stripped (their symbols would only make the package larger), files
# 0644 and folders 0755 whatever the builder's umask, control files as dpkg-deb makes them.
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
    GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The binaries' RUNPATH as $ORIGIN/../X only (cmake/Install.cmake says why).
set(CPACK_PRE_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/cmake/PackageRunpath.cmake)
# A Debian revision: the package is not a native one, so its changelog is changelog.Debian.gz.
set(CPACK_DEBIAN_PACKAGE_RELEASE ${TILESCOPE_DEBIAN_RELEASE})

# One package of the listed components (the runner's component, cupti, is left out).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_COMPONENTS_ALL cli gui data development docs)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Depends: the shared libraries the binaries link, as dpkg-shlibdeps finds their packages, and
# what Qt loads at run time, which it cannot see: the platform plugins of the GUI (xcb; the
# offscreen one of tilescope-report is in libqt6gui6) and a font for text in rendered reports.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins, fonts-dejavu-core")
# A tilescope built with MPI links libmpi (shlibdeps finds it); `mpirun`, to start a sweep over
# ranks (docs/sweep.md), is in openmpi-bin, which nothing links.
if(MPI_C_FOUND)
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin")
endif()
# Building against the CMake package (the core libraries are static) needs the development
# packages of the libraries tilescopeConfig.cmake finds.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS
    "cmake, g++, libfmt-dev, libyaml-cpp-dev, nlohmann-json3-dev, libtbb-dev, libsqlitecpp-dev, libsqlite3-dev, zlib1g-dev, libsimdjson-dev, libnlopt-dev, libnlopt-cxx-dev")

include(CPack)
