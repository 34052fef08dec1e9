#!/usr/bin/env bash
# The runner without a CUDA device: exit status 2 and exactly one line on stderr,
# "no CUDA device visible: ...". Skipped (ctest exit 77 would need SKIP_RETURN_CODE; we
# simply pass) when a device is visible, since then the runner would measure.
set -u
runner=$1 plan=$2
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "a GPU is visible here: the no-device path cannot be checked"; exit 0
fi
for args in "--plan $plan" "--calibrate"; do
  err=$(timeout 60 "$runner" $args --out /dev/null 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | wc -l)
  if [[ $rc -ne 2 || $lines -ne 1 || $err != "no CUDA device visible: "* ]]; then
    echo "runner $args: expected exit 2 and one line 'no CUDA device visible: ...', got exit $rc:"
    printf '%s\n' "$err"; exit 1
  fi
  echo "runner $args: exit 2, '$err'"
done
