#!/usr/bin/env bash
# Configures (and on request builds) collectors/cupti alone in a clean folder, as scripts/gpu-check does on a
# bare GPU machine, and checks that its CMakeLists looked for no package but CUDAToolkit (CMake's
# own FindCUDAToolkit may look for Threads) and that the cache holds no package directory of
# another library.
set -u
src=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
if ! cmake -S "$src" -B "$dir/build" --trace-expand --trace-redirect="$dir/trace.txt" \
     >"$dir/configure.log" 2>&1; then
  echo "configuring $src alone failed:"; tail -20 "$dir/configure.log"; exit 1
fi
# find_package / pkg_check_modules calls made by the runner's own CMakeLists.txt
calls=$(grep -E "^$src/CMakeLists.txt\([0-9]+\): +(find_package|pkg_check_modules|pkg_search_module|find_library|find_path)\(" "$dir/trace.txt")
echo "$calls"
others=$(printf '%s\n' "$calls" | grep -v -E "find_package\(CUDAToolkit( REQUIRED)? *\)" | grep -v '^$')
if [[ -n $others ]]; then echo "the runner looks for more than CUDAToolkit:"; echo "$others"; exit 1; fi
[[ -n $calls ]] || { echo "no find_package(CUDAToolkit) traced"; exit 1; }
# package directories in the cache: only CMake's own redirect folder is allowed
dirs=$(grep -E "^[A-Za-z0-9_]+_DIR:(PATH|FILEPATH|UNINITIALIZED)=" "$dir/build/CMakeCache.txt" | grep -v -E "^CUDAToolkit_[A-Z_]*DIR:" || true)
if [[ -n $dirs ]]; then echo "packages found besides CUDAToolkit:"; echo "$dirs"; exit 1; fi
# Building it alone as well takes minutes on a small machine; the main build compiles the same
# sources. Set TILESCOPE_CUPTI_STANDALONE_BUILD=1 to build here too.
if [[ ${TILESCOPE_CUPTI_STANDALONE_BUILD:-0} == 1 ]]; then
  if ! cmake --build "$dir/build" -j2 >"$dir/build.log" 2>&1; then
    echo "building the runner alone failed:"; tail -30 "$dir/build.log"; exit 1
  fi
  if grep -E "warning" "$dir/build.log"; then echo "the standalone build has warnings"; exit 1; fi
  test -x "$dir/build/tilescope-cupti-runner" || { echo "no runner binary"; exit 1; }
fi
echo "collectors/cupti configures alone with CUDAToolkit only"
