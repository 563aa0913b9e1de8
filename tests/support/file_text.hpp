// A file's bytes as a string ("" when it cannot be opened), read through the stream buffer: the
// istreambuf_iterator form trips GCC 12's -Wnull-dereference inside libstdc++.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace engramsim::test {

inline std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  if (in) out << in.rdbuf();
  return out.str();
}

}  // namespace engramsim::test
