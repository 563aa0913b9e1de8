// A documentation key table against the schema that declares it (core/field_table.hpp). With
// ENGRAMSIM_UPDATE_DOCS=1 in ctest's environment the check writes the schema's table into the docs
// file instead of comparing.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/test_paths.hpp"

namespace engramsim::test {

// The Markdown table that follows `heading` in `file` (its lines from "| key |" to the first line
// that is not a table row).
inline std::string table_after(const std::string& file, const std::string& heading) {
  std::ifstream in(source_root() + "/" + file);
  std::string line, out;
  bool in_section = false, in_table = false;
  while (std::getline(in, line)) {
    if (!in_section) {
      in_section = line == heading;
      continue;
    }
    if (!in_table && line.rfind("| key |", 0) == 0) in_table = true;
    if (!in_table) continue;
    if (line.empty() || line[0] != '|') break;
    out += line + "\n";
  }
  return out;
}

// Replaces the table after `heading` in `file` by `table`.
inline void rewrite_table(const std::string& file, const std::string& heading, const std::string& table) {
  const std::string path = source_root() + "/" + file;
  std::stringstream buf;
  buf << std::ifstream(path).rdbuf();
  std::string text = buf.str();
  const std::string old = table_after(file, heading);
  const std::size_t at = text.find(old, text.find("\n" + heading + "\n"));
  ASSERT_NE(at, std::string::npos) << "no table after " << heading << " in " << file;
  text.replace(at, old.size(), table);
  std::ofstream(path) << text;
}

inline void check_docs_table(const std::string& file, const std::string& heading, const std::string& expected) {
  const char* update = std::getenv("ENGRAMSIM_UPDATE_DOCS");
  if (update != nullptr && std::string(update) == "1") rewrite_table(file, heading, expected);
  EXPECT_EQ(table_after(file, heading), expected)
      << file << "'s table after " << heading << " should read (ENGRAMSIM_UPDATE_DOCS=1 ctest writes it):\n"
      << expected;
}

}  // namespace engramsim::test
