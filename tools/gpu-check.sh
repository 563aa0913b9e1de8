#!/usr/bin/env bash
# GPU calibration check for a machine with the CUDA toolkit and a GPU but none of engramsim's other
# build dependencies (no yaml-cpp, CLI11, GoogleTest; no network). Builds the standalone GPU
# calibration tool (calibration/standalone), runs every CUDA benchmark with its CPU-reference
# correctness check, and writes the profile, its samples and a log to OUTDIR.
#
#   tools/gpu-check.sh OUTDIR [--full] [--limit SECONDS] [--only LIST] [--prebuilt BINARY]
#   tools/gpu-check.sh --prepare     # here, on a machine with Eigen: fill .deps/ for carrying
#
# OUTDIR gets gpu-check.log, profile.yaml and profile.samples.csv. --quick sizes are the default
# (about a minute of GPU time on an H200); --full runs the full sweep (several minutes). The run is
# killed after --limit seconds (default 420). A prebuilt tool (--prebuilt, or .deps/ from
# --prepare) is used when it runs here; otherwise the tool is built with CMake, or with nvcc alone
# when CMake is missing. Eigen's headers come from .deps/eigen3 or the system.
# Exit status: the tool's (0 ok, 1 a check failed or nothing measured, 2 bad arguments), 124 when
# the limit was hit, 3 when the tool could not be built.
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
deps="$repo/.deps"

