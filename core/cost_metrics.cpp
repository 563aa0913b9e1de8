#include "core/cost_metrics.hpp"

#include <stdexcept>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace engramsim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// num / den, NaN unless both are finite and den is positive.
double per(double num, double den) {
  if (!std::isfinite(num) || !std::isfinite(den) || !(den > 0.0)) return kNaN;
  return num / den;
}

// Three significant digits in fixed point without trailing zeros: 0.00431, 0.43, 4.31, 43.1, 431, 4310.
std::string fixed3(double v) {
  if (!std::isfinite(v)) return "n/a";
  if (v == 0.0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  const int decimals = std::clamp(2 - magnitude, 0, 9);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string out = buf;
  if (out.find('.') != std::string::npos) {
    out.erase(out.find_last_not_of('0') + 1);
    if (out.back() == '.') out.pop_back();
  }
  return out;
}

std::string with_unit(const std::string& prefix, double v, const char* unit) {
  if (!std::isfinite(v)) return "n/a";
  return prefix + fixed3(v) + unit;
}

}  // namespace

CostMetrics cost_metrics(const CostInputs& in) {
  const double usd_h = in.usd_per_gpu_hour.value();
  const double usd_priced = usd_h > 0.0 ? usd_h : kNaN;
  const auto m_tokens_per_hour = [](double tok_s) { return tok_s * 3600.0 / 1e6; };
  CostMetrics m;
  m.usd_per_m_total_tokens = per(usd_priced, m_tokens_per_hour(in.total_tokens_per_s_per_gpu));
  m.usd_per_m_input_tokens = per(usd_priced, m_tokens_per_hour(in.input_tokens_per_s_per_gpu));
  m.usd_per_m_output_tokens = per(usd_priced, m_tokens_per_hour(in.output_tokens_per_s_per_gpu));
  m.m_tokens_per_usd = per(m_tokens_per_hour(in.total_tokens_per_s_per_gpu), usd_priced);
  m.m_output_tokens_per_usd = per(m_tokens_per_hour(in.output_tokens_per_s_per_gpu), usd_priced);
  const double kw = in.power_kw_per_gpu > 0.0 ? in.power_kw_per_gpu : kNaN;  // no power figure: unknown
  m.tokens_per_s_per_mw = per(in.total_tokens_per_s_per_gpu, kw / 1000.0);
  m.joules_per_token = per(kw * 1000.0, in.total_tokens_per_s_per_gpu);
  return m;
}

std::string format_usd_per_mtok(double v) { return with_unit("$", v, " /M tok"); }
std::string format_mtok_per_usd(double v) { return with_unit("", v, " M tok/$"); }
std::string format_tokens_per_mw(double v) { return with_unit("", v / 1e6, " M tok/s per MW"); }
std::string format_joules_per_token(double v) { return with_unit("", v, " J/tok"); }

double paid_gpus_per_used_gpu(int gpus_per_replica, int gpus_per_node) {
  if (gpus_per_replica < 1 || gpus_per_node < 1) throw std::invalid_argument("paid GPUs: GPU counts must be >= 1");
  const double used = gpus_per_replica;
  if (gpus_per_replica <= gpus_per_node)
    return gpus_per_node / static_cast<double>(gpus_per_node / gpus_per_replica) / used;
  const int nodes = (gpus_per_replica + gpus_per_node - 1) / gpus_per_node;
  return static_cast<double>(nodes) * gpus_per_node / used;
}

}  // namespace engramsim
