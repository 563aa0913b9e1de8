#include "models/engram_fetch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "models/engram_host_path.hpp"
#include "models/op_cost.hpp"

namespace engramsim {

const char* to_string(DramPath p) { return kDramPathNames.name(p); }

const char* to_string(SsdPath p) { return kSsdPathNames.name(p); }

namespace {
constexpr double kExactRanks = 64.0;
constexpr double kBinRatio = 1.05;

// Integral of x^-s over [a, b].
double power_integral(double a, double b, double s) {
  if (std::abs(s - 1.0) < 1e-12) return std::log(b / a);
  return (std::pow(b, 1.0 - s) - std::pow(a, 1.0 - s)) / (1.0 - s);
}

// 1 - (1 - p)^draws, accurate for tiny p.
double hit_at_least_once(double p, double draws) {
  if (p >= 1.0) return draws > 0 ? 1.0 : 0.0;
  return -std::expm1(draws * std::log1p(-p));
}
}  // namespace

RowPopularity::RowPopularity(double rows, double zipf_s) : rows_(rows) {
  if (!(rows >= 1.0)) throw std::invalid_argument("row popularity: need at least one row");
  if (!(zipf_s >= 0.0)) throw std::invalid_argument("row popularity: Zipf exponent must be >= 0");
  if (zipf_s == 0.0) {
    bins_.push_back({1.0, rows, 1.0 / rows});
    return;
  }
  // Masses first (unnormalised), then per-row probabilities.
  std::vector<double> mass;
  const double exact = std::min(kExactRanks, std::floor(rows));
  for (double r = 1.0; r <= exact; r += 1.0) {
    bins_.push_back({r, 1.0, 0.0});
    mass.push_back(std::pow(r, -zipf_s));
  }
  double a = exact + 1.0;
  while (a <= rows) {
    double b = std::floor(a * kBinRatio);
    b = std::max(b, a + 1.0);
    b = std::min(b, rows + 1.0);
    const double count = b - a;
    bins_.push_back({a, count, 0.0});
    // Midpoint rule: sum_{i=a}^{b-1} i^-s ~ integral over [a - 1/2, b - 1/2].
    mass.push_back(power_integral(a - 0.5, b - 0.5, zipf_s));
    a = b;
  }
  double total = 0.0;
  for (double m : mass) total += m;
  for (std::size_t i = 0; i < bins_.size(); ++i) bins_[i].p = mass[i] / total / bins_[i].count;
}

double RowPopularity::count_outside(const Bin& b, double top_k) const {
  const double last = b.first_rank + b.count - 1.0;
  return std::clamp(last - std::max(top_k, b.first_rank - 1.0), 0.0, b.count);
}

double RowPopularity::top_mass(double top_k) const {
  if (top_k <= 0.0) return 0.0;
  double m = 0.0;
  for (const auto& b : bins_) m += (b.count - count_outside(b, top_k)) * b.p;
  return std::min(m, 1.0);
}

double RowPopularity::expected_distinct(double draws) const {
  double d = 0.0;
  for (const auto& b : bins_) d += b.count * hit_at_least_once(b.p, draws);
  return d;
}

double RowPopularity::che_time(double top_k, double lru_rows) const {
  if (lru_rows <= 0.0) return 0.0;
  double outside = 0.0;
  for (const auto& b : bins_) outside += count_outside(b, top_k);
  if (lru_rows >= outside) return std::numeric_limits<double>::infinity();
  const double stream = 1.0 - top_mass(top_k);
  if (!(stream > 0.0)) return std::numeric_limits<double>::infinity();
  auto filled = [&](double t) {
    double f = 0.0;
    for (const auto& b : bins_) {
      const double n = count_outside(b, top_k);
      if (n > 0.0) f += n * -std::expm1(-b.p / stream * t);
    }
    return f;
  };
  double lo = 0.0;
  double hi = lru_rows;
  while (filled(hi) < lru_rows) hi *= 2.0;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (filled(mid) < lru_rows ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double RowPopularity::lru_hit_ratio(double top_k, double lru_rows) const {
  const double t = che_time(top_k, lru_rows);
  if (t <= 0.0) return 0.0;
  const double stream = 1.0 - top_mass(top_k);
  if (!(stream > 0.0)) return 0.0;
  double hit = 0.0;
  for (const auto& b : bins_) {
    const double pc = b.p / stream;
    const double resident = std::isinf(t) ? 1.0 : -std::expm1(-pc * t);
    hit += count_outside(b, top_k) * pc * resident;
  }
  return std::min(hit, 1.0);
}

RowPopularity::Distinct RowPopularity::expected_distinct(double draws, double top_k, double lru_rows) const {
  const double t = che_time(top_k, lru_rows);
  const double stream = 1.0 - top_mass(top_k);
  Distinct d;
  for (const auto& b : bins_) {
    const double q = hit_at_least_once(b.p, draws);
    d.all += b.count * q;
    const double out = count_outside(b, top_k) * q;
    d.outside_hot += out;
    if (t <= 0.0) {
      d.missing_cache += out;
    } else if (!std::isinf(t) && stream > 0.0) {
      d.missing_cache += out * std::exp(-b.p / stream * t);
    }
  }
  return d;
}

EngramFetchModel::EngramFetchModel(const EngramSpec& spec, int engram_layer, int tp, const NodeSpec& node,
                                   const Efficiencies& eff, const EngramFetchParams& params)
    : params_(params), popularity_(1.0, 0.0), copy_eff_(eff.host_copy_by_bytes) {
  if (engram_layer < 0 || static_cast<std::size_t>(engram_layer) >= spec.layers.size() ||
      static_cast<std::size_t>(engram_layer) >= spec.table_rows.size())
    throw std::invalid_argument("engram fetch: Engram layer index out of range");
  if (tp < 1) throw std::invalid_argument("engram fetch: tp must be >= 1");
  const int rows_per_token = spec.rows_per_token_per_layer();
  if (rows_per_token < 1) throw std::invalid_argument("engram fetch: no rows per token");
  layer_ = spec.layers[static_cast<std::size_t>(engram_layer)];
  row_bytes_ = spec.row_bytes.value();
  if (!(row_bytes_ > 0.0)) throw std::invalid_argument("engram fetch: row_bytes must be > 0");
  subtables_ = static_cast<double>(rows_per_token) / tp;
  const double table_rows = static_cast<double>(spec.table_rows[static_cast<std::size_t>(engram_layer)]);
  popularity_ = RowPopularity(std::max(1.0, table_rows / rows_per_token), params.access.zipf_s);
  size_caches(spec, table_rows, tp, params);
  hbm_bw_ = hbm_rate(HardwareRates(node.gpu), eff);
  hbm_gather_eff_ = eff.of(OpClass::engram_gather).bandwidth.at(row_bytes_);
  kernel_overhead_s_ = eff.kernel_overhead.seconds();
  const int active = set_host_rates(node, eff, params);
  set_ssd_rates(spec, table_rows, tp, node, active, params);
}

void EngramFetchModel::size_caches(const EngramSpec& spec, double table_rows, int tp, const EngramFetchParams& params) {
  const double rows_per_rank_cache = params.hbm_hot_cache.value() / tp / row_bytes_ / subtables_;
  hot_k_ = params.tier == EngramTier::hbm ? 0.0 : std::min(rows_per_rank_cache, popularity_.rows());
  lru_k_ = params.tier == EngramTier::ssd
               ? std::min(params.dram_cache.value() / tp / row_bytes_ / subtables_, popularity_.rows())
               : 0.0;
  if (params.tier == EngramTier::ssd && params.ssd_path == SsdPath::page_cache) {
    // The page cache serves both layers' files; each gets the share of its table's bytes.
    double all_rows = 0.0;
    for (auto r : spec.table_rows) all_rows += static_cast<double>(r);
    const double page = params.ssd_page.value();
    const double cached = params.page_cache.value() * (table_rows / all_rows) / tp / page;
    const double table_pages = std::max(1.0, table_rows * row_bytes_ / tp / page);
    lru_k_ =
        std::min(page_cache_equivalent_rows(cached, table_pages, page / row_bytes_) / subtables_, popularity_.rows());
  }
  hot_mass_ = popularity_.top_mass(hot_k_);
  cache_hit_ = lru_k_ > 0.0 ? popularity_.lru_hit_ratio(hot_k_, lru_k_) : 0.0;
  table_.reserve(kOctaves * kStepsPerOctave + 1);
  for (int i = 0; i <= kOctaves * kStepsPerOctave; ++i) {
    const double p = std::exp2(static_cast<double>(i) / kStepsPerOctave);
    const auto d = popularity_.expected_distinct(p, hot_k_, lru_k_);
    table_.push_back({d.all / p, d.outside_hot / p, d.missing_cache / p});
  }
}

int EngramFetchModel::set_host_rates(const NodeSpec& node, const Efficiencies& eff, const EngramFetchParams& params) {
  link_bw_ = node.gpu.host_link_bandwidth.value();
  const int node_gpus = std::max(1, node.gpu_count);
  const int active = params.active_gpus > 0 ? std::min(params.active_gpus, node_gpus) : node_gpus;
  // Active GPUs fill the switch groups in order (GPU ordinals 0..active-1); the busiest group sets
  // the per-GPU share of its uplink.
  std::size_t group = 1;
  for (const auto& g : node.topology.gpu_groups) {
    std::size_t busy = 0;
    for (int gpu_index : g) busy += gpu_index < active ? 1 : 0;
    group = std::max(group, busy);
  }
  if (node.topology.switch_uplink_bandwidth.value() > 0.0)
    link_bw_ = std::min(link_bw_, node.topology.switch_uplink_bandwidth.value() / static_cast<double>(group));
  link_latency_s_ = node.host_link_latency.seconds();
  uva_eff_ = eff.host_gather_by_row_bytes.at(row_bytes_);
  cpu_bw_ = node.host_dram_bandwidth.value() / static_cast<double>(active) * eff.cpu_gather_by_row_bytes.at(row_bytes_);
  return active;
}

void EngramFetchModel::set_ssd_rates(const EngramSpec& spec, double table_rows, int tp, const NodeSpec& node,
                                     int active, const EngramFetchParams& params) {
  const double page = params.ssd_page.value();
  if (!(page > 0.0)) throw std::invalid_argument("engram fetch: SSD page size must be > 0");
  ssd_drives_share_ = node.nvme.count / static_cast<double>(active);
  ssd_latency_s_ =
      params.ssd_read_latency.count_ns() > 0 ? params.ssd_read_latency.seconds() : node.nvme.read_latency.seconds();
  fault_latency_s_ = params.page_fault_latency.count_ns() > 0 ? params.page_fault_latency.seconds() : ssd_latency_s_;
  ssd_iops_ = (params.ssd_iops_per_drive > 0.0 ? params.ssd_iops_per_drive : node.nvme.random_read_iops_4k_per_drive) *
              ssd_drives_share_;
  ssd_seq_pages_per_s_ = node.nvme.seq_read_per_drive.value() * ssd_drives_share_ / page;
  ssd_total_pages_ = std::max(1.0, table_rows * row_bytes_ / tp / page);
  pages_per_row_ = 1.0 + (row_bytes_ - 1.0) / page;
  if (node.host_max_outstanding_reads > 0 && node.host_read_request.value() > 0.0) {
    uva_requests_per_row_ = requests_per_row(spec.row_bytes, node.host_read_request);
    uva_outstanding_ = node.host_max_outstanding_reads;
  }
  // Faults in flight: the engine's threads, at most the array's queue slots and its IOPS x latency.
  fault_concurrency_ =
      std::max(1.0, std::min({static_cast<double>(std::max(1, params.page_fault_concurrency)),
                              params.ssd_queue_depth * ssd_drives_share_, std::max(1.0, ssd_iops_ * ssd_latency_s_)}));
  if (params.tier == EngramTier::ssd && (ssd_iops_ <= 0.0 || ssd_latency_s_ <= 0.0))
    throw std::invalid_argument("engram fetch: the ssd tier needs NVMe drives with IOPS and latency");
}

EngramFetchModel::Fractions EngramFetchModel::fractions(double positions) const {
  if (positions <= 1.0) return table_.front();
  const double x = std::log2(positions) * kStepsPerOctave;
  const auto i = static_cast<std::size_t>(x);
  if (i + 1 >= table_.size()) return table_.back();
  const double f = x - static_cast<double>(i);
  const auto& a = table_[i];
  const auto& b = table_[i + 1];
  return {a.all + f * (b.all - a.all), a.outside_hot + f * (b.outside_hot - a.outside_hot),
          a.missing_cache + f * (b.missing_cache - a.missing_cache)};
}

double EngramFetchModel::host_seconds(double host_rows, bool staged) const {
  if (host_rows <= 0.0) return 0.0;
  const double bytes = host_rows * row_bytes_;
  if (!staged) {
    const double stream = bytes / (link_bw_ * uva_eff_);
    const double reads =
        little_read_time(host_rows * uva_requests_per_row_, Time::from_seconds(link_latency_s_), uva_outstanding_)
            .seconds();
    return link_latency_s_ + std::max(stream, reads);
  }
  const double t_cpu = cpu_bw_ > 0.0 && !params_.gather_before_forward ? bytes / cpu_bw_ : 0.0;
  const double t_copy = bytes / (link_bw_ * copy_eff_.at(bytes));
  return link_latency_s_ + std::max(t_cpu, t_copy);
}

double EngramFetchModel::cpu_gather_seconds(double host_rows) const {
  const bool staged =
      params_.tier == EngramTier::ssd || (params_.tier == EngramTier::dram && params_.dram_path == DramPath::staged);
  if (!staged || host_rows <= 0.0 || !(cpu_bw_ > 0.0)) return 0.0;
  return host_rows * row_bytes_ / cpu_bw_;
}

double EngramFetchModel::ssd_seconds(double ssd_rows, const char** bound) const {
  if (ssd_rows <= 0.0) return 0.0;
  const double qd_rate = params_.ssd_queue_depth * ssd_drives_share_ / ssd_latency_s_;
  double rate = ssd_iops_;
  *bound = "ssd_iops";
  if (qd_rate < rate) {
    rate = qd_rate;
    *bound = "ssd_queue";
  }
  if (ssd_seq_pages_per_s_ > 0.0 && ssd_seq_pages_per_s_ < rate) {
    rate = ssd_seq_pages_per_s_;
    *bound = "ssd_bw";
  }
  return ssd_latency_s_ + ssd_rows / rate;
}

EngramFetchCost EngramFetchModel::cost(double positions) const {
  EngramFetchCost c;
  if (!(positions > 0.0)) return c;
  c.lookups = positions * subtables_;
  if (params_.tier == EngramTier::hbm) {
    c.distinct_rows = params_.dedup ? fractions(positions).all * c.lookups : c.lookups;
    c.hbm_rows = c.lookups;
    c.hbm_time = Time::from_seconds(kernel_overhead_s_ + c.lookups * row_bytes_ / (hbm_bw_ * hbm_gather_eff_));
    c.total = c.hbm_time;
    c.bound = "hbm";
    return c;
  }
  const Fractions f = fractions(positions);
  c.distinct_rows = params_.dedup ? f.all * c.lookups : c.lookups;
  c.hbm_rows = c.lookups * hot_mass_;
  const double hbm_s =
      c.hbm_rows > 0.0 ? kernel_overhead_s_ + c.hbm_rows * row_bytes_ / (hbm_bw_ * hbm_gather_eff_) : 0.0;
  c.host_rows = params_.dedup ? f.outside_hot * c.lookups : c.lookups * (1.0 - hot_mass_);
  c.host_bytes = Bytes(c.host_rows * row_bytes_);
  double host_s = 0.0;
  double ssd_s = 0.0;
  const char* ssd_bound = "ssd_iops";
  if (params_.tier == EngramTier::dram) {
    host_s = host_seconds(c.host_rows, params_.dram_path == DramPath::staged);
  } else {
    const double ssd_rows =
        params_.dedup ? f.missing_cache * c.lookups : c.lookups * (1.0 - hot_mass_) * (1.0 - cache_hit_);
    const double raw_pages = ssd_rows * pages_per_row_;
    c.ssd_pages = params_.dedup ? ssd_total_pages_ * -std::expm1(-raw_pages / ssd_total_pages_) : raw_pages;
    if (params_.ssd_path == SsdPath::page_cache) return page_cache_cost(c);
    ssd_s = ssd_seconds(c.ssd_pages, &ssd_bound);
    host_s = host_seconds(c.host_rows, /*staged=*/true);
  }
  c.hbm_time = Time::from_seconds(hbm_s);
  c.ssd_time = Time::from_seconds(ssd_s);
  c.host_time = Time::from_seconds(host_s);
  // The hot-set gather (GPU) and the offloaded path (link, drives) use different resources.
  c.total = Time::from_seconds(std::max(hbm_s, ssd_s + host_s));
  if (hbm_s >= ssd_s + host_s) {
    c.bound = "hbm";
  } else if (ssd_s >= host_s) {
    const bool latency_dominates = ssd_latency_s_ > 0.5 * ssd_s;
    c.bound = latency_dominates ? "latency" : ssd_bound;
  } else {
    const double bytes = c.host_rows * row_bytes_;
    const bool cpu = (params_.tier == EngramTier::ssd || params_.dram_path == DramPath::staged) && cpu_bw_ > 0.0 &&
                     !params_.gather_before_forward && bytes / cpu_bw_ > bytes / (link_bw_ * copy_eff_.at(bytes));
    const bool reads =
        params_.tier == EngramTier::dram && params_.dram_path == DramPath::zero_copy && uva_outstanding_ > 0 &&
        c.host_rows * uva_requests_per_row_ * link_latency_s_ / uva_outstanding_ > bytes / (link_bw_ * uva_eff_);
    c.bound = link_latency_s_ > 0.5 * host_s ? "latency" : (cpu ? "cpu_gather" : (reads ? "host_reads" : "host_link"));
  }
  return c;
}

// The page_cache path: one host round trip (models/engram_host_path.hpp), the faults inside its gather.
EngramFetchCost EngramFetchModel::page_cache_cost(EngramFetchCost c) const {
  HostRoundTrip r;
  r.ids = c.lookups;
  r.rows = c.host_rows;
  r.faults = c.ssd_pages;
  r.row_bytes = Bytes(row_bytes_);
  r.link_latency = Time::from_seconds(link_latency_s_);
  r.link = Bandwidth(link_bw_);
  r.cpu_gather = Bandwidth(cpu_bw_);
  r.copy_efficiency = copy_eff_.at(c.host_rows * row_bytes_);
  r.dedup_per_id = params_.host_dedup_per_id;
  r.fault_latency = Time::from_seconds(fault_latency_s_);
  r.fault_concurrency = fault_concurrency_;
  r.kernel = Time::from_seconds(kernel_overhead_s_);
  r.fixed = params_.host_round_trip_fixed;
  const HostRoundTripCost rt = host_round_trip(r);
  c.ssd_time = rt.faults;
  c.host_time = Time::from_seconds(rt.total.seconds() - rt.faults.seconds());
  c.total = rt.total;
  c.bound = rt.faults > c.host_time ? "page_faults" : "host_round_trip";
  return c;
}

}  // namespace engramsim
