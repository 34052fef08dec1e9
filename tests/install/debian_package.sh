#!/usr/bin/env bash
# debian_package.sh CPACK BUILD_DIR SOURCE_DIR VERSION
#
# `cpack -G DEB` (cmake/Packaging.cmake) makes tilescope_VERSION_ARCH.deb holding the binaries,
# the CMake package, the headers and every file of samples/ and plugins/ under
# /usr/share/tilescope, with Depends from dpkg-shlibdeps; the binaries unpacked from it name
# neither the source nor the build tree, have no AVX instruction outside a run-time-dispatched
# path (scripts/check-portable-binary), and tilescope runs.
# Prints the package's size, its Depends and the highlights of `dpkg-deb -c`.
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

dpkg-deb -x "$deb" "$scratch/root"
for binary in "$scratch"/root/usr/bin/*; do
  for path in "$source" "$build"; do
    if strings "$binary" | grep -F -q "$path"; then
      echo "FAIL: the packaged $(basename "$binary") names $path"
      failed=1
    fi
  done
done
# Portable: no AVX instruction outside the host kernels' run-time-dispatched levels (an older
# CPU would die with an illegal instruction).
if ! "$source/scripts/check-portable-binary" "$scratch"/root/usr/bin/*; then
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
grep -E '^/usr/(bin/|lib/cmake/)|^/usr/share/tilescope/(samples|plugins)/$' "$scratch/contents"
echo "share/tilescope: $(grep -c '^/usr/share/tilescope/.*[^/]$' "$scratch/contents") files"
