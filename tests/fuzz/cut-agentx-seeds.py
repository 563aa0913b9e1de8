#!/usr/bin/env python3
"""Writes the seeds of the agentx_trace and agentx_scenario fuzz targets from shipped files.

The shipped corpus scenarios/traces/agentx-synthetic-seed42.jsonl.gz holds 6 session trees of
0.2 to 8.6 MB each, far beyond a fuzz input. Each seed keeps a few whole sessions cut to their first
entries (main-agent calls, `s` calls and subagent groups, a group cut to its first calls), every
kept value as the corpus writes it (numbers keep their text). The scenario seeds are
scenarios/agentx-v41-b200-tp4.yaml with its trace pointed at the file the target writes, a line
"--", then a cut trace (the format tests/fuzz/fuzz_agentx_scenario.cpp reads).

Run from the repository root after the corpus or that scenario changes, and commit the result:
  python3 tests/fuzz/cut-agentx-seeds.py
"""
import gzip
import json
import os

CORPUS = "scenarios/traces/agentx-synthetic-seed42.jsonl.gz"
SCENARIO = "scenarios/agentx-v41-b200-tp4.yaml"
SHIPPED_TRACE_LINE = "trace: traces/agentx-synthetic-seed42.jsonl.gz"
OUT = "tests/fuzz/seeds"


class Num(str):
    """A JSON number kept as the text it was written with."""


def ser(v):
    if isinstance(v, Num):
        return str(v)
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + ser(x) for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(ser(x) for x in v) + "]"
    return json.dumps(v)


def sessions():
    with gzip.open(CORPUS, "rt") as f:
        return [json.loads(line, parse_float=Num, parse_int=Num) for line in f if line.strip()]


def cut(session, entries, group_calls=1):
    """The session with its first `entries` entries, each subagent group cut to `group_calls` calls."""
    s = dict(session)
    kept = []
    for e in session["requests"][:entries]:
        if e["type"] == "subagent":
            e = dict(e)
            e["requests"] = e["requests"][:group_calls]
        kept.append(e)
    s["requests"] = kept
    return ser(s)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    print(f"{path}: {len(data)} bytes")


def main():
    all_sessions = sessions()
    # Sessions 0 and 2: main-agent calls only; session 5: an `s` call, then a subagent group.
    plain = "\n".join([cut(all_sessions[0], 3), cut(all_sessions[2], 2)]) + "\n"
    subagent = cut(all_sessions[5], 3, group_calls=2) + "\n"
    write(f"{OUT}/agentx_trace/two-short-sessions", plain.encode())
    write(f"{OUT}/agentx_trace/subagent-session", subagent.encode())
    mixed = "\n".join([cut(all_sessions[3], 2), cut(all_sessions[5], 2), cut(all_sessions[1], 1)]) + "\n"
    write(f"{OUT}/agentx_trace/three-short-sessions.gz", gzip.compress(mixed.encode(), mtime=0))

    with open(SCENARIO) as f:
        scenario = f.read()
    assert SHIPPED_TRACE_LINE in scenario, f"{SCENARIO} no longer names the shipped corpus"
    with_trace = scenario.replace(SHIPPED_TRACE_LINE, "trace: trace.jsonl")
    write(f"{OUT}/agentx_scenario/b200-tp4-cut-trace", (with_trace + "--\n" + subagent).encode())
    generated = scenario.replace(SHIPPED_TRACE_LINE, "generate: {seed: 7, sessions: 2}")
    write(f"{OUT}/agentx_scenario/b200-tp4-generated", generated.encode())


if __name__ == "__main__":
    main()
