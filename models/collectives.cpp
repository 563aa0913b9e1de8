#include "models/collectives.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "models/data/default-collectives/deepep_h800.hpp"
#include "models/data/default-collectives/nccl_dgx_h100.hpp"
#include "models/data/engine-allreduce/all_reduce.hpp"

namespace engramsim {

namespace {
AlphaBetaModel weighted_line(std::span<const MessageTiming> points, const AlphaBetaModel* weights_from) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& p : points) {
    double w = 1.0;
    if (weights_from != nullptr) {
      const double pred = weights_from->seconds(p.bytes);
      w = pred > 0.0 ? 1.0 / (pred * pred) : 1.0 / (p.seconds * p.seconds);
    }
    sw += w;
    sx += w * p.bytes;
    sy += w * p.seconds;
    sxx += w * p.bytes * p.bytes;
    sxy += w * p.bytes * p.seconds;
  }
  const double det = sw * sxx - sx * sx;
  if (!(std::abs(det) > 0.0))
    throw std::invalid_argument("fit_collective_alpha_beta: need at least two distinct message sizes");
  AlphaBetaModel m;
  m.alpha_s = (sxx * sy - sx * sxy) / det;
  m.seconds_per_byte = (sw * sxy - sx * sy) / det;
  return m;
}
}  // namespace

AlphaBetaModel fit_collective_alpha_beta(std::span<const MessageTiming> points) {
  if (points.size() < 2) throw std::invalid_argument("fit_collective_alpha_beta: need at least two points");
  for (const auto& p : points)
    if (!(p.seconds > 0.0)) throw std::invalid_argument("fit_collective_alpha_beta: non-positive time");
  // Ordinary least squares first, then weights 1 / t_model^2 iterated to their fixed point.
  AlphaBetaModel m = weighted_line(points, nullptr);
  for (int i = 0; i < 200; ++i) {
    const AlphaBetaModel next = weighted_line(points, &m);
    const bool settled =
        std::abs(next.alpha_s - m.alpha_s) <= 1e-13 * std::abs(m.alpha_s) + 1e-18 &&
        std::abs(next.seconds_per_byte - m.seconds_per_byte) <= 1e-13 * std::abs(m.seconds_per_byte) + 1e-30;
    m = next;
    if (settled) break;
  }
  return m;
}

AlphaBetaFitQuality collective_fit_quality(const AlphaBetaModel& model, std::span<const MessageTiming> points) {
  std::vector<double> err;
  err.reserve(points.size());
  for (const auto& p : points) err.push_back(std::abs(model.seconds(p.bytes) - p.seconds) / p.seconds);
  AlphaBetaFitQuality q;
  if (err.empty()) return q;
  double sum = 0;
  for (double e : err) sum += e;
  q.mean = sum / static_cast<double>(err.size());
  std::sort(err.begin(), err.end());
  q.median = err[err.size() / 2];
  q.p90 = err[static_cast<std::size_t>(0.9 * static_cast<double>(err.size() - 1))];
  q.max = err.back();
  return q;
}

namespace {
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream is(line);
  while (std::getline(is, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}
}  // namespace

std::vector<MessageTiming> read_vidur_collective_csv(const std::string& path, int num_workers, int devices_per_node) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string line;
  if (!std::getline(in, line)) throw std::runtime_error(path + ": empty file");
  const auto header = split_csv_line(line);
  int col_size = -1, col_median = -1, col_workers = -1, col_devices = -1;
  for (std::size_t i = 0; i < header.size(); ++i) {
    const auto& h = header[i];
    if (h == "size") col_size = static_cast<int>(i);
    if (h == "num_workers") col_workers = static_cast<int>(i);
    if (h == "devices_per_node") col_devices = static_cast<int>(i);
    if (h.size() > 7 && h.compare(h.size() - 7, 7, ".median") == 0) col_median = static_cast<int>(i);
  }
  if (col_size < 0 || col_median < 0 || col_workers < 0 || col_devices < 0)
    throw std::runtime_error(path + ": missing size, *.median, num_workers or devices_per_node column");
  std::vector<MessageTiming> pts;
  int lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.empty()) continue;
    const auto cells = split_csv_line(line);
    const auto need = static_cast<std::size_t>(std::max({col_size, col_median, col_workers, col_devices}));
    if (cells.size() <= need) throw std::runtime_error(path + ":" + std::to_string(lineno) + ": too few columns");
    try {
      if (num_workers > 0 && std::stoi(cells[static_cast<std::size_t>(col_workers)]) != num_workers) continue;
      if (devices_per_node > 0 && std::stoi(cells[static_cast<std::size_t>(col_devices)]) != devices_per_node) continue;
      MessageTiming p;
      p.bytes = std::stod(cells[static_cast<std::size_t>(col_size)]);
      p.seconds = std::stod(cells[static_cast<std::size_t>(col_median)]) * 1e-3;
      pts.push_back(p);
    } catch (const std::logic_error&) {
      throw std::runtime_error(path + ":" + std::to_string(lineno) + ": not a number");
    }
  }
  return pts;
}

