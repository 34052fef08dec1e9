#!/usr/bin/env bash
# debian_package.sh CPACK BUILD_DIR SOURCE_DIR VERSION
#
# `cpack -G DEB` (cmake/Packaging.cmake) makes tilescope_VERSION_ARCH.deb (VERSION with its
# Debian revision, 0.1.0-1) holding the binaries, their manual pages, the GUI's desktop entry,
# the copyright file and changelog.Debian.gz, the CMake package, the headers and every file of
# samples/ and plugins/ under /usr/share/tilescope, with Depends from dpkg-shlibdeps and a real
# Maintainer; `lintian` finds no error in it (and desktop-file-validate none in the entry); the
# binaries unpacked from it name neither the source nor the build tree, have no AVX instruction
# outside a run-time-dispatched path (scripts/check-portable-binary), and tilescope runs.
# Prints the package's size, its Depends, what lintian said and the highlights of `dpkg-deb -c`.
set -euo pipefail
cpack="$1"
version="$4"
source "$(dirname "${BASH_SOURCE[0]}")/scratch_folder.sh"
scratch_folder "$2" "$3"
(cd "$build" && "$cpack" -G DEB -B "$scratch/out" >"$scratch/cpack.log") ||
  { cat "$scratch/cpack.log"; exit 1; }
deb="$scratch/out/tilescope_${version}_$(dpkg --print-architecture).deb"
[ -f "$deb" ] || { echo "FAIL: no $(basename "$deb"); cpack made:"; ls "$scratch/out"; exit 1; }

dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$scratch/contents"
failed=0
expect() {
  grep -q -x -F "$1" "$scratch/contents" || { echo "FAIL: the package lacks $1"; failed=1; }
}
for binary in tilescope tilescope-report tilescope-gui; do expect "/usr/bin/$binary"; done
for file in tilescopeConfig.cmake tilescopeConfigVersion.cmake tilescopeTargets.cmake; do
  expect "/usr/lib/cmake/tilescope/$file"
done
expect /usr/lib/libtilescope_arch.a
expect /usr/include/tilescope/arch/ArchitectureGraph.hpp
expect /usr/share/doc/tilescope/README.md
expect /usr/share/doc/tilescope/copyright
expect /usr/share/doc/tilescope/changelog.Debian.gz
expect /usr/share/applications/tilescope-gui.desktop
for binary in tilescope tilescope-report tilescope-gui; do
  expect "/usr/share/man/man1/$binary.1.gz"
done
while IFS= read -r file; do
  expect "/usr/share/tilescope/$file"
done < <(cd "$source" && find samples plugins -type f | sort)
if grep -q -x -F /usr/bin/tilescope-cupti-runner "$scratch/contents"; then
  echo "FAIL: the package holds the CUPTI runner, which needs the CUDA toolkit"
  failed=1
fi

depends="$(dpkg-deb -f "$deb" Depends)"
# From dpkg-shlibdeps (libc, yaml-cpp, Qt Widgets) and from Packaging.cmake (the Qt plugins).
for package in libc6 libyaml-cpp libqt6widgets6 qt6-qpa-plugins; do
  [[ "$depends" == *"$package"* ]] || { echo "FAIL: Depends lacks $package: $depends"; failed=1; }
done

maintainer="$(dpkg-deb -f "$deb" Maintainer)"
if [[ "$maintainer" != *@*.* || "$maintainer" == *.invalid* || "$maintainer" == *example* ]]; then
  echo "FAIL: the Maintainer is a placeholder: $maintainer"
  failed=1
fi

# lintian's errors fail the test; its warnings and notes are printed. (scripts/setup installs
# lintian and desktop-file-utils; a machine without them says so.)
lintian_said="not run: lintian is not installed"
if command -v lintian >/dev/null; then
  lintian --no-cfg "$deb" >"$scratch/lintian.log" 2>&1 || true
  if grep -q '^E: ' "$scratch/lintian.log"; then
    echo "FAIL: lintian finds errors in the package:"
    grep '^E: ' "$scratch/lintian.log"
    failed=1
  fi
  lintian_said="$(grep -c '^E: ' "$scratch/lintian.log" || true) errors, $(grep -c '^W: ' "$scratch/lintian.log" || true) warnings"
fi

dpkg-deb -x "$deb" "$scratch/root"
if command -v desktop-file-validate >/dev/null &&
  ! desktop-file-validate "$scratch/root/usr/share/applications/tilescope-gui.desktop"; then
  echo "FAIL: the desktop entry is not valid"
  failed=1
fi
# Every manual page is one man reads without a complaint, and says what the program's --help
# says (each is made from it): the CLI's lists its commands, sweep's among them.
for binary in tilescope tilescope-report tilescope-gui; do
  command -v man >/dev/null || { echo "FAIL: man is not installed (man-db)"; failed=1; break; }
  page="$scratch/root/usr/share/man/man1/$binary.1.gz"
  if ! LC_ALL=C.UTF-8 MANWIDTH=100 man --warnings -E UTF-8 -l "$page" >"$scratch/$binary.man" \
    2>"$scratch/$binary.man.err" || [ -s "$scratch/$binary.man.err" ]; then
    echo "FAIL: man reads $binary.1.gz with complaints:"
    cat "$scratch/$binary.man.err"
    failed=1
  fi
done
grep -q 'tilescope sweep' "$scratch/tilescope.man" ||
  { echo "FAIL: tilescope.1 has no section for tilescope sweep"; failed=1; }
grep -q 'profile:NAME' "$scratch/tilescope-gui.man" ||
  { echo "FAIL: tilescope-gui.1 does not say --compare takes profile:NAME"; failed=1; }
for binary in "$scratch"/root/usr/bin/*; do
  for path in "$source" "$build"; do
    if strings "$binary" | grep -F -q "$path"; then
      echo "FAIL: the packaged $(basename "$binary") names $path"
      failed=1
    fi
  done
done
# Portable: no AVX instruction outside the host kernels' run-time-dispatched levels (an older
# CPU would die with an illegal instruction). Looked at in the build's binaries, which the
# package's are stripped of their symbols (Debian policy) but otherwise the same code: the
# check names each instruction's function, and a stripped binary has no names for them.
if ! "$source/scripts/check-portable-binary" "$build/app/tilescope" "$build/app/tilescope-report" \
  "$build/app/gui/tilescope-gui"; then
  echo "FAIL: a packaged binary has AVX instructions outside a run-time-dispatched path"
  failed=1
fi
if ! "$scratch/root/usr/bin/tilescope" validate "$scratch"/root/usr/share/tilescope/samples/arch/*.yaml \
  >"$scratch/validate.log"; then
  echo "FAIL: the packaged tilescope did not validate the packaged graphs:"
  cat "$scratch/validate.log"
  failed=1
fi
[ "$failed" -eq 0 ] || exit 1
echo "$(basename "$deb"): $(du -h "$deb" | cut -f1), $(grep -c . "$scratch/contents") entries"
echo "Depends: $depends"
echo "Maintainer: $maintainer"
echo "lintian: $lintian_said"
[ -f "$scratch/lintian.log" ] && cat "$scratch/lintian.log"
grep -E '^/usr/(bin/|lib/cmake/)|^/usr/share/tilescope/(samples|plugins)/$' "$scratch/contents"
echo "share/tilescope: $(grep -c '^/usr/share/tilescope/.*[^/]$' "$scratch/contents") files"
