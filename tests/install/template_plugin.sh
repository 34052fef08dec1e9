#!/usr/bin/env bash
# template_plugin.sh CMAKE BUILD_DIR SOURCE_DIR
#
# A new chip added without touching tilescope (issue 20, must-show 2): installs the CLI, the data
# and the development files into a temporary prefix, copies the installed plugins/template out of
# it, builds the code plugin with find_package(tilescope) against that prefix, points
# TILESCOPE_PLUGIN_PATH at the build and at a copy of the data profile, and predicts with both
# through the installed `tilescope`. The source tree's template is checked to be unchanged.
set -euo pipefail
cmake="$1"
source "$(dirname "${BASH_SOURCE[0]}")/scratch_folder.sh"
scratch_folder "$2" "$3"
prefix="$scratch/prefix"
touch "$scratch/started"
for component in cli data development; do
  "$cmake" --install "$build" --prefix "$prefix" --component "$component" >/dev/null
done
template="$prefix/share/tilescope/plugins/template"
[ -f "$template/code-plugin/CMakeLists.txt" ] ||
  { echo "FAIL: the install has no share/tilescope/plugins/template/code-plugin"; exit 1; }
cp -r "$template/code-plugin" "$scratch/mychip-code"
cp -r "$template/data-profile" "$scratch/mychip"

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
"$cmake" -S "$scratch/mychip-code" -B "$scratch/mychip-code-build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
"$cmake" --build "$scratch/mychip-code-build" >/dev/null

failed=0
workload="$prefix/share/tilescope/samples/workloads/bert-base.yaml"
mkdir "$scratch/work"
cd "$scratch/work"
export TILESCOPE_PLUGIN_PATH="$scratch/mychip-code-build:$scratch"
export XDG_DATA_HOME="$scratch/xdg"  # no profile of the user's own can interfere
export XDG_CACHE_HOME="$scratch/cache"  # the plugin checks' verdicts (docs/formats.md), not the user's
list="$("$prefix/bin/tilescope" profiles list)"
for name in mychip-code mychip ascend nvidia; do
  if ! grep -q "^$name\b" <<<"$list" && ! grep -q "\b$name\b" <<<"$list"; then
    echo "FAIL: profiles list does not show $name:"
    echo "$list"
    failed=1
  fi
done
for arch in profile:mychip-code profile:mychip; do
  csv="$("$prefix/bin/tilescope" predict --format csv --arch "$arch" --workload "$workload")"
  rows=$(($(wc -l <<<"$csv") - 1))
  if [ "$rows" -lt 1 ]; then
    echo "FAIL: predict --arch $arch printed no operator"
    failed=1
  fi
  echo "$arch: $rows operators predicted"
done
changed="$(find "$source/plugins/template" -newer "$scratch/started")"
if [ -n "$changed" ]; then
  echo "FAIL: the source tree's template changed: $changed"
  failed=1
fi
exit "$failed"
