# A CSV table as a C++ header holding its rows in a constexpr array, so that data files under
# models/data become part of the build and nothing reads them at run time. Called by
# engramsim_embed_csv (models/CMakeLists.txt); by hand:
#
#   cmake -DCSV=table.csv -DCSV_NAME=models/data/x/table.csv -DOUT=table.hpp -DNAMESPACE=engramsim::data
#         -DROW_TYPE=TableRow -DARRAY=kTable -DCOLUMNS=name:text,key:real,count:integer -P csv_to_cpp.cmake
#
# The file's first line is its header: the COLUMNS names, in order. Every further non-empty line is one
# row of exactly as many cells, split at commas (no quoting: a cell holds no comma and no double
# quote). A row becomes one element of ARRAY, a std::array of ROW_TYPE {one member per column}:
#   text     std::string_view
#   real     double: a decimal number as JSON writes it, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?,
#            emitted with its digits as they are (".0" added to an integer), so the compiler reads the
#            same decimal value that strtod reads from the file and the double is the same bit for bit
#   integer  std::int64_t: -?(0|[1-9][0-9]*), at most 18 digits
# A malformed file stops the build with CSV_NAME:LINE: and what is wrong with that line.
cmake_minimum_required(VERSION 3.25)

foreach(var CSV CSV_NAME OUT NAMESPACE ROW_TYPE ARRAY COLUMNS)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "csv_to_cpp: -D${var}=... is required")
  endif()
endforeach()

set(names "")
set(types "")
string(REPLACE "," ";" specs "${COLUMNS}")
foreach(spec IN LISTS specs)
  if(NOT spec MATCHES "^([a-z_][a-z0-9_]*):(text|real|integer)$")
    message(FATAL_ERROR "csv_to_cpp: column '${spec}' is not NAME:text, NAME:real or NAME:integer")
  endif()
  list(APPEND names "${CMAKE_MATCH_1}")
  list(APPEND types "${CMAKE_MATCH_2}")
endforeach()
list(LENGTH names column_count)
string(REPLACE ";" "," header "${names}")

# Stops with the file, the line and what is wrong, leaving no stale header behind.
function(fail line_number what)
  file(REMOVE "${OUT}")
  message(FATAL_ERROR "${CSV_NAME}:${line_number}: ${what}")
endfunction()

# One cell as a C++ initializer, in `literal`.
function(cell_literal line_number column type cell)
  if(type STREQUAL "text")
    string(REPLACE "\\" "\\\\" escaped "${cell}")
    set(literal "\"${escaped}\"" PARENT_SCOPE)
  elseif(type STREQUAL "real")
    if(NOT cell MATCHES "^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?$")
      fail(${line_number} "column ${column}: '${cell}' is not a number (digits, an optional fraction and exponent)")
    endif()
    if(cell MATCHES "[.eE]")
      set(literal "${cell}" PARENT_SCOPE)
    else()
      set(literal "${cell}.0" PARENT_SCOPE)
    endif()
  else()
    if(NOT cell MATCHES "^-?(0|[1-9][0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?[0-9]?)$")
      fail(${line_number} "column ${column}: '${cell}' is not an integer of at most 18 digits")
    endif()
    set(literal "${cell}" PARENT_SCOPE)
  endif()
endfunction()

if(NOT EXISTS "${CSV}")
  message(FATAL_ERROR "csv_to_cpp: ${CSV_NAME}: no such file")
endif()
file(READ "${CSV}" rest)
string(REPLACE "\r" "" rest "${rest}")

# Lines and cells are cut with string(FIND) rather than as CMake lists, which would split at a
# semicolon and join across brackets inside a cell.
set(line_number 0)
set(row_count 0)
set(rows "")
string(LENGTH "${rest}" left)
while(left GREATER 0)
  string(FIND "${rest}" "\n" end)
  if(end EQUAL -1)
    set(line "${rest}")
    set(rest "")
  else()
    string(SUBSTRING "${rest}" 0 ${end} line)
    math(EXPR end "${end} + 1")
    string(SUBSTRING "${rest}" ${end} -1 rest)
  endif()
  string(LENGTH "${rest}" left)
  math(EXPR line_number "${line_number} + 1")

  if(line_number EQUAL 1)
    if(NOT line STREQUAL header)
      fail(1 "the header is '${line}', expected '${header}'")
    endif()
    continue()
  endif()
  if(line STREQUAL "")
    continue()
  endif()
  string(FIND "${line}" "\"" quote)
  if(NOT quote EQUAL -1)
    fail(${line_number} "a double quote (cells are not quoted: write the text without it)")
  endif()
  string(REGEX MATCHALL "," commas "${line}")
  list(LENGTH commas cell_count)
  math(EXPR cell_count "${cell_count} + 1")
  if(NOT cell_count EQUAL column_count)
    fail(${line_number} "${cell_count} cells, expected ${column_count} (${header})")
  endif()

  set(initializers "")
  math(EXPR last "${column_count} - 1")
  foreach(i RANGE ${last})
    string(FIND "${line}" "," end)
    if(end EQUAL -1)
      set(cell "${line}")
    else()
      string(SUBSTRING "${line}" 0 ${end} cell)
      math(EXPR end "${end} + 1")
      string(SUBSTRING "${line}" ${end} -1 line)
    endif()
    list(GET names ${i} name)
    list(GET types ${i} type)
    cell_literal(${line_number} ${name} ${type} "${cell}")
    if(i EQUAL 0)
      string(APPEND initializers "${literal}")
    else()
      string(APPEND initializers ", ${literal}")
    endif()
  endforeach()
  string(APPEND rows "    {${initializers}},\n")
  math(EXPR row_count "${row_count} + 1")
endwhile()

if(line_number EQUAL 0)
  fail(1 "empty file, expected the header '${header}'")
endif()
if(row_count EQUAL 0)
  fail(${line_number} "no rows after the header")
endif()

set(members "")
foreach(i RANGE ${last})
  list(GET names ${i} name)
  list(GET types ${i} type)
  if(type STREQUAL "text")
    string(APPEND members "  std::string_view ${name};\n")
  elseif(type STREQUAL "real")
    string(APPEND members "  double ${name};\n")
  else()
    string(APPEND members "  std::int64_t ${name};\n")
  endif()
endforeach()

file(WRITE "${OUT}" "// Generated by cmake/csv_to_cpp.cmake from ${CSV_NAME}: edit that file, not this one.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ${NAMESPACE} {

struct ${ROW_TYPE} {
${members}};

inline constexpr std::array<${ROW_TYPE}, ${row_count}> ${ARRAY}{{
${rows}}};

}  // namespace ${NAMESPACE}
")