CollectiveParams dgx_h100_nccl_defaults() {
  // models/data/default-collectives/nccl_dgx_h100.csv, embedded at build time: what
  // fit_collective_alpha_beta() returns on models/data/vidur-h100_dgx (median column); refitted and
  // compared in tests/step/test_collectives.cpp.
  CollectiveParams p;
  for (const auto& row : data::kNcclDgxH100Fits) {
    const AlphaBetaModel model{row.alpha_s, row.seconds_per_byte};
    if (row.fit == "all_reduce")
      p.all_reduce.push_back({static_cast<int>(row.ranks), model});
    else if (row.fit == "point_to_point")
      p.point_to_point = model;
    else
      throw std::logic_error("models/data/default-collectives/nccl_dgx_h100.csv: unknown fit " + std::string(row.fit));
  }
  p.reference_scale_up = Bandwidth::gb_per_s(900.0);  // NVLink4, H100 SXM, bidirectional per GPU
  p.source = "fit to Vidur DGX H100 NCCL profile (models/data/vidur-h100_dgx)";
  return p;
}

ScaleOutParams deepep_h800_defaults() {
  // models/data/default-collectives/deepep_h800.csv, embedded at build time: fits to DeepEP's legacy
  // (V1) tables, models/data/deepep-h800/, refitted in tests/step/test_collectives.cpp. The file gives
  // the share of the NIC the kernels reach; seconds_per_byte is per byte at B_out = 1 byte/s.
  ScaleOutParams p;
  for (const auto& row : data::kDeepEpH800Fits) {
    const AlphaBetaModel model{row.alpha_s, 1.0 / row.nic_efficiency};
    if (row.kernels == "normal")
      p.normal = model;
    else if (row.kernels == "low_latency")
      p.low_latency = model;
    else
      throw std::logic_error("models/data/default-collectives/deepep_h800.csv: unknown kernels " +
                             std::string(row.kernels));
  }
  p.source = "fit to DeepEP V1 H800/CX7 tables (models/data/deepep-h800)";
  return p;
}

double measured_all_reduce_seconds(const MeasuredAllReduce& table, double message_bytes) {
  const auto& p = table.points;
  if (message_bytes <= p.front().bytes) return p.front().seconds;
  if (message_bytes >= p.back().bytes) return p.back().seconds * message_bytes / p.back().bytes;
  const auto hi =
      std::lower_bound(p.begin(), p.end(), message_bytes, [](const MessageTiming& m, double b) { return m.bytes < b; });
  const auto lo = hi - 1;
  const double f = std::log(message_bytes / lo->bytes) / std::log(hi->bytes / lo->bytes);
  return lo->seconds * std::pow(hi->seconds / lo->seconds, f);
}

std::vector<std::string> engine_all_reduce_tables() {
  std::vector<std::string> names;
  for (const auto& row : data::kEngineAllReducePoints)
    if (names.empty() || names.back() != row.table) names.emplace_back(row.table);
  return names;
}

std::vector<MeasuredAllReduce> engine_all_reduce_table(std::string_view table, std::string_view gpu) {
  const std::vector<std::string> names = engine_all_reduce_tables();
  if (std::find(names.begin(), names.end(), table) == names.end())
    throw std::invalid_argument("no engine all-reduce table \"" + std::string(table) + "\"");
  std::vector<MeasuredAllReduce> out;
  for (const auto& row : data::kEngineAllReducePoints) {
    if (row.table != table || row.gpu != gpu) continue;
    if (out.empty() || out.back().ranks != row.ranks) out.push_back({static_cast<int>(row.ranks), {}});
    out.back().points.push_back({static_cast<double>(row.bytes), row.us * 1e-6});
  }
  return out;
}

namespace {
// A measured table the model can interpolate: 2 to max_ranks - 1 ranks, sizes increasing, times positive.
void check_measured(const MeasuredAllReduce& m, int max_ranks) {
  if (m.ranks < 2 || m.ranks >= max_ranks || m.points.empty())
    throw std::invalid_argument("collective model: a measured all-reduce needs 2 to 1024 ranks and points");
  for (std::size_t k = 0; k < m.points.size(); ++k)
    if (!(m.points[k].bytes > 0.0 && m.points[k].seconds > 0.0) ||
        (k > 0 && m.points[k].bytes <= m.points[k - 1].bytes))
      throw std::invalid_argument("collective model: measured all-reduce sizes must increase, times be positive");
}
}  // namespace

