#!/usr/bin/env bash
# Installs the Debian packages engramsim needs, only when something is missing.
# Idempotent: runs `apt-get update` once, and only if a package must be installed. Every name
# below is a real package (not a virtual one, which dpkg never reports installed), so a machine
# that has them all returns at once, without root.
# Usage: tools/install-deps.sh [--with-browser]   (--with-browser adds chromium for report tests)
set -euo pipefail

packages=(
  cmake g++ make pkg-config ccache
  libyaml-cpp-dev libcli11-dev libeigen3-dev nlohmann-json3-dev zlib1g-dev
  libsimgrid-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  liburing-dev
  clang-format
  strace
)
if [[ "${1:-}" == "--with-browser" || "${ENGRAMSIM_WITH_BROWSER:-0}" == "1" ]]; then
  packages+=(chromium)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-deps: missing packages: ${missing[*]}" >&2
    echo "install-deps: not root and no sudo; as root run: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
