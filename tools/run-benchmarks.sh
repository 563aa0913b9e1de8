#!/usr/bin/env bash
# Runs every benchmark program in BUILD/bin (bench_*) and writes JSON results to BUILD/bench-results/.
set -euo pipefail
build=${1:-build}
out="$build/bench-results"
mkdir -p "$out"
shopt -s nullglob
for b in "$build"/bin/bench_*; do
  name=$(basename "$b")
  echo "== $name"
  "$b" --benchmark_out="$out/$name.json" --benchmark_out_format=json
done
echo "results in $out/"
