#include "planner/display_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace engramsim::planner {

std::string gpu_display_name(const std::string& preset) {
  std::string s = preset;
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* prefix : {"hgx-", "dgx-"})
    if (s.rfind(prefix, 0) == 0) s = s.substr(std::string(prefix).size());
  // A trailing GPU count ("mi355x-8") is the node's size, not the GPU's name.
  if (const auto dash = s.rfind('-'); dash != std::string::npos && dash + 1 < s.size() &&
                                      std::all_of(s.begin() + static_cast<std::ptrdiff_t>(dash) + 1, s.end(),
                                                  [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    s = s.substr(0, dash);
  for (char& c : s) c = c == '-' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s.empty() ? preset : s;
}

std::string plain_number(double v, int significant) {
  if (!std::isfinite(v)) return "";
  if (v == 0.0) return "0";
  const int mag = static_cast<int>(std::floor(std::log10(std::abs(v))));
  const int decimals = std::clamp(significant - 1 - mag, 0, 12);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

}  // namespace engramsim::planner
