#!/usr/bin/env bash
# relocated_predict.sh CMAKE BUILD_DIR SOURCE_DIR
#
# An installed tilescope can be moved: installs the CLI, the CUPTI runner where CUDA was found
# (component `cupti`, empty otherwise) and the bundled data into a temporary prefix, copies the
# prefix to another folder and removes the original, then, from a working folder outside the
# source tree, runs the copied `tilescope predict` on the copied samples and checks that its CSV
# is the build tree's CSV for the source tree's samples. Also checks that no installed binary
# names the source tree, the build tree or the prefix it was installed into (`strings`): nothing
# that ties it to where it was built or first installed.
set -euo pipefail
cmake="$1"
source "$(dirname "${BASH_SOURCE[0]}")/scratch_folder.sh"
scratch_folder "$2" "$3"

prefix="$scratch/prefix"
for component in cli cupti data; do
  "$cmake" --install "$build" --prefix "$prefix" --component "$component" >/dev/null
done
moved="$scratch/moved"
cp -a "$prefix" "$moved"
rm -rf "$prefix"

failed=0
for binary in "$moved"/bin/*; do
  for path in "$source" "$build" "$prefix"; do
    if strings "$binary" | grep -F -q "$path"; then
      echo "FAIL: $(basename "$binary") names $path:"
      strings "$binary" | grep -F "$path" | head -3
      failed=1
    fi
  done
done
[ -x "$moved/bin/tilescope" ] || { echo "FAIL: no bin/tilescope in the installed prefix"; exit 1; }

arch=samples/arch/ascend910b3.yaml
workload=samples/workloads/bert-base.yaml
mkdir "$scratch/work"
(cd "$scratch/work" && "$moved/bin/tilescope" predict --format csv \
  --arch "$moved/share/tilescope/$arch" --workload "$moved/share/tilescope/$workload") \
  >"$scratch/installed.csv"
(cd "$source" && "$build/app/tilescope" predict --format csv --arch "$arch" --workload "$workload") \
  >"$scratch/built.csv"
# Both runs predicting nothing would compare equal: the CSV must hold the suite's operators.
rows=$(grep -c . "$scratch/built.csv" || true)
if [ "$rows" -lt 2 ]; then
  echo "FAIL: the build tree's predict printed $rows lines"
  failed=1
elif ! diff "$scratch/built.csv" "$scratch/installed.csv"; then
  echo "FAIL: the copied prefix's CSV (>) differs from the build tree's (<)"
  failed=1
fi
[ "$failed" -eq 0 ] || exit 1
echo "relocated prefix: $(ls "$moved/bin" | tr '\n' ' ')predicts $workload on $arch as the build tree does ($rows CSV lines); no binary names the source, build or install path"
