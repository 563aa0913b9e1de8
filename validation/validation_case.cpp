#include "validation/validation_case.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/config_node.hpp"
#include "core/paths.hpp"

namespace engramsim::validation {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

const char* to_string(CaseLevel l) { return kCaseLevelNames.name(l); }

const char* to_string(MetricKind k) { return kMetricKindNames.name(k); }

const char* to_string(Pool p) { return kPoolNames.name(p); }
const char* to_string(Span s) { return kSpanNames.name(s); }

Tolerance kind_tolerance(MetricKind k) {
  switch (k) {
    case MetricKind::step:
      return {ToleranceType::rel, 0.10, "step-level cases: +/-10 %"};
    case MetricKind::serving_throughput:
      return {ToleranceType::rel, 0.20, "serving throughput: +/-20 %"};
    case MetricKind::latency:
      return {ToleranceType::rel, 0.15, "serving latency: +/-15 %"};
    case MetricKind::engram_penalty:
      return {ToleranceType::abs_pp, 1.5, "Engram offload penalty: +/-1.5 pp"};
    case MetricKind::ratio:
      return {ToleranceType::abs, 0.05, "ratio of two runs: +/-0.05"};
    case MetricKind::footprint:
      return {ToleranceType::rel, 0.20, "HBM footprint: +/-20 %"};
    case MetricKind::traffic:
      return {ToleranceType::rel, 0.15, "replayed traffic: +/-15 %"};
  }
  return {};
}

double mape_target(MetricKind k) {
  if (k == MetricKind::step) return 0.10;
  if (k == MetricKind::serving_throughput || k == MetricKind::latency) return 0.15;
  return std::nan("");
}

bool Tolerance::holds(double predicted, double published) const {
  if (!std::isfinite(predicted)) return false;
  if (type == ToleranceType::range) return lo <= predicted && predicted <= hi;
  if (type == ToleranceType::rel) return std::abs(predicted - published) <= value * std::abs(published);
  return std::abs(predicted - published) <= value;
}

std::string Tolerance::describe() const {
  char buf[64];
  if (type == ToleranceType::rel)
    std::snprintf(buf, sizeof buf, "±%g%%", value * 100.0);
  else if (type == ToleranceType::abs_pp)
    std::snprintf(buf, sizeof buf, "±%g pp", value);
  else if (type == ToleranceType::range)
    std::snprintf(buf, sizeof buf, "[%g, %g]", lo, hi);
  else
    std::snprintf(buf, sizeof buf, "±%g", value);
  return buf;
}

bool PrecisionOverrides::any() const {
  return attention || dense_ffn || experts || embedding || lm_head || kv_cache || attention_scale_bytes_per_element ||
         dense_ffn_scale_bytes_per_element || experts_scale_bytes_per_element;
}

void PrecisionOverrides::apply(ModelCard& card) const {
  if (attention) card.precisions.attention = *attention;
  if (dense_ffn) card.precisions.dense_ffn = *dense_ffn;
  if (experts) card.precisions.experts = *experts;
  if (embedding) card.precisions.embedding = *embedding;
  if (lm_head) card.precisions.lm_head = *lm_head;
  if (kv_cache) card.kv.precision = *kv_cache;
  if (attention_scale_bytes_per_element)
    card.precisions.attention_scale_bytes_per_element = *attention_scale_bytes_per_element;
  if (dense_ffn_scale_bytes_per_element)
    card.precisions.dense_ffn_scale_bytes_per_element = *dense_ffn_scale_bytes_per_element;
  if (experts_scale_bytes_per_element)
    card.precisions.experts_scale_bytes_per_element = *experts_scale_bytes_per_element;
}

std::string PrecisionOverrides::describe() const {
  std::string s;
  const auto add = [&](const char* name, const std::optional<Precision>& p) {
    if (!p) return;
    if (!s.empty()) s += ", ";
    s += std::string(name) + " " + to_string(*p);
  };
  add("attention", attention);
  add("dense_ffn", dense_ffn);
  add("experts", experts);
  add("embedding", embedding);
  add("lm_head", lm_head);
  add("kv", kv_cache);
  return s;
}

const ValidationCase* ValidationSet::find(const std::string& id) const {
  for (const auto& c : cases)
    if (c.id == id) return &c;
  return nullptr;
}

std::optional<MetricKind> metric_kind(const std::string& m, CaseLevel level) {
  if (level == CaseLevel::footprint) {
    if (m == "kv_gib_per_gpu" || m == "weights_gib_per_gpu" || m == "fits" || m == "kv_tokens_engine_logged")
      return MetricKind::footprint;
    return std::nullopt;
  }
  if (level == CaseLevel::step) {
    static const std::set<std::string> step = {"decode_step_time_s", "prefill_step_time_s", "layer_linear_ops_time_s",
                                               "input_tput_per_node", "output_tput_per_node"};
    if (step.count(m)) return MetricKind::step;
    return std::nullopt;
  }
  static const std::set<std::string> tput = {"output_tput_per_gpu", "input_tput_per_gpu",   "total_tput_per_gpu",
                                             "input_tput_per_node", "output_tput_per_node", "total_tokens_per_dollar"};
  if (tput.count(m)) return MetricKind::serving_throughput;
  if (m == "mean_ttft_ms" || m == "mean_tpot_ms") return MetricKind::latency;
  if (m == "throughput_penalty_pct") return MetricKind::engram_penalty;
  if (m == "tput_ratio_hbm_over_dram" || m == "tput_ratio_at_interactivity" || m == "tokens_per_dollar_ratio" ||
      m == "frontier_ratio_max" || m == "tput_ratio_over_baseline" || m == "p50_tpot_ratio_over_baseline")
    return MetricKind::ratio;
  if (m == "mean_input_per_request" || m == "prefix_hit_rate") return MetricKind::traffic;
  return std::nullopt;
}

bool has_baseline(const ServingReproduction& r) { return !r.baseline.empty() || !r.baseline_set.empty(); }

ServingReproduction baseline_run(const ServingReproduction& r) {
  ServingReproduction b = r;
  b.set.insert(b.set.end(), r.baseline_set.begin(), r.baseline_set.end());
  b.baseline_set.clear();
  if (!r.baseline.empty()) b.variant = r.baseline;
  b.baseline.clear();
  return b;
}

std::string metric_unit(const std::string& m) {
  if (ends_with(m, "_time_s")) return "s";
  if (ends_with(m, "_ms")) return "ms";
  if (ends_with(m, "_per_node")) return "tok/s/node";
  if (m.find("tput_per_gpu") != std::string::npos) return "tok/s/GPU";
  if (ends_with(m, "_pct")) return "%";
  if (m == "total_tokens_per_dollar") return "tok/$";
  if (ends_with(m, "_gib_per_gpu")) return "GiB";
  if (m == "fits") return "1 = fits";
  if (m == "mean_input_per_request") return "tok";
  if (m == "prefix_hit_rate") return "fraction";
  return "x";
}

std::string default_validation_set_path() {
  return (fs::path(data_root()) / "scenarios" / "validation" / "cases.yaml").string();
}

}  // namespace engramsim::validation
