#!/usr/bin/env bash
# find_package_consumer.sh CMAKE BUILD_DIR SOURCE_DIR CXX_COMPILER VERSION
#
# Code outside tilescope builds against an installed one: installs the `development` component
# (core libraries, headers, CMake package) into a temporary prefix, checks that its CMake files
# name neither the source nor the build tree, then configures and builds tests/install/consumer
# (a copy, outside the source tree) with find_package(tilescope) and runs it on a graph written
# here, and on a broken one.
set -euo pipefail
cmake="$1"
cxx="$4"
version="$5"
source "$(dirname "${BASH_SOURCE[0]}")/scratch_folder.sh"
scratch_folder "$2" "$3"
prefix="$scratch/prefix"
"$cmake" --install "$build" --prefix "$prefix" --component development >/dev/null

failed=0
for path in "$source" "$build"; do
  if grep -r -F -l "$path" "$prefix"; then
    echo "FAIL: the installed files above name $path"
    failed=1
  fi
done
[ -f "$prefix/lib/cmake/tilescope/tilescopeConfig.cmake" ] ||
  { echo "FAIL: no lib/cmake/tilescope/tilescopeConfig.cmake"; exit 1; }

cp -r "$source/tests/install/consumer" "$scratch/consumer"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
"$cmake" -S "$scratch/consumer" -B "$scratch/consumer-build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
"$cmake" --build "$scratch/consumer-build" >/dev/null

# Two nodes and two edges, counted from the text below.
cat >"$scratch/pair.yaml" <<'YAML'
version: 1
kind: architecture
name: pair
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - name: PE
    type: compute
    operations:
      - {class: matmul, dtype: fp16, ops_per_cycle: 64}
edges:
  - {from: DRAM, to: PE, bandwidth: 10GB/s}
  - {from: PE, to: DRAM, bandwidth: 10GB/s}
YAML
# The same with the second edge leaving a node that does not exist: line 13, column 12.
sed 's/from: PE,/from: SRAM,/' "$scratch/pair.yaml" >"$scratch/broken.yaml"

cd "$scratch"
expected="pair: 2 nodes, 2 edges, version $version"
got="$("$scratch/consumer-build/describe_graph" pair.yaml)"
if [ "$got" != "$expected" ]; then
  echo "FAIL: describe_graph pair.yaml printed '$got', expected '$expected'"
  failed=1
fi
status=0
error="$("$scratch/consumer-build/describe_graph" broken.yaml 2>&1)" || status=$?
if [ "$status" -ne 2 ] || [[ "$error" != broken.yaml:13:12:* ]]; then
  echo "FAIL: describe_graph broken.yaml exited $status with '$error'," \
       "expected status 2 and broken.yaml:13:12: ..."
  failed=1
fi
[ "$failed" -eq 0 ] || exit 1
echo "find_package(tilescope) $version from a temporary prefix: '$got'; broken graph: '$error'"
