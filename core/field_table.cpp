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
  if (a >= 1e9) return number_words(ns / 1e9) + "s";
  if (a >= 1e6) return number_words(ns / 1e6) + "ms";
  if (a >= 1e3) return number_words(ns / 1e3) + "us";
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

namespace {

std::string g6(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string flow(const YamlValue& v) {
  if (v.kind == YamlValue::Kind::scalar) return v.text;
  const bool map = v.kind == YamlValue::Kind::map;
  std::string out = map ? "{" : "[";
  for (std::size_t i = 0; i < v.items.size(); ++i) {
    if (i > 0) out += ", ";
    if (map) out += v.keys[i] + ": ";
    out += flow(v.items[i]);
  }
  return out + (map ? "}" : "]");
}

// The keys of `map` at `indent`; its maps as blocks too when `blocks`, else in flow style.
void block(const YamlValue& map, std::size_t indent, bool blocks, std::string& out) {
  const std::string pad(indent, ' ');
  for (std::size_t i = 0; i < map.items.size(); ++i) {
    const YamlValue& v = map.items[i];
    if (blocks && v.kind == YamlValue::Kind::map && !v.items.empty()) {
      out += pad + map.keys[i] + ":\n";
      block(v, indent + 2, false, out);
    } else if (v.kind == YamlValue::Kind::list && !v.items.empty()) {
      out += pad + map.keys[i] + ":\n";
      for (const YamlValue& e : v.items) out += pad + "  - " + flow(e) + "\n";
    } else {
      out += pad + map.keys[i] + ": " + flow(v) + "\n";
    }
  }
}

}  // namespace

std::string yaml_text(const YamlValue& map) {
  std::string out;
  block(map, 0, true, out);
  return out;
}

std::string yaml_number(double v) { return g6(v); }

std::string yaml_quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string yaml_quantity(Bytes b) {
  const double v = b.value();
  const double r = std::round(v);
  if (r == v && v >= 1.0 && v < 9.0e15) {
    const auto i = static_cast<long long>(r);
    constexpr long long k = 1024;
    if (i % (k * k * k) == 0) return std::to_string(i / (k * k * k)) + "GiB";
    if (i % (k * k) == 0) return std::to_string(i / (k * k)) + "MiB";
    if (i % k == 0) return std::to_string(i / k) + "KiB";
    return std::to_string(i) + "B";
  }
  return g6(v) + "B";
}

std::string yaml_quantity(Time t) {
  const double ns = static_cast<double>(t.count_ns());
  if (ns < 1e3) return std::to_string(t.count_ns()) + "ns";
  if (ns < 1e6) return g6(ns * 1e-3) + "us";
  if (ns < 1e9) return g6(ns * 1e-6) + "ms";
  return g6(ns * 1e-9) + "s";
}

std::string yaml_quantity(Bandwidth b) {
  const double v = b.value();
  if (v >= 1e12) return g6(v * 1e-12) + "TB/s";
  if (v >= 1e9) return g6(v * 1e-9) + "GB/s";
  if (v >= 1e6) return g6(v * 1e-6) + "MB/s";
  return g6(v) + "B/s";
}

std::string yaml_quantity(FlopRate r) {
  const double v = r.value();
  if (v >= 1e12) return g6(v * 1e-12) + "TFLOPS";
  return g6(v * 1e-9) + "GFLOPS";
}

const char* quantity_words(Bytes) { return "size"; }
const char* quantity_words(Time) { return "time"; }
const char* quantity_words(Bandwidth) { return "bandwidth"; }
const char* quantity_words(FlopRate) { return "FLOP rate"; }

}  // namespace engramsim
