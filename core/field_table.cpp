#include "core/field_table.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace engramsim {

std::string flag_name(const std::string& key) {
  std::string out = "--" + key;
  for (char& c : out)
    if (c == '_') c = '-';
  return out;
}

std::string number_words(double v) {
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

std::string time_words(Time t) {
  const double ns = static_cast<double>(t.count_ns());
  const double a = std::fabs(ns);
  if (a == 0.0) return "0";
  if (a >= 1e9) return number_words(ns * 1e-9) + "s";
  if (a >= 1e6) return number_words(ns * 1e-6) + "ms";
  if (a >= 1e3) return number_words(ns * 1e-3) + "us";
  return number_words(ns) + "ns";
}

std::string integer_type_words(std::int64_t lo, std::int64_t hi) {
  const bool no_lo = lo == std::numeric_limits<std::int64_t>::min();
  const bool no_hi = hi >= std::numeric_limits<std::int32_t>::max();
  if (no_lo && no_hi) return "integer";
  if (no_hi) return "integer >= " + std::to_string(lo);
  if (no_lo) return "integer <= " + std::to_string(hi);
  return "integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

std::string number_type_words(double lo, double hi, bool lo_open) {
  const bool no_lo = !(lo > -1e300), no_hi = !(hi < 1e300);
  if (no_lo && no_hi) return "number";
  if (no_hi) return std::string("number ") + (lo_open ? "> " : ">= ") + number_words(lo);
  if (no_lo) return "number <= " + number_words(hi);
  return std::string("number in ") + (lo_open ? "(" : "[") + number_words(lo) + ", " + number_words(hi) + "]";
}

std::string markdown_key_table(const std::vector<FieldDoc>& rows) {
  std::string out = "| key | type | default | meaning |\n|---|---|---|---|\n";
  for (const FieldDoc& r : rows) out += "| `" + r.key + "` | " + r.type + " | " + r.dflt + " | " + r.meaning + " |\n";
  return out;
}

}  // namespace engramsim
