#!/usr/bin/env bash
# The GPU calibration tool (calibration/standalone) builds where only the CUDA toolkit and Eigen's
# headers are: none of its C++ sources may need yaml-cpp or nlohmann/json. Each source in its
# CMakeLists.txt is compiled (syntax only, field tables text-only as the tool builds them) against
# stand-in headers of those two libraries that refuse to be included.
#
#   check_standalone_sources.sh CXX SOURCE_ROOT
set -euo pipefail
cxx=$1
root=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/yaml-cpp" "$tmp/nlohmann"
echo '#error "yaml-cpp: the GPU calibration tool builds without it"' > "$tmp/yaml-cpp/yaml.h"
echo '#error "nlohmann/json: the GPU calibration tool builds without it"' > "$tmp/nlohmann/json.hpp"
eigen=""
for d in "${EIGEN3_INCLUDE_DIR:-}" /usr/include/eigen3 /usr/local/include/eigen3; do
  [[ -n $d && -f $d/Eigen/Dense ]] && { eigen=$d; break; }
done
[[ -n $eigen ]] || { echo "check_standalone_sources: Eigen headers not found" >&2; exit 2; }
mapfile -t sources < <(sed -n 's#^ *\${root}/\(.*\.cpp\)$#\1#p' "$root/calibration/standalone/CMakeLists.txt")
sources+=(calibration/standalone/gpu_calibrate_main.cpp)
((${#sources[@]} > 10)) || { echo "check_standalone_sources: no sources found in the standalone CMakeLists.txt" >&2; exit 2; }
bad=0
for f in "${sources[@]}"; do
  "$cxx" -std=c++20 -fsyntax-only -DENGRAMSIM_FIELD_TABLE_TEXT_ONLY -DENGRAMSIM_SOURCE_ROOT='""' \
    -DENGRAMSIM_VERSION='""' -I"$tmp" -I"$root" -isystem "$eigen" "$root/$f" ||
    { echo "$f: does not build for the GPU calibration tool (see above)"; bad=$((bad + 1)); }
done
((bad == 0)) || { echo "$bad source(s) need a library the GPU calibration tool does not have"; exit 1; }
echo "standalone: ${#sources[@]} sources build without yaml-cpp and nlohmann/json"
