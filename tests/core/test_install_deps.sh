#!/usr/bin/env bash
# tools/install-deps.sh is idempotent: on a machine that has every package (as `make test` leaves
# it) it returns 0 at once and never calls apt-get or sudo. A virtual package name in its list (one
# dpkg never reports installed) made every make target run apt-get again, and fail without root.
set -euo pipefail
root="$1"
fake="$(mktemp -d)"
trap 'rm -rf "$fake"' EXIT
for tool in apt-get sudo; do
  printf '#!/bin/sh\necho called >> "%s/%s.calls"\nexit 1\n' "$fake" "$tool" > "$fake/$tool"
  chmod +x "$fake/$tool"
done
for flag in "" "--with-browser"; do
  if ! PATH="$fake:$PATH" ENGRAMSIM_WITH_BROWSER=0 bash "$root/tools/install-deps.sh" $flag; then
    echo "FAIL: install-deps.sh $flag exited non-zero with every package installed" >&2
    exit 1
  fi
  for tool in apt-get sudo; do
    if [[ -e "$fake/$tool.calls" ]]; then
      echo "FAIL: install-deps.sh $flag called $tool although nothing is missing" >&2
      exit 1
    fi
  done
done
echo "install-deps.sh: idempotent (no apt-get, no sudo)"
