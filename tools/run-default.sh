#!/usr/bin/env bash
# `make run`: the default what-if question, the article's B300 question on AgentX traffic
# (scenarios/article-b300-agentx-tp4-vs-tp2.yaml): DeepSeek-V4.1-Flash on one HGX B300 server, TP4
# with the Engram tables in HBM, TP4 with them in host DRAM, or TP2 with them in DRAM, each over
# concurrency 1..128 of one-hour AgentX replays, compared at equal P90 E2E-normalised interactivity
# (125 tok/s/user). The first lines printed are the verdict; the sweep's counts, the validation
# accuracy of the GPU and engine, and the report's path follow. Files: BUILD/default-run/
# (results.jsonl, report.html, report.md, charts/, tables/). About 2 minutes on 2 cores.
# Usage: tools/run-default.sh [path/to/engramsim] [extra `engramsim sweep` options...]
set -euo pipefail
engramsim=${1:-build/bin/engramsim}
shift || true
root=$(cd "$(dirname "$0")/.." && pwd)
if [[ ! -x "$engramsim" ]]; then
  echo "error: $engramsim is not an executable (build first: make build)" >&2
  exit 1
fi
out="$(dirname "$(dirname "$engramsim")")/default-run"
# A rerun starts over: the sweep refuses to mix its results with an earlier run's.
rm -rf "$out"
"$engramsim" sweep "$root/scenarios/article-b300-agentx-tp4-vs-tp2.yaml" --out "$out" --jobs "$(nproc)" --progress none "$@"
echo "files: $out/"
