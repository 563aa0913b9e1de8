#!/usr/bin/env bash
# `make run`: the default what-if question. Runs scenarios/default.yaml (DeepSeek-V4.1-Flash on an
# HGX B300: TP4 with the Engram tables in HBM against TP2 with them in host DRAM, InferenceX 8k/1k at
# concurrency 64), prints the side-by-side comparison and writes the run's files to
# BUILD/default-run/ (summary.json, requests.csv, timeseries.csv per variant, compare.json).
# Usage: tools/run-default.sh [path/to/engramsim] [extra `engramsim run` options...]
set -euo pipefail
engramsim=${1:-build/bin/engramsim}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ ! -x "$engramsim" ]]; then
  echo "error: $engramsim is not an executable (build first: make build)" >&2
  exit 1
fi
out="$(dirname "$(dirname "$engramsim")")/default-run"
"$engramsim" run "$root/scenarios/default.yaml" --out "$out" "$@"
echo "files: $out/"
