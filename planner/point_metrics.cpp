#include "planner/point_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace engramsim::planner {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// JSON has no NaN/inf: store them as null so a line always parses, and read null back as NaN.
nlohmann::json num(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

double read_num(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return kNaN;
  return it->get<double>();
}

nlohmann::json pct(const Percentiles& p) { return {{"p50", num(p.p50)}, {"p90", num(p.p90)}, {"p99", num(p.p99)}}; }

Percentiles read_pct(const nlohmann::json& j, const char* key) {
  Percentiles p{kNaN, kNaN, kNaN};
  auto it = j.find(key);
  if (it == j.end() || !it->is_object()) return p;
  p.p50 = read_num(*it, "p50");
  p.p90 = read_num(*it, "p90");
  p.p99 = read_num(*it, "p99");
  return p;
}

nlohmann::json nums(const std::vector<double>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (double x : v) a.push_back(num(x));
  return a;
}

std::vector<double> read_nums(const nlohmann::json& j, const char* key) {
  std::vector<double> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& x : *it)
    if (x.is_number()) out.push_back(x.get<double>());
  return out;
}

// The plain fields of a results line, written and read through one list: a key added here is
// both written and read back. An absent or null number reads back as NaN.
struct NumberField {
  const char* key;
  double PointMetrics::*member;
};
constexpr NumberField kNumberFields[] = {
    {"concurrency", &PointMetrics::concurrency},
    {"request_rate", &PointMetrics::request_rate},
    {"throughput_per_gpu", &PointMetrics::throughput_per_gpu},
    {"output_throughput_per_gpu", &PointMetrics::output_throughput_per_gpu},
    {"interactivity", &PointMetrics::interactivity},
    {"gpu_hour_usd", &PointMetrics::gpu_hour_usd},
    {"cost_per_gpu_hour_usd", &PointMetrics::cost_per_gpu_hour_usd},
    {"power_kw_per_gpu", &PointMetrics::power_kw_per_gpu},
    {"engram_stall_share", &PointMetrics::engram_stall_share},
};
struct PercentilesField {
  const char* key;
  Percentiles PointMetrics::*member;
};
constexpr PercentilesField kPercentilesFields[] = {
    {"ttft_ms", &PointMetrics::ttft_ms},
    {"tpot_ms", &PointMetrics::tpot_ms},
    {"e2e_ms", &PointMetrics::e2e_ms},
};

}  // namespace

nlohmann::json to_json(const PointMetrics& m) {
  nlohmann::json j = nlohmann::json::object();
  j["gpus"] = m.gpus;
  for (const NumberField& f : kNumberFields) j[f.key] = num(m.*f.member);
  for (const PercentilesField& f : kPercentilesFields) j[f.key] = pct(m.*f.member);
  const CostMetrics c = cost_metrics_of(m);
  j["usd_per_m_total_tokens"] = num(c.usd_per_m_total_tokens);
  j["usd_per_m_input_tokens"] = num(c.usd_per_m_input_tokens);
  j["usd_per_m_output_tokens"] = num(c.usd_per_m_output_tokens);
  j["m_tokens_per_dollar"] = num(c.m_tokens_per_usd);
  j["m_output_tokens_per_dollar"] = num(c.m_output_tokens_per_usd);
  j["tokens_per_s_per_mw"] = num(c.tokens_per_s_per_mw);
  j["joules_per_token"] = num(c.joules_per_token);
  j["engram_tier"] = m.engram_tier;
  nlohmann::json fp = nlohmann::json::array();
  for (const auto& t : m.hbm_footprint) fp.push_back({{"term", t.term}, {"gib", num(t.gib)}});
  j["hbm_footprint"] = fp;
  j["samples"] = {{"ttft_ms", nums(m.ttft_samples_ms)}, {"tpot_ms", nums(m.tpot_samples_ms)}};
  if (!m.extra.is_null() && !m.extra.empty()) j["extra"] = m.extra;
  return j;
}

PointMetrics metrics_from_json(const nlohmann::json& j) {
  PointMetrics m;
  for (const NumberField& f : kNumberFields) m.*f.member = read_num(j, f.key);  // NaN without an object
  for (const PercentilesField& f : kPercentilesFields) m.*f.member = read_pct(j, f.key);
  if (!j.is_object()) return m;
  if (auto it = j.find("gpus"); it != j.end() && it->is_number_integer()) m.gpus = it->get<int>();
  if (auto it = j.find("engram_tier"); it != j.end() && it->is_string()) m.engram_tier = it->get<std::string>();
  if (auto it = j.find("hbm_footprint"); it != j.end() && it->is_array()) {
    for (const auto& t : *it) {
      if (!t.is_object() || !t.contains("term") || !t["term"].is_string()) continue;
      m.hbm_footprint.push_back({t["term"].get<std::string>(), read_num(t, "gib")});
    }
  }
  if (auto it = j.find("samples"); it != j.end() && it->is_object()) {
    m.ttft_samples_ms = read_nums(*it, "ttft_ms");
    m.tpot_samples_ms = read_nums(*it, "tpot_ms");
  }
  if (auto it = j.find("extra"); it != j.end()) m.extra = *it;
  return m;
}

CostMetrics cost_metrics_of(const PointMetrics& m) {
  const double allin = m.cost_per_gpu_hour_usd > 0.0 ? m.cost_per_gpu_hour_usd : m.gpu_hour_usd;
  const double total = m.throughput_per_gpu;
  const double output = m.output_throughput_per_gpu;
  const double power = std::isfinite(m.power_kw_per_gpu) ? m.power_kw_per_gpu : 0.0;
  return cost_metrics({total, total - output, output, MoneyRate(std::isfinite(allin) ? allin : 0.0), power});
}

double tokens_per_dollar(double tokens_per_s_per_gpu, double usd_per_gpu_hour) {
  if (!(usd_per_gpu_hour > 0.0)) return 0.0;
  return tokens_per_s_per_gpu * 3600.0 / usd_per_gpu_hour;
}

double usd_per_million_tokens(double tokens_per_s_per_gpu, double usd_per_gpu_hour) {
  if (!(tokens_per_s_per_gpu > 0.0)) return std::numeric_limits<double>::infinity();
  return usd_per_gpu_hour / (tokens_per_s_per_gpu * 3600.0 / 1e6);
}

std::vector<double> downsample_quantiles(std::vector<double> samples, std::size_t n) {
  std::sort(samples.begin(), samples.end());
  if (samples.size() <= n || n < 2) return samples;
  std::vector<double> out(n);
  const double last = static_cast<double>(samples.size() - 1);
  for (std::size_t i = 0; i < n; ++i) {
    const double h = last * static_cast<double>(i) / static_cast<double>(n - 1);
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = std::min(lo + 1, samples.size() - 1);
    out[i] = samples[lo] + (h - static_cast<double>(lo)) * (samples[hi] - samples[lo]);
  }
  return out;
}

}  // namespace engramsim::planner
