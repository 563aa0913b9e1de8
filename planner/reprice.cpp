#include "planner/reprice.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include "planner/point_metrics.hpp"

namespace engramsim::planner {
namespace {

std::optional<std::string> string_at(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

double number_at(const nlohmann::json& j, const char* key, double otherwise) {
  if (!j.is_object()) return otherwise;
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : otherwise;
}

// The context's own price lines: the tier named, the price file when one replaced the catalog, and
// a note saying where the prices and the simulated figures come from.
void reprice_context(ReportContext& c, const std::string& tier, const std::string& price_file) {
  const std::string was = c.price_tier.empty() ? "the run's tier" : c.price_tier;
  c.price_tier = tier;
  for (auto& a : c.assumptions)
    if (a.figure == "price tier") a = {"price tier", tier, "engramsim report --price-tier", "assumed"};
  if (!price_file.empty()) c.assumptions.push_back({"price file", price_file, price_file, "assumed"});
  c.notes.push_back("Re-priced from " + was + " to " + tier +
                    (price_file.empty() ? " catalog prices" : " prices of " + price_file) +
                    " by engramsim report: throughput, latency and power are the simulated figures of the "
                    "original run; only the GPU-hour price and what follows from it (tokens per dollar, $/M "
                    "tokens, the verdict) changed.");
}

}  // namespace

std::optional<std::string> point_node(const ReportPoint& p) {
  if (auto n = string_at(p.assignments, "node")) return n;
  return string_at(p.metrics.extra, "node");
}

ReportPoint reprice_point(ReportPoint p, double gpu_hour_usd) {
  if (p.status != PointStatus::ok) return p;
  const nlohmann::json& extra = p.metrics.extra;
  const double engram = number_at(extra, "engram_capacity_usd_per_gpu_hour", 0.0);
  const double paid = number_at(extra, "paid_gpus_per_used_gpu", 1.0);
  p.metrics.gpu_hour_usd = gpu_hour_usd;
  p.metrics.cost_per_gpu_hour_usd = (gpu_hour_usd + engram) * paid;
  // As make_report_data reads a price: none (NaN) unless positive.
  p.usd_per_gpu_hour = p.metrics.cost_per_gpu_hour_usd > 0.0 ? p.metrics.cost_per_gpu_hour_usd : std::nan("");
  p.tokens_per_dollar = std::isfinite(p.usd_per_gpu_hour) && std::isfinite(p.metrics.throughput_per_gpu)
                            ? tokens_per_dollar(p.metrics.throughput_per_gpu, p.usd_per_gpu_hour)
                            : std::nan("");
  if (p.metrics.extra.is_object() && p.metrics.extra.contains("tokens_per_dollar"))
    p.metrics.extra["tokens_per_dollar"] = p.tokens_per_dollar;
  return p;
}

ReportData reprice(ReportData d, const GpuHourPrice& price_of, const std::string& tier, const std::string& price_file,
                   const std::optional<std::string>& fallback_node) {
  std::map<std::string, double> by_node;
  for (auto& p : d.points) {
    if (p.status != PointStatus::ok) continue;
    const std::optional<std::string> node = point_node(p).has_value() ? point_node(p) : fallback_node;
    if (!node)
      throw std::runtime_error("point " + std::to_string(p.index) + " (" + p.config +
                               ") does not name its node (results written before the node was recorded): "
                               "rerun the sweep to re-price it");
    auto it = by_node.find(*node);
    if (it == by_node.end()) it = by_node.emplace(*node, price_of(*node)).first;
    p = reprice_point(std::move(p), it->second);
  }
  reprice_context(d.context, tier, price_file);
  return d;
}

}  // namespace engramsim::planner
