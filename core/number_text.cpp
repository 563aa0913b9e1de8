#include "core/number_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace engramsim {

std::string format_number(double v, int decimals, bool json) {
  if (!std::isfinite(v)) return json ? "null" : "";
  if (v == 0.0) v = 0.0;  // no "-0.000000"
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  if (res.ec != std::errc()) return json ? "null" : "";
  std::string out(buf, res.ptr);
  if (out.find_first_not_of("-0.") == std::string::npos) out = decimals > 0 ? "0." + std::string(decimals, '0') : "0";
  return out;
}

std::string printf_number(double v, const char* spec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

std::string fixed_digits(double v, int digits) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string round_trip_number(double v) { return printf_number(v, "%.17g"); }

std::string with_commas(std::int64_t v) {
  const std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out = v < 0 ? "-" : "";
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace engramsim
