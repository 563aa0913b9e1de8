#!/usr/bin/env bash
# The layering test: every `#include "..."` in the code folders must point into the file's own
# folder or into one its row of the layering table in docs/architecture.md allows.
#
#   check_layering.sh SOURCE_ROOT              check the tree; exit 1 listing every forbidden arrow
#   check_layering.sh --self-test SOURCE_ROOT  check that the checker fails on a wrong include
#
# The table sits between the markers `<!-- layering-begin -->` and `<!-- layering-end -->`, one
# row per folder: `folder: allowed folders...`. A row may name only folders of earlier rows, so the
# order of the rows is the layering and no two folders can include each other. A file belongs to the
# longest folder of the table its path starts with (scenario/build/x.hpp to scenario/build, not scenario); a file or
# an include outside every folder of the table is an error too, so a new folder needs a row.
#
# Inside a folder, the files of one stem (x.hpp, x.cpp) are a unit, and a unit including a header of
# another unit of its folder is an arrow between them. Units that reach each other through arrows
# form an include cycle: neither can be read, built or tested without the other. Every cycle is an
# error unless the list between `<!-- cycles-begin -->` and `<!-- cycles-end -->` in
# docs/architecture.md names its units (one line each, sorted), a list that may only shrink: a
# listed cycle that is gone is an error too, so its line is removed when the cycle is broken.
set -euo pipefail

