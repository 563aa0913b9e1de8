#include "models/efficiency.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/data/default-efficiencies/curves.hpp"
#include "models/data/default-efficiencies/kernel_times.hpp"

namespace engramsim {
namespace {

// log2 of a positive normal double without libm, accurate to ~1e-15: the exponent from the bits,
// the mantissa against a 256-entry table of cell midpoints and a four-term series of log2(1 + r),
// |r| < 2^-9. The step model evaluates two curves per op per step; this keeps them cheap. The table
// is immutable and built once.
struct Log2Table {
  std::array<double, 256> inv_mid{};
  std::array<double, 256> log2_mid{};
  Log2Table() {
    for (int i = 0; i < 256; ++i) {
      const double mid = 1.0 + (i + 0.5) / 256.0;
      inv_mid[static_cast<std::size_t>(i)] = 1.0 / mid;
      log2_mid[static_cast<std::size_t>(i)] = std::log2(mid);
    }
  }
};

double fast_log2(double x) {
  static const Log2Table table;
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const int exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << 52) - 1);
  const auto cell = static_cast<std::size_t>(mantissa >> 44);
  const double m = std::bit_cast<double>(mantissa | 0x3ff0000000000000ULL);  // in [1, 2)
  const double r = m * table.inv_mid[cell] - 1.0;
  constexpr double inv_ln2 = 1.4426950408889634;
  const double series = r * (1.0 - r * (0.5 - r * (1.0 / 3.0 - r * 0.25)));
  return exponent + table.log2_mid[cell] + series * inv_ln2;
}

}  // namespace

EfficiencyCurve::EfficiencyCurve(double constant) : EfficiencyCurve({{1.0, constant}}) {}

EfficiencyCurve::EfficiencyCurve(std::vector<std::pair<double, double>> points) : points_(std::move(points)) {
  if (points_.empty()) throw std::invalid_argument("efficiency curve: no points");
  for (std::size_t i = 0; i < points_.size(); ++i) {
    const auto [key, eff] = points_[i];
    if (!(key >= std::numeric_limits<double>::min()) || !std::isfinite(key))
      throw std::invalid_argument("efficiency curve: keys must be positive and finite");
    if (!(eff > 0.0) || eff > 1.0) throw std::invalid_argument("efficiency curve: efficiencies must be in (0, 1]");
    if (i > 0 && !(key > points_[i - 1].first))
      throw std::invalid_argument("efficiency curve: keys must be strictly increasing");
    log2_keys_.push_back(fast_log2(key));
  }
}

double EfficiencyCurve::top() const {
  double best = 0.0;
  for (const auto& [key, e] : points_) best = std::max(best, e);
  return best;
}

double EfficiencyCurve::at(double key) const {
  // Fast paths for constants and clamped ends keep the per-step evaluation cheap.
  if (points_.size() == 1 || !(key > points_.front().first)) return points_.front().second;
  if (key >= points_.back().first) return points_.back().second;
  // Curves hold a handful of points; a linear scan beats a binary search at this size.
  std::size_t hi = 1;
  while (points_[hi].first < key) ++hi;
  const double x = fast_log2(key);
  const double x0 = log2_keys_[hi - 1];
  const double x1 = log2_keys_[hi];
  const double y0 = points_[hi - 1].second;
  const double y1 = points_[hi].second;
  return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

const char* to_string(OpClass c) { return kOpClassNames.name(c); }

EfficiencyCurve& efficiency_curve(Efficiencies& e, std::string_view name) {
  if (name == "host_gather_by_row_bytes") return e.host_gather_by_row_bytes;
  if (name == "host_copy_by_bytes") return e.host_copy_by_bytes;
  if (name == "cpu_gather_by_row_bytes") return e.cpu_gather_by_row_bytes;
  const auto dot = name.find('.');
  for (std::size_t i = 0; i < kOpClassCount && dot != std::string_view::npos; ++i) {
    const auto c = static_cast<OpClass>(i);
    if (name.substr(0, dot) != to_string(c)) continue;
    if (name.substr(dot + 1) == "flops") return e.of(c).flops;
    if (name.substr(dot + 1) == "bandwidth") return e.of(c).bandwidth;
  }
  throw std::invalid_argument("unknown efficiency curve '" + std::string(name) +
                              "' (known: <op class>.flops, <op class>.bandwidth, host_gather_by_row_bytes, "
                              "host_copy_by_bytes, cpu_gather_by_row_bytes)");
}

// The rows of models/data/default-efficiencies/*.csv, embedded at build time (models/CMakeLists.txt).
Efficiencies default_efficiencies() {
  Efficiencies e;
  // A curve is a run of consecutive rows with its name.
  const auto& rows = data::kDefaultCurvePoints;
  for (std::size_t first = 0, end = 0; first < rows.size(); first = end) {
    std::vector<std::pair<double, double>> points;
    for (end = first; end < rows.size() && rows[end].curve == rows[first].curve; ++end)
      points.emplace_back(rows[end].key, rows[end].efficiency);
    efficiency_curve(e, rows[first].curve) = EfficiencyCurve(std::move(points));
  }
  for (const auto& row : data::kDefaultKernelTimes) {
    if (row.name == "kernel_overhead")
      e.kernel_overhead = Time::ns(row.ns);
    else if (row.name == "kernel_min_duration")
      e.kernel_min_duration = Time::ns(row.ns);
    else
      throw std::logic_error("models/data/default-efficiencies/kernel_times.csv: unknown name " +
                             std::string(row.name));
  }
  e.source = "defaults";
  return e;
}

}  // namespace engramsim
