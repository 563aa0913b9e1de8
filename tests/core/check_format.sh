#!/usr/bin/env bash
# Every tracked C++ source (.cpp .hpp .h .cu .cuh) is as clang-format leaves it under the root's
# .clang-format (`clang-format -i FILE` fixes one).
#
#   check_format.sh SOURCE_ROOT              check the tree; exit 1 naming every file that fails
#   check_format.sh --self-test SOURCE_ROOT  check that the checker fails on a badly formatted file
set -euo pipefail

check_tree() {
  local root=$1 bad=0 f
  command -v clang-format > /dev/null || { echo "check_format: clang-format not found (tools/install-deps.sh installs it)" >&2; return 2; }
  [[ -f $root/.clang-format ]] || { echo "check_format: $root/.clang-format not found" >&2; return 2; }
  while IFS= read -r f; do
    clang-format --style=file "$root/$f" | cmp -s - "$root/$f" && continue
    echo "$f: not as clang-format leaves it (run clang-format -i $f)"; bad=$((bad + 1))
  done < <(cd "$root" && files)
  ((bad == 0)) || { echo "$bad format problem(s)"; return 1; }
  echo "format: every source is formatted"
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
  cp "$1/.clang-format" "$tmp/" && mkdir -p "$tmp/core"
  printf 'int f(int a) { return a; }\n' > "$tmp/core/good.cpp"
  check_tree "$tmp" > "$tmp/out" || { cat "$tmp/out"; echo "self-test: a formatted tree failed"; return 1; }
  printf 'int   g( int a ){return a;}\n' > "$tmp/core/bad.cpp"
  if check_tree "$tmp" > "$tmp/out"; then echo "self-test: a badly formatted file passed"; return 1; fi
  grep -q 'core/bad.cpp: not as clang-format leaves it' "$tmp/out" || { cat "$tmp/out"; return 1; }
  echo "check_format self-test: passes a formatted tree, refuses a badly formatted file"
}

if [[ ${1:-} == --self-test ]]; then self_test "$2"; else check_tree "$1"; fi
