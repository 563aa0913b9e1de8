#!/usr/bin/env bash
# The build step that embeds models/data CSVs (cmake/csv_to_cpp.cmake): a good table becomes rows
# whose numbers are the file's digits (".0" after an integer), and every kind of malformed table
# fails naming its file, line and fault.
#
#   check_csv_to_cpp.sh CMAKE SOURCE_ROOT
set -euo pipefail
cmake=$1 script=$2/cmake/csv_to_cpp.cmake
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

# generate FILE COLUMNS: runs the script on $tmp/FILE into $tmp/out.hpp, its messages in $tmp/log.
generate() {
  "$cmake" -DCSV="$tmp/$1" -DCSV_NAME="data/$1" -DOUT="$tmp/out.hpp" -DNAMESPACE=engramsim::data \
    -DROW_TYPE=Row -DARRAY=kRows -DCOLUMNS="$2" -P "$script" > "$tmp/log" 2>&1
}

printf 'curve,key,efficiency,count,source\r\ngemm.flops,262144,0.012,3,[E] a; b\n\nx,2.855270e-05,1E3,-7,\n' > "$tmp/good.csv"
if ! generate good.csv curve:text,key:real,efficiency:real,count:integer,source:text; then
  cat "$tmp/log"; echo "a good table failed"; bad=$((bad + 1))
else
  for want in '{"gemm.flops", 262144.0, 0.012, 3, "[E] a; b"},' '{"x", 2.855270e-05, 1E3, -7, ""},' \
    'std::array<Row, 2> kRows' 'std::int64_t count;' 'double key;' 'std::string_view source;'; do
    grep -qF -- "$want" "$tmp/out.hpp" || { cat "$tmp/out.hpp"; echo "missing: $want"; bad=$((bad + 1)); }
  done
fi

# expect_failure CONTENT MESSAGE: a two-column table (name:text, value:real) with CONTENT must fail
# with MESSAGE, and leave no header behind.
expect_failure() {
  printf '%b' "$1" > "$tmp/bad.csv"
  : > "$tmp/out.hpp"
  if generate bad.csv name:text,value:real; then
    echo "accepted: $1"; bad=$((bad + 1))
  elif ! tr -s ' \n' ' ' < "$tmp/log" | grep -qF -- "$2"; then
    cat "$tmp/log"; echo "expected the message: $2"; bad=$((bad + 1))
  elif [[ -e $tmp/out.hpp ]]; then
    echo "a failed run left its header: $1"; bad=$((bad + 1))
  fi
}
expect_failure 'name,value\na,1\nb,2,3\n' 'data/bad.csv:3: 3 cells, expected 2 (name,value)'
expect_failure 'name,value\nb\n' 'data/bad.csv:2: 1 cells, expected 2'
expect_failure 'name,value\na,0.5x\n' "data/bad.csv:2: column value: '0.5x' is not a number"
expect_failure 'name,value\na,\n' "data/bad.csv:2: column value: '' is not a number"
expect_failure 'name,value\na,012\n' "data/bad.csv:2: column value: '012' is not a number"
expect_failure 'name,value\na,256*1024\n' "data/bad.csv:2: column value: '256*1024' is not a number"
expect_failure 'name,value\na,1.\n' "data/bad.csv:2: column value: '1.' is not a number"
expect_failure 'name,val\na,1\n' "data/bad.csv:1: the header is 'name,val', expected 'name,value'"
expect_failure 'name,value\n"a",1\n' 'data/bad.csv:2: a double quote'
expect_failure 'name,value\n' 'data/bad.csv:1: no rows after the header'
expect_failure '' 'data/bad.csv:1: empty file'

printf 'n,i\na,1.5\n' > "$tmp/int.csv"
if generate int.csv n:text,i:integer || ! grep -qF "column i: '1.5' is not an integer" "$tmp/log"; then
  cat "$tmp/log"; echo "an integer column took 1.5"; bad=$((bad + 1))
fi

((bad == 0)) || { echo "$bad csv_to_cpp check(s) failed"; exit 1; }
echo "csv_to_cpp: a good table embeds verbatim; malformed tables fail naming file, line and fault"