if [[ "${1:-}" == "--prepare" ]]; then
  set -e
  eigen_src=""
  for d in "${EIGEN3_INCLUDE_DIR:-}" /usr/include/eigen3 /usr/local/include/eigen3; do
    [[ -n "$d" && -f "$d/Eigen/Dense" ]] && { eigen_src=$d; break; }
  done
  [[ -n "$eigen_src" ]] || { echo "gpu-check: no Eigen headers here to copy" >&2; exit 3; }
  mkdir -p "$deps/eigen3"
  rm -rf "$deps/eigen3/Eigen"
  cp -r "$eigen_src/Eigen" "$deps/eigen3/"
  # Keep .deps/ out of git status (a worktree's .git is a file: ask git where its exclude file is).
  if exclude=$(git -C "$repo" rev-parse --git-path info/exclude 2>/dev/null); then
    [[ "$exclude" = /* ]] || exclude="$repo/$exclude"
    mkdir -p "$(dirname "$exclude")"
    grep -qx '/.deps/' "$exclude" 2>/dev/null || echo '/.deps/' >>"$exclude"
  fi
  prep=${TMPDIR:-/tmp}/engramsim-gpu-prepare-build
  cmake -S "$repo/calibration/standalone" -B "$prep" -DENGRAMSIM_EIGEN_DIR="$deps/eigen3" >/dev/null
  cmake --build "$prep" -j "$(nproc)"
  cp "$prep/engramsim-gpu-calibrate" "$deps/engramsim-gpu-calibrate"
  echo "gpu-check: .deps/ ready ($(du -sh "$deps" | cut -f1)); copy the tree with .deps/ to the GPU machine and run tools/gpu-check.sh OUTDIR there"
  exit 0
fi

out=${1:-}
[[ -n "$out" && "$out" != --* ]] || { echo "usage: tools/gpu-check.sh OUTDIR [--full] [--limit SECONDS] [--only LIST] [--prebuilt BINARY] | --prepare" >&2; exit 2; }
shift
mode=(--quick)
limit=420
only=gpu
prebuilt="$deps/engramsim-gpu-calibrate"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --full) mode=(); shift ;;
    --limit) limit=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --prebuilt) prebuilt=$2; shift 2 ;;
    *) echo "gpu-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
log="$out/gpu-check.log"
exec > >(tee -a "$log") 2>&1

echo "== gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), repo $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"
uname -srm
if command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,compute_cap,clocks.sm,clocks.mem --format=csv
else
  echo "nvidia-smi not found"
fi
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[[ -x "$nvcc" ]] && "$nvcc" --version | tail -2 || echo "nvcc not found"
# cuBLASLt comes from the toolkit beside nvcc when the binary's RPATH points elsewhere.
toolkit_lib=$(cd "$(dirname "$nvcc")/.." 2>/dev/null && pwd)/lib64
export LD_LIBRARY_PATH="$toolkit_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# 1. A prebuilt tool, if it starts here (other system libraries can stop it).
bin=""
# --probe exits 0 (GPU) or 1 (no GPU) once the binary has started; anything else (127, a loader
# error) means it cannot run on this machine.
if [[ -x "$prebuilt" ]]; then
  "$prebuilt" --probe >/dev/null 2>&1
  probe_rc=$?
  if [[ $probe_rc -le 1 ]]; then
    bin=$prebuilt
    echo "== using prebuilt $bin"
  else
    echo "== prebuilt $prebuilt does not start here (exit $probe_rc); building"
  fi
fi

# 2. Else build it: CMake when present, else nvcc alone.
if [[ -z "$bin" ]]; then
  eigen=""
  for d in "$deps/eigen3" "${EIGEN3_INCLUDE_DIR:-}" /usr/include/eigen3 /usr/local/include/eigen3; do
    [[ -n "$d" && -f "$d/Eigen/Dense" ]] && { eigen=$d; break; }
  done
  if [[ -z "$eigen" ]]; then
    echo "gpu-check: cannot build: Eigen headers not found. On a machine that has them run"
    echo "  tools/gpu-check.sh --prepare   and carry .deps/ here."
    exit 3
  fi
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  [[ "$arch" =~ ^[0-9]+$ ]] || arch=90
  build=${TMPDIR:-/tmp}/engramsim-gpu-check-build
  echo "== building the GPU calibration tool for sm_$arch in $build (Eigen: $eigen)"
  t0=$(date +%s)
  if command -v cmake >/dev/null; then
    cmake -S "$repo/calibration/standalone" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$arch" \
      -DCMAKE_CUDA_COMPILER="$nvcc" -DENGRAMSIM_EIGEN_DIR="$eigen" >"$out/build.log" 2>&1 &&
      cmake --build "$build" -j "$(nproc)" >>"$out/build.log" 2>&1 && bin="$build/engramsim-gpu-calibrate"
  else
    mkdir -p "$build"
    version=$(sed -n 's/^project(engramsim VERSION \([0-9.]*\).*/\1/p' "$repo/CMakeLists.txt")
    "$nvcc" -O2 -std=c++20 -arch="sm_$arch" -I"$repo" -isystem "$eigen" \
      -DENGRAMSIM_SOURCE_ROOT="\"$repo\"" -DENGRAMSIM_VERSION="\"$version\"" -DENGRAMSIM_FIELD_TABLE_TEXT_ONLY \
      "$repo"/calibration/standalone/gpu_calibrate_main.cpp \
      "$repo"/calibration/{calibration_runner,fit,gpu_sections,host_info,sample_log,stats,rank_scatter}.cpp \
      "$repo"/calibration/cuda/*.cu "$repo"/hardware/calibration_{profile,schema}.cpp \
      "$repo"/core/{error,field_table,paths,rng,unit_parse,units,zipf_sampler}.cpp \
      -lcublasLt -lpthread -o "$build/engramsim-gpu-calibrate" >"$out/build.log" 2>&1 && bin="$build/engramsim-gpu-calibrate"
  fi
  if [[ -z "$bin" ]]; then
    echo "gpu-check: build failed; last lines of $out/build.log:"
    tail -30 "$out/build.log"
    exit 3
  fi
  echo "== built in $(( $(date +%s) - t0 )) s"
fi

# 3. Run the benchmarks with their correctness checks, bounded in time.
echo "== running: $bin ${mode[*]} --only $only --out $out/profile.yaml (limit ${limit}s)"
timeout --signal=TERM "$limit" "$bin" "${mode[@]}" --only "$only" --out "$out/profile.yaml"
rc=$?
case $rc in
  0) echo "== gpu-check: OK, every correctness check passed; profile in $out/profile.yaml"
     echo "   on the development machine: engramsim validate-set --calibration <fetched>/profile.yaml" ;;
  124) echo "== gpu-check: stopped at the ${limit}s limit; rerun with a larger --limit or --only fewer sections" ;;
  *) echo "== gpu-check: FAILED (exit $rc); see the messages above" ;;
esac
ls -la "$out"
exit $rc