check_tree() {
  local root=$1 doc=$1/docs/architecture.md
  [[ -f $doc ]] || { echo "check_layering: $doc not found" >&2; return 2; }
  local -a dirs=()
  local d
  for d in core models hardware calibration planner report study tools sim scenario validation; do [[ -d $root/$d ]] && dirs+=("$d"); done
  {
    awk '/<!-- layering-begin -->/ { on = 1; next } /<!-- layering-end -->/ { on = 0 } on && /^[a-z]/ { print "T", $0 }' "$doc"
    awk '/<!-- cycles-begin -->/ { on = 1; next } /<!-- cycles-end -->/ { on = 0 } on && /^[a-z]/ { print "C", $0 }' "$doc"
    if ((${#dirs[@]})); then
      # Every file (so that one outside the table is seen even without includes), then every include.
      (cd "$root" && find "${dirs[@]}" -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) |
        LC_ALL=C sort | sed 's/^/F /')
      (cd "$root" && grep -rnE --include='*.cpp' --include='*.hpp' --include='*.h' --include='*.cu' --include='*.cuh' \
        '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' "${dirs[@]}" |
        sed -E 's/^([^:]+):([0-9]+):[^"]*"([^"]+)".*/I \1 \2 \3/' | LC_ALL=C sort -k2,2 -k3,3n) || true
    fi
  } | awk '
    function folder_of(p,   best, f) {
      best = ""
      for (f in order)
        if ((p == f || index(p, f "/") == 1) && length(f) > length(best)) best = f
      return best
    }
    $1 == "T" {
      f = $2; sub(/:$/, "", f)
      if (f in order) { print "layering table: " f " has two rows"; bad++ }
      order[f] = ++rows; name[rows] = f
      for (i = 3; i <= NF; i++) {
        if (!($i in order)) { print "layering table: " f " may include " $i ", which has no row above it"; bad++ }
        allowed[f, $i] = 1
      }
      next
    }
    $1 == "F" {
      if (rows == 0) { print "layering table: no rows between the markers in docs/architecture.md"; exit 2 }
      files++
      if (folder_of($2) == "") { print $2 ": its folder has no row in the layering table"; bad++ }
      next
    }
    $1 == "C" {
      key = ""
      for (i = 2; i <= NF; i++) key = key (i > 2 ? " " : "") $i
      known[key] = 1
      next
    }
    $1 == "I" {
      includes++
      file = $2; from = folder_of(file); to = folder_of($4)
      if (from == "") next
      if (to == from) unit_arrow(unit_of(file), unit_of($4), file ":" $3)
      if (to == "") { print file ":" $3 ": includes \"" $4 "\", outside every folder of the layering table"; bad++; next }
      if (to != from && !((from, to) in allowed)) {
        print file ":" $3 ": " from " may not include " to " (\"" $4 "\"); allowed: " allowed_list(from)
        bad++
      }
    }
    function unit_of(p) { sub(/\.(cpp|hpp|h|cu|cuh)$/, "", p); return p }
    function unit_arrow(u, v, at) {
      if (u == v) return
      if (!(u in unit_id)) { unit_id[u] = ++units; unit_name[units] = u }
      if (!(v in unit_id)) { unit_id[v] = ++units; unit_name[units] = v }
      if (!((u, v) in arrow)) { arrow[u, v] = at; out[u] = out[u] " " v }
    }
    # Marks in seen[] every unit that u reaches through arrows.
    function reach_from(u,   queue, head, tail, w, next_units, n, i) {
      split("", seen); head = 1; tail = 0; queue[++tail] = u
      while (head <= tail) {
        w = queue[head++]
        n = split(out[w], next_units, " ")
        for (i = 1; i <= n; i++) if (!(next_units[i] in seen)) { seen[next_units[i]] = 1; queue[++tail] = next_units[i] }
      }
    }
    # Every include cycle: its units sorted and joined by spaces, one entry of cycles[] each, with the
    # arrows between them as evidence.
    function find_cycles(   i, j, u, v, members, n, key, k, t, m) {
      for (i = 1; i <= units; i++) { reach_from(unit_name[i]); for (v in seen) reaches[unit_name[i], v] = 1 }
      for (i = 1; i <= units; i++) {
        u = unit_name[i]
        if (u in placed) continue
        n = 0
        for (j = 1; j <= units; j++) {
          v = unit_name[j]
          if (v == u || ((u, v) in reaches && (v, u) in reaches)) { members[++n] = v; placed[v] = 1 }
        }
        if (n < 2) continue
        for (k = 2; k <= n; k++) for (m = k; m > 1 && members[m] < members[m - 1]; m--) { t = members[m]; members[m] = members[m - 1]; members[m - 1] = t }
        key = members[1]
        for (k = 2; k <= n; k++) key = key " " members[k]
        evidence[key] = ""
        for (k = 1; k <= n; k++) for (m = 1; m <= n; m++)
          if ((members[k], members[m]) in arrow) evidence[key] = evidence[key] "\n  " arrow[members[k], members[m]] " includes " members[m]
        cycles[key] = 1
      }
    }
    function allowed_list(f,   s, i) {
      s = ""
      for (i = 1; i <= rows; i++) if ((f, name[i]) in allowed) s = s (s == "" ? "" : " ") name[i]
      return s == "" ? "nothing" : s
    }
    END {
      find_cycles()
      for (key in cycles) {
        listed++
        if (!(key in known)) { print "include cycle between " key ":" evidence[key]; bad++ }
      }
      for (key in known)
        if (!(key in cycles)) { print "the listed include cycle " key " is gone: remove its line from docs/architecture.md"; bad++ }
      if (bad) { print bad " layering violation(s)"; exit 1 }
      print "layering: " includes " includes in " files " files, all allowed by " rows " rows; " listed + 0 " listed include cycle(s) left"
    }'
}

self_test() {
  local root=$1 tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  mkdir -p "$tmp/docs" "$tmp/core" "$tmp/sim/serving"
  # The real table, without the real tree's listed cycles (their files are not in the scratch tree).
  awk '/<!-- cycles-begin -->/ { on = 1 } /<!-- cycles-end -->/ { on = 0 } !(on && /^[a-z]/)' \
    "$root/docs/architecture.md" > "$tmp/docs/architecture.md"
  printf '#include "core/b.hpp"\n' > "$tmp/core/a.hpp"
  printf '#include "core/a.hpp"\n' > "$tmp/sim/serving/s.hpp"
  check_tree "$tmp" > /dev/null || { echo "self-test: a clean tree failed"; return 1; }
  printf '#include "sim/serving/s.hpp"\n' > "$tmp/core/wrong.hpp"
  if check_tree "$tmp" > "$tmp/out"; then echo "self-test: core -> sim/serving passed"; return 1; fi
  grep -q 'core/wrong.hpp:1: core may not include sim/serving' "$tmp/out" || { cat "$tmp/out"; return 1; }
  rm "$tmp/core/wrong.hpp"
  mkdir -p "$tmp/sim/nowhere" && printf '\n' > "$tmp/sim/nowhere/x.cpp"
  if check_tree "$tmp" > /dev/null; then echo "self-test: a folder without a row passed"; return 1; fi
  rm -r "$tmp/sim/nowhere"
  printf '#include "core/c.hpp"\n' > "$tmp/core/b.cpp"
  printf '#include "core/a.hpp"\n' > "$tmp/core/c.hpp"
  if check_tree "$tmp" > "$tmp/out"; then echo "self-test: the cycle a -> b -> c -> a passed"; return 1; fi
  grep -q 'include cycle between core/a core/b core/c' "$tmp/out" || { cat "$tmp/out"; return 1; }
  printf '```text\ncore/a core/b core/c\n```\n' > "$tmp/cycles"
  sed -i "/<!-- cycles-begin -->/r $tmp/cycles" "$tmp/docs/architecture.md"
  check_tree "$tmp" > /dev/null || { echo "self-test: a listed cycle failed"; return 1; }
  rm "$tmp/core/c.hpp"
  if check_tree "$tmp" > "$tmp/out"; then echo "self-test: a listed cycle that is gone passed"; return 1; fi
  grep -q 'core/a core/b core/c is gone' "$tmp/out" || { cat "$tmp/out"; return 1; }
  echo "self-test: the checker refuses a wrong include, a folder without a row, an include cycle and a listed cycle that is gone"
}

if [[ ${1:-} == --self-test ]]; then self_test "${2:?usage: check_layering.sh --self-test SOURCE_ROOT}"
else check_tree "${1:?usage: check_layering.sh SOURCE_ROOT}"; fi
