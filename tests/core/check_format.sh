#!/usr/bin/env bash
# The format ratchet: every tracked C++ source (.cpp .hpp .h .cu .cuh) is as clang-format leaves it
# under the root's .clang-format, except the files tools/format-pending.txt still lists. The list may
# only shrink: a listed file that is already formatted is an error too (take it off the list), and
# a file that is new or off the list must be formatted (`clang-format -i FILE`).
#
#   check_format.sh SOURCE_ROOT              check the tree; exit 1 naming every file that fails
#   check_format.sh --self-test SOURCE_ROOT  check that the checker fails on a badly formatted file
set -euo pipefail

check_tree() {
  local root=$1 pending=$1/tools/format-pending.txt bad=0 f
  command -v clang-format > /dev/null || { echo "check_format: clang-format not found (tools/install-deps.sh installs it)" >&2; return 2; }
  [[ -f $root/.clang-format ]] || { echo "check_format: $root/.clang-format not found" >&2; return 2; }
  declare -A listed=()
  if [[ -f $pending ]]; then
    while IFS= read -r f; do [[ -z $f || $f == \#* ]] || listed[$f]=1; done < "$pending"
  fi
  while IFS= read -r f; do
    if clang-format --style=file "$root/$f" | cmp -s - "$root/$f"; then
      [[ -n ${listed[$f]:-} ]] && { echo "$f: formatted, but still listed in tools/format-pending.txt (remove it)"; bad=$((bad + 1)); }
    elif [[ -z ${listed[$f]:-} ]]; then
      echo "$f: not as clang-format leaves it (run clang-format -i $f)"; bad=$((bad + 1))
    fi
    unset "listed[$f]"
  done < <(cd "$root" && files)
  for f in "${!listed[@]}"; do echo "tools/format-pending.txt: $f is not a tracked source (remove it)"; bad=$((bad + 1)); done
  ((bad == 0)) || { echo "$bad format problem(s)"; return 1; }
  echo "format: every source outside tools/format-pending.txt is formatted"
}

# Tracked sources when the root is a git checkout, else every source file under it (build folders left out).
files() {
  if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    git ls-files '*.cpp' '*.hpp' '*.h' '*.cu' '*.cuh'
  else
    find . \( -name '.git' -o -name 'build*' \) -prune -o -type f \
      \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) -print | sed 's|^\./||' | LC_ALL=C sort
  fi
}

self_test() {
  local tmp; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' RETURN
  cp "$1/.clang-format" "$tmp/" && mkdir -p "$tmp/tools" "$tmp/core"
  printf 'int f(int a) { return a; }\n' > "$tmp/core/good.cpp"
  check_tree "$tmp" > "$tmp/out" || { cat "$tmp/out"; echo "self-test: a formatted tree failed"; return 1; }
  printf 'int   g( int a ){return a;}\n' > "$tmp/core/bad.cpp"
  if check_tree "$tmp" > "$tmp/out"; then echo "self-test: a badly formatted file passed"; return 1; fi
  grep -q 'core/bad.cpp: not as clang-format leaves it' "$tmp/out" || { cat "$tmp/out"; return 1; }
  printf 'core/bad.cpp\ncore/good.cpp\n' > "$tmp/tools/format-pending.txt"
  if check_tree "$tmp" > "$tmp/out"; then echo "self-test: a formatted file left on the list passed"; return 1; fi
  grep -q 'core/good.cpp: formatted, but still listed' "$tmp/out" || { cat "$tmp/out"; return 1; }
  echo "check_format self-test: refuses a badly formatted file and a stale list entry"
}

if [[ ${1:-} == --self-test ]]; then self_test "$2"; else check_tree "$1"; fi
