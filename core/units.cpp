#include "core/units.hpp"

#include <cstdio>

namespace engramsim {
namespace {
std::string fmt(double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, unit);
  return buf;
}
}  // namespace

std::string to_string(Time t) {
  const double ns = static_cast<double>(t.count_ns());
  const double a = ns < 0 ? -ns : ns;
  if (a >= 1e9) return fmt(ns * 1e-9, "s");
  if (a >= 1e6) return fmt(ns * 1e-6, "ms");
  if (a >= 1e3) return fmt(ns * 1e-3, "us");
  return fmt(ns, "ns");
}

std::string to_string(Bytes b) {
  const double v = b.value();
  const double a = v < 0 ? -v : v;
  constexpr double k = 1024.0;
  if (a >= k * k * k * k) return fmt(v / (k * k * k * k), "TiB");
  if (a >= k * k * k) return fmt(v / (k * k * k), "GiB");
  if (a >= k * k) return fmt(v / (k * k), "MiB");
  if (a >= k) return fmt(v / k, "KiB");
  return fmt(v, "B");
}

std::string to_string(Bandwidth bw) {
  const double v = bw.value();
  if (v >= 1e12) return fmt(v * 1e-12, "TB/s");
  if (v >= 1e9) return fmt(v * 1e-9, "GB/s");
  if (v >= 1e6) return fmt(v * 1e-6, "MB/s");
  return fmt(v, "B/s");
}

std::string to_string(FlopRate r) {
  const double v = r.value();
  if (v >= 1e15) return fmt(v * 1e-15, "PFLOPS");
  if (v >= 1e12) return fmt(v * 1e-12, "TFLOPS");
  return fmt(v * 1e-9, "GFLOPS");
}

std::string to_string(MoneyRate r) { return fmt(r.value(), "USD/h"); }

}  // namespace engramsim
