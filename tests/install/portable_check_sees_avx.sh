#!/usr/bin/env bash
# portable_check_sees_avx.sh CXX SOURCE_DIR
#
# scripts/check-portable-binary fails on a binary with an AVX2 loop in an ordinary function, names
# that function, and passes the same loop in a run-time-dispatched level's namespace.
set -euo pipefail
cxx="$1"
check="$2/scripts/check-portable-binary"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
write() {  # write FILE NAMESPACE
  cat >"$1" <<SOURCE
namespace $2 {
__attribute__((target("avx2"), noinline)) void add(float* a, const float* b, int n) {
  for (int i = 0; i < n; ++i) a[i] += b[i];
}
}
int main() { float a[64] = {}, b[64] = {}; $2::add(a, b, 64); return static_cast<int>(a[0]); }
SOURCE
}
write "$scratch/plain.cpp" plain_loop
write "$scratch/dispatched.cpp" ts::host::avx2
"$cxx" -O3 -std=c++20 "$scratch/plain.cpp" -o "$scratch/plain"
"$cxx" -O3 -std=c++20 "$scratch/dispatched.cpp" -o "$scratch/dispatched"
if "$check" "$scratch/plain" >"$scratch/plain.log" 2>&1; then
  echo "FAIL: the check passed a binary with an AVX2 loop outside a dispatched path"
  cat "$scratch/plain.log"
  exit 1
fi
grep -q "not dispatched: plain_loop::add" "$scratch/plain.log" ||
  { echo "FAIL: the check did not name the function:"; cat "$scratch/plain.log"; exit 1; }
"$check" "$scratch/dispatched" || { echo "FAIL: the check refused a dispatched loop"; exit 1; }
cat "$scratch/plain.log"