CollectiveModel::CollectiveModel(CollectiveParams params, Bandwidth scale_up, Bandwidth scale_out)
    : params_(std::move(params)), scale_out_bw_(scale_out.value()) {
  if (params_.all_reduce.empty()) throw std::invalid_argument("collective model: no all-reduce fits");
  for (std::size_t i = 1; i < params_.all_reduce.size(); ++i)
    if (params_.all_reduce[i].ranks <= params_.all_reduce[i - 1].ranks)
      throw std::invalid_argument("collective model: all-reduce fits must have increasing ranks");
  if (params_.reference_scale_up.value() > 0.0 && scale_up.value() > 0.0)
    scale_ = scale_up.value() / params_.reference_scale_up.value();
  for (const auto& f : params_.all_reduce) {
    if (f.ranks < 2) throw std::invalid_argument("collective model: all-reduce fit ranks must be >= 2");
    log2_ranks_.push_back(std::log2(static_cast<double>(f.ranks)));
    // Ring bus bandwidth: busbw = algbw * 2 (r - 1) / r.
    const double r = f.ranks;
    busbw_.push_back(f.model.beta().value() * 2.0 * (r - 1.0) / r * scale_);
  }
  by_ranks_.resize(kTabulatedRanks);
  for (int r = 2; r < kTabulatedRanks; ++r) by_ranks_[static_cast<std::size_t>(r)] = rank_cost(r);
  measured_index_.assign(kTabulatedRanks, -1);
  for (std::size_t i = 0; i < params_.measured_all_reduce.size(); ++i) {
    const MeasuredAllReduce& m = params_.measured_all_reduce[i];
    check_measured(m, kTabulatedRanks);
    measured_index_[static_cast<std::size_t>(m.ranks)] = static_cast<int>(i);
  }
}

CollectiveModel::RankCost CollectiveModel::rank_cost(int ranks) const {
  const double lr = std::log2(static_cast<double>(ranks));
  double alpha = 0.0;
  double busbw = 0.0;
  const auto& fits = params_.all_reduce;
  if (lr <= log2_ranks_.front()) {
    alpha = fits.front().model.alpha_s;
    busbw = busbw_.front();
  } else if (lr >= log2_ranks_.back()) {
    alpha = fits.back().model.alpha_s;
    busbw = busbw_.back();
  } else {
    std::size_t hi = 1;
    while (log2_ranks_[hi] < lr) ++hi;
    const double f = (lr - log2_ranks_[hi - 1]) / (log2_ranks_[hi] - log2_ranks_[hi - 1]);
    alpha = fits[hi - 1].model.alpha_s + f * (fits[hi].model.alpha_s - fits[hi - 1].model.alpha_s);
    busbw = busbw_[hi - 1] + f * (busbw_[hi] - busbw_[hi - 1]);
  }
  const double r = ranks;
  return {alpha, busbw * r / (2.0 * (r - 1.0))};
}

double CollectiveModel::all_reduce_seconds(double message_bytes, int ranks) const {
  if (ranks <= 1 || message_bytes <= 0.0) return 0.0;
  if (static_cast<std::size_t>(ranks) < measured_index_.size() && measured_index_[static_cast<std::size_t>(ranks)] >= 0)
    return measured_all_reduce_seconds(
        params_.measured_all_reduce[static_cast<std::size_t>(measured_index_[static_cast<std::size_t>(ranks)])],
        message_bytes);
  // Rank counts are small integers: the per-count alpha and algorithm bandwidth are tabulated.
  const RankCost c = static_cast<std::size_t>(ranks) < by_ranks_.size() ? by_ranks_[static_cast<std::size_t>(ranks)]
                                                                        : rank_cost(ranks);
  return c.alpha_s + message_bytes / c.algbw;
}

Time CollectiveModel::all_reduce(Bytes message, int ranks) const {
  return Time::from_seconds(all_reduce_seconds(message.value(), ranks));
}

double CollectiveModel::all_to_all_seconds(double sent_per_rank_bytes, int ranks) const {
  if (ranks <= 1 || sent_per_rank_bytes <= 0.0) return 0.0;
  const auto& p = params_.point_to_point;
  return p.alpha_s + sent_per_rank_bytes * p.seconds_per_byte / scale_;
}

double CollectiveModel::expert_all_to_all_seconds(double nic_bytes, double scale_up_bytes,
                                                  ExpertKernels kernels) const {
  if (nic_bytes <= 0.0 && scale_up_bytes <= 0.0) return 0.0;
  if (!(scale_out_bw_ > 0.0)) throw std::logic_error("expert all-to-all across domains without a scale-out bandwidth");
  const AlphaBetaModel& m = kernels == ExpertKernels::normal ? params_.scale_out.normal : params_.scale_out.low_latency;
  const double nic = nic_bytes * m.seconds_per_byte / scale_out_bw_;
  const double up = scale_up_bytes * params_.point_to_point.seconds_per_byte / scale_;
  return m.alpha_s + std::max(nic, up);
}

Time CollectiveModel::all_to_all(Bytes sent_per_rank, int ranks) const {
  return Time::from_seconds(all_to_all_seconds(sent_per_rank.value(), ranks));
}

}  // namespace engramsim
