// Audit of the catalog files (hardware/gpus, hardware/nodes, hardware/power, models/cards, models/engines): every line
// that holds a number must end with a comment carrying a source tag, [S] (a source states it),
// [D] (derived by arithmetic) or [E] (an estimate, with its reason). Combined tags such as [D/E] count.
//
// The check is textual on purpose: it sees the file as a reviewer does, comments included, which
// a YAML parser would throw away. "A number" is a scalar that is a number with an optional
// unit glued to it ("288GiB", "2.34USD/h", 0.5, 2500000), on its own or inside a flow list
// ([[0, 1], [2, 3]]). Strings with spaces ("8x MI300X platform") are prose, not numbers, and so
// are names that merely contain digits (b300). Block scalars (| and >) are prose too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/test_paths.hpp"

namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::string unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
    return s.substr(1, s.size() - 2);
  return s;
}

// Splits a line into code and comment: a '#' starts a comment at line start or after whitespace,
// outside quotes (YAML's rule).
void split_comment(const std::string& line, std::string& code, std::string& comment) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '#' && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      code = line.substr(0, i);
      comment = line.substr(i);
      return;
    }
  }
  code = line;
  comment.clear();
}

bool is_number_with_unit(const std::string& token) {
  static const std::regex re(R"(^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[A-Za-z/%]*$)");
  return std::regex_match(unquote(trim(token)), re);
}

bool value_is_numeric(const std::string& value) {
  const std::string v = trim(value);
  if (v.empty()) return false;
  if (v.front() == '[' || v.front() == '{') {
    std::string token;
    for (char c : v) {
      if (c == '[' || c == ']' || c == '{' || c == '}' || c == ',' || c == ':') {
        if (is_number_with_unit(token)) return true;
        token.clear();
      } else {
        token += c;
      }
    }
    return is_number_with_unit(token);
  }
  return is_number_with_unit(v);
}

bool has_source_tag(const std::string& comment) {
  static const std::regex tag(R"(\[(S|D|E)([/,][^\]]*)?\])");
  return std::regex_search(comment, tag);
}

int indent_of(const std::string& line) {
  const auto i = line.find_first_not_of(' ');
  return i == std::string::npos ? -1 : static_cast<int>(i);
}

// Returns "file:line: text" for every numeric line without a tagged comment.
std::vector<std::string> unsourced_numeric_lines(const std::string& text, const std::string& file) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  int block_indent = -1;  // >= 0 while inside a block scalar owned by a key at this indent
  while (std::getline(in, line)) {
    ++number;
    const std::string stripped = trim(line);
    if (block_indent >= 0) {
      if (stripped.empty() || indent_of(line) > block_indent) continue;
      block_indent = -1;
    }
    if (stripped.empty() || stripped.front() == '#' || stripped == "---" || stripped == "...") continue;
    std::string code, comment;
    split_comment(line, code, comment);
    std::string body = trim(code);
    while (body.size() >= 2 && body[0] == '-' && body[1] == ' ') body = trim(body.substr(2));
    if (body == "-") continue;
    std::string value = body;
    static const std::regex key_re(R"(^("[^"]*"|'[^']*'|[^\s"'\[\{][^:]*?):(\s+|$)(.*)$)");
    std::smatch m;
    if (std::regex_match(body, m, key_re)) value = m[3].str();
    const std::string v = trim(value);
    if (!v.empty() && (v[0] == '|' || v[0] == '>')) {
      block_indent = indent_of(line);
      continue;
    }
    if (value_is_numeric(value) && !has_source_tag(comment)) {
      out.push_back(file + ":" + std::to_string(number) + ": " + line);
    }
  }
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(CatalogSources, CheckerFlagsUntaggedNumbersOnly) {
  const std::string text =
      "# header comment with 288 GB is fine\n"
      "name: b300\n"                                 // a name with digits is not a number
      "description: \"8x MI300X platform, 2 TB\"\n"  // prose
      "hbm: \"288GiB\"  # [S] facts sheet\n"
      "bw: \"8TB/s\"\n"                     // 5: untagged
      "power_kw: 2.17  # from somewhere\n"  // 6: comment without a tag
      "groups: [[0, 1], [2, 3]]   # [E] guess\n"
      "drives: [[0, 1]]\n"  // 8: untagged list
      "layers:\n"
      "  - 14\n"  // 10: untagged list item
      "  - 2   # [D/E] mixed tag\n"
      "url: \"http://x/#frag\"  # [S] quoted hash\n"
      "notes: |\n"
      "  measured 42 GB/s\n"    // block scalar: prose
      "mixed: \"12 layers\"\n"  // prose
      "sci: 1e6  # [S, fitted]\n"
      "neg: -3\n";  // 17: untagged
  const auto bad = unsourced_numeric_lines(text, "t.yaml");
  ASSERT_EQ(bad.size(), 5u) << ::testing::PrintToString(bad);
  EXPECT_EQ(bad[0].rfind("t.yaml:5:", 0), 0u);
  EXPECT_EQ(bad[1].rfind("t.yaml:6:", 0), 0u);
  EXPECT_EQ(bad[2].rfind("t.yaml:8:", 0), 0u);
  EXPECT_EQ(bad[3].rfind("t.yaml:10:", 0), 0u);
  EXPECT_EQ(bad[4].rfind("t.yaml:17:", 0), 0u);
}

TEST(CatalogSources, EveryNumberInTheCatalogCarriesATaggedSource) {
  const fs::path root(engramsim::test::source_root());
  std::size_t files = 0;
  std::vector<std::string> bad;
  for (const char* folder : {"hardware/gpus", "hardware/nodes", "hardware/power", "models/cards", "models/engines"}) {
    const fs::path dir = root / folder;
    if (!fs::is_directory(dir)) continue;  // a catalog another part has not written yet
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
      ++files;
      const auto found = unsourced_numeric_lines(read_file(entry.path()), entry.path().string());
      bad.insert(bad.end(), found.begin(), found.end());
    }
  }
  EXPECT_GE(files, 24u) << "the hardware catalog alone has 10 GPUs and 10 nodes; the engines 4 presets";
  std::string report;
  for (const auto& b : bad) report += b + "\n";
  EXPECT_TRUE(bad.empty()) << "lines with numbers but no [S]/[D]/[E] source comment:\n" << report;
}

TEST(CatalogSources, HardwareAndEngineFilesHaveADescription) {
  const fs::path root(engramsim::test::source_root());
  for (const char* folder : {"hardware/gpus", "hardware/nodes", "models/engines"}) {
    for (const auto& entry : fs::directory_iterator(root / folder)) {
      if (entry.path().extension() != ".yaml") continue;
      const std::string text = read_file(entry.path());
      EXPECT_TRUE(text.find("\ndescription:") != std::string::npos || text.rfind("description:", 0) == 0)
          << entry.path();
    }
  }
}
