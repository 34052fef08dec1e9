#!/usr/bin/env bash
# tilescope links no Qt (issue 16): `ldd` of it names no libQt. And, so that the check cannot
# pass on an ldd that lists nothing, tilescope-report, which draws with Qt, does name libQt.
set -u
tilescope=$1 report=$2
for program in "$tilescope" "$report"; do
  if ! ldd "$program" >/dev/null 2>&1; then
    echo "ldd cannot read $program"; exit 1
  fi
done
qt=$(ldd "$tilescope" | grep -i 'libQt')
if [[ -n $qt ]]; then
  echo "$tilescope links Qt:"; printf '%s\n' "$qt"; exit 1
fi
if ! ldd "$report" | grep -qi 'libQt'; then
  echo "$report lists no libQt: is this ldd's output what the check expects?"; ldd "$report"
  exit 1
fi
echo "tilescope: no Qt library; tilescope-report: $(ldd "$report" | grep -ci 'libQt') Qt libraries"
