#include "core/unit_parse.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

namespace engramsim {
namespace {

struct NumberAndUnit {
  double number;
  std::string_view unit;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "2.25PFLOPS" into 2.25 and "PFLOPS". Throws on a missing number, a missing unit, or a
// negative / non-finite number. `example` is quoted in messages ("a size like \"264B\"").
NumberAndUnit split(std::string_view text, const char* example) {
  const std::string expected = std::string("expected ") + example;
  std::string_view s = trim(text);
  if (s.empty()) throw UnitParseError(expected + ", got an empty value");
  std::size_t i = 0;
  if (s[i] == '+' || s[i] == '-') ++i;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E') && i + 1 < s.size() &&
      (std::isdigit(static_cast<unsigned char>(s[i + 1])) || s[i + 1] == '-' || s[i + 1] == '+')) {
    ++i;
    if (s[i] == '-' || s[i] == '+') ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  }
  const std::string num_text(s.substr(0, i));
  std::string_view unit = trim(s.substr(i));
  if (num_text.empty() || num_text == "+" || num_text == "-") {
    throw UnitParseError(expected + ", got \"" + std::string(text) + "\"");
  }
  double v = 0.0;
  try {
    std::size_t used = 0;
    v = std::stod(num_text, &used);
    if (used != num_text.size()) throw UnitParseError("");
  } catch (const std::exception&) {
    throw UnitParseError(expected + ", got \"" + std::string(text) + "\"");
  }
  if (!std::isfinite(v)) throw UnitParseError(expected + ", got a non-finite value");
  if (v < 0) throw UnitParseError(expected + ", got a negative value \"" + std::string(text) + "\"");
  if (unit.empty()) {
    throw UnitParseError(expected + ", got a bare number \"" + std::string(text) + "\" (a unit is required)");
  }
  return {v, unit};
}

// Parses a multiplier prefix at the front of `unit` and returns (factor, rest). `binary` allows
// IEC prefixes. Accepts an empty prefix (factor 1).
std::pair<double, std::string_view> prefix(std::string_view unit, bool binary) {
  if (binary && unit.size() >= 2 && unit[1] == 'i') {
    switch (unit[0]) {
      case 'K':
        return {1024.0, unit.substr(2)};
      case 'M':
        return {1024.0 * 1024.0, unit.substr(2)};
      case 'G':
        return {1024.0 * 1024.0 * 1024.0, unit.substr(2)};
      case 'T':
        return {1024.0 * 1024.0 * 1024.0 * 1024.0, unit.substr(2)};
      case 'P':
        return {1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0, unit.substr(2)};
      default:
        break;
    }
  }
  if (unit.size() >= 2) {
    switch (unit[0]) {
      case 'k':
      case 'K':
        return {1e3, unit.substr(1)};
      case 'M':
        return {1e6, unit.substr(1)};
      case 'G':
        return {1e9, unit.substr(1)};
      case 'T':
        return {1e12, unit.substr(1)};
      case 'P':
        return {1e15, unit.substr(1)};
      case 'E':
        return {1e18, unit.substr(1)};
      default:
        break;
    }
  }
  return {1.0, unit};
}

[[noreturn]] void unknown_unit(std::string_view text, std::string_view unit, const char* example) {
  throw UnitParseError(std::string("expected ") + example + ", got unknown unit \"" + std::string(unit) + "\" in \"" +
                       std::string(text) + "\"");
}

double size_factor(std::string_view text, std::string_view unit, const char* example) {
  auto [f, rest] = prefix(unit, true);
  if (rest == "B") return f;
  unknown_unit(text, unit, example);
}

}  // namespace

Bytes parse_bytes(std::string_view text) {
  constexpr const char* ex = "a size like \"264B\" or \"288GiB\"";
  auto [v, unit] = split(text, ex);
  return Bytes(v * size_factor(text, unit, ex));
}

Bandwidth parse_bandwidth(std::string_view text) {
  constexpr const char* ex = "a bandwidth like \"900GB/s\"";
  auto [v, unit] = split(text, ex);
  const auto slash = unit.find("/s");
  if (slash == std::string_view::npos || slash + 2 != unit.size()) unknown_unit(text, unit, ex);
  return Bandwidth(v * size_factor(text, unit.substr(0, slash), ex));
}

FlopRate parse_flop_rate(std::string_view text) {
  constexpr const char* ex = "a FLOP rate like \"2.25PFLOPS\"";
  auto [v, unit] = split(text, ex);
  auto [f, rest] = prefix(unit, false);
  if (rest != "FLOPS" && rest != "FLOP/s") unknown_unit(text, unit, ex);
  return FlopRate(v * f);
}

Time parse_time(std::string_view text) {
  constexpr const char* ex = "a time like \"70us\"";
  auto [v, unit] = split(text, ex);
  double seconds_per_unit = 0.0;
  if (unit == "ns")
    seconds_per_unit = 1e-9;
  else if (unit == "us")
    seconds_per_unit = 1e-6;
  else if (unit == "ms")
    seconds_per_unit = 1e-3;
  else if (unit == "s")
    seconds_per_unit = 1.0;
  else if (unit == "min")
    seconds_per_unit = 60.0;
  else if (unit == "h")
    seconds_per_unit = 3600.0;
  else
    unknown_unit(text, unit, ex);
  const double s = v * seconds_per_unit;
  if (!(s < 9.2e9 && s > -9.2e9))
    throw UnitParseError(std::string("expected ") + ex + ", got a time too large to represent");
  return Time::from_seconds(s);
}

MoneyRate parse_money_rate(std::string_view text) {
  constexpr const char* ex = "a price like \"1.41USD/h\"";
  auto [v, unit] = split(text, ex);
  if (unit == "USD/h" || unit == "USD/hr") return MoneyRate(v);
  unknown_unit(text, unit, ex);
}

MoneyPerByte parse_money_per_byte(std::string_view text) {
  constexpr const char* ex = "a capacity price like \"5USD/GB\"";
  auto [v, unit] = split(text, ex);
  if (unit.substr(0, 4) != "USD/") unknown_unit(text, unit, ex);
  return MoneyPerByte(v / size_factor(text, unit.substr(4), ex));
}

}  // namespace engramsim
