// Alpha-beta cost of the collectives a tensor/expert-parallel replica runs over its scale-up fabric.
//
// A collective over `ranks` GPUs moving a message of S bytes costs t = alpha + S / beta. The default
// parameters are least-squares fits (relative error) to NCCL timings measured on a DGX H100
// (Vidur, models/data/vidur-h100_dgx/): one all-reduce fit per rank count 2, 4, 8 and one intra-node
// point-to-point fit. The constants (models/data/default-collectives/, embedded at build time) are what
// fit_collective_alpha_beta() returns on those files; tests/step/test_collectives.cpp refits them and
// fails if they drift.
//
// Other fabrics scale by bandwidth ratio: the bus bandwidth (all-reduce) and link bandwidth
// (all-to-all) are multiplied by target_scale_up / reference_scale_up (per-GPU bidirectional
// NVLink / Infinity Fabric bandwidth); alpha (software, synchronisation and hop latency) is kept.
// Rank counts between fitted ones interpolate alpha and bus bandwidth in log2(ranks); above the
// largest fitted count the bus bandwidth of the largest fit carries over (ring bus-bandwidth
// definition, algbw = busbw * r / (2 (r - 1))) and alpha stays that of the largest fit.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/units.hpp"

namespace engramsim {

// t(S) = alpha + S * seconds_per_byte.
struct AlphaBetaModel {
  double alpha_s = 0.0;
  double seconds_per_byte = 0.0;
  double seconds(double bytes) const { return alpha_s + bytes * seconds_per_byte; }
  Bandwidth beta() const { return Bandwidth(seconds_per_byte > 0 ? 1.0 / seconds_per_byte : 0.0); }
};

struct MessageTiming {
  double bytes = 0.0;
  double seconds = 0.0;
};

// Least squares in relative error: weighted 2x2 normal equations with weights 1 / t_model(S_i)^2,
// iterated from the ordinary least-squares line to their fixed point, so 2 KiB and 64 MiB messages
// count alike. Weighting by the model rather than the measured time keeps a few unusually fast
// samples (the table's small messages are bimodal, 7 us or ~40 us) from dominating the fit.
// Needs >= 2 distinct sizes and positive times.
AlphaBetaModel fit_collective_alpha_beta(std::span<const MessageTiming> points);

// Relative errors |pred - meas| / meas of a model over points.
struct AlphaBetaFitQuality {
  double mean = 0.0;
  double median = 0.0;
  double p90 = 0.0;
  double max = 0.0;
};
AlphaBetaFitQuality collective_fit_quality(const AlphaBetaModel& model, std::span<const MessageTiming> points);

// Reads a Vidur network-profile CSV (all_reduce.csv / send_recv.csv): `size` in bytes, median time
// in milliseconds. Keeps rows whose `num_workers` equals `num_workers` (0 = any) and whose
// `devices_per_node` equals `devices_per_node` (0 = any). Throws std::runtime_error on I/O or format
// errors.
std::vector<MessageTiming> read_vidur_collective_csv(const std::string& path, int num_workers, int devices_per_node);

struct AllReduceFit {
  int ranks = 0;
  AlphaBetaModel model;
};

// Expert all-to-all across scale-up domains, as DeepEP's two kernel families run it (legacy V1
// performance tables, H800 + one CX7 400 Gb/s NIC per GPU, models/data/deepep-h800/):
//   normal (prefill batches): one copy per (token, remote domain) over the NIC, forwarded inside the
//     domain over the scale-up fabric, both pipelined: t = alpha + max(nic / (B_out eff), up / beta_p2p);
//   low latency (decode-only batches): one copy per (token, expert on a remote domain) straight over
//     the NIC, t = alpha + nic / (B_out eff) (same-domain copies over the scale-up fabric, in parallel).
// B_out is the node's scale-out bandwidth per GPU per direction.
struct ScaleOutParams {
  AlphaBetaModel normal;  // seconds_per_byte at B_out = 1 byte/s, i.e. 1 / eff
  AlphaBetaModel low_latency;
  std::string source;
};
ScaleOutParams deepep_h800_defaults();

enum class ExpertKernels { normal, low_latency };

// A serving engine's own all-reduce kernel as measured on one GPU model at one rank count: time by
// message size (models/data/engine-allreduce/). Between measured sizes the time is interpolated
// linearly in log(size) and log(time); below the smallest it is the smallest size's time, above the
// largest it grows in proportion to the size (bandwidth-bound).
struct MeasuredAllReduce {
  int ranks = 0;
  std::vector<MessageTiming> points;  // strictly increasing bytes, positive times
};
double measured_all_reduce_seconds(const MeasuredAllReduce& table, double message_bytes);

// The rank counts of engine all-reduce table `table` measured on `gpu` (a GPU preset name), each
// with its points; empty when the table holds no row for that GPU. Throws std::invalid_argument
// when no table is called `table`.
std::vector<MeasuredAllReduce> engine_all_reduce_table(std::string_view table, std::string_view gpu);
// The names of the embedded engine all-reduce tables, in file order.
std::vector<std::string> engine_all_reduce_tables();

struct CollectiveParams {
  std::vector<AllReduceFit> all_reduce;  // increasing ranks
  // The serving engine's own all-reduce measured on the target GPU (engine preset key
  // `all_reduce_table`): it replaces the fit at the rank counts it covers. Empty: the fit everywhere.
  std::vector<MeasuredAllReduce> measured_all_reduce;
  AlphaBetaModel point_to_point;  // one GPU pair inside the node
  Bandwidth reference_scale_up;   // per-GPU bidirectional fabric bandwidth where measured
  ScaleOutParams scale_out = deepep_h800_defaults();
  std::string source;
};

// The fitted DGX H100 NCCL defaults (see the header comment).
CollectiveParams dgx_h100_nccl_defaults();

class CollectiveModel {
 public:
  // `scale_up` is the target node's per-GPU bidirectional scale-up bandwidth.
  // `scale_out` is one GPU's NIC bandwidth per direction (0 = none: expert_all_to_all throws).
  CollectiveModel(CollectiveParams params, Bandwidth scale_up, Bandwidth scale_out = Bandwidth{});

  // All-reduce of `message` bytes (the full tensor each rank holds) over `ranks` GPUs: the engine's
  // measured kernel where CollectiveParams::measured_all_reduce covers `ranks`, else the fit.
  Time all_reduce(Bytes message, int ranks) const;
  double all_reduce_seconds(double message_bytes, int ranks) const;
  // All-to-all in which each rank sends `sent_per_rank` bytes in total to the other ranks.
  // Concurrent sends from one GPU share its link: t = alpha_p2p + sent / beta_p2p (scaled).
  Time all_to_all(Bytes sent_per_rank, int ranks) const;
  double all_to_all_seconds(double sent_per_rank_bytes, int ranks) const;

  // Expert dispatch or combine of a replica spanning scale-up domains: `nic_bytes` each rank sends
  // over its NIC, `scale_up_bytes` over the scale-up fabric (see ScaleOutParams). 0 when both are 0.
  double expert_all_to_all_seconds(double nic_bytes, double scale_up_bytes, ExpertKernels kernels) const;
  bool has_scale_out() const { return scale_out_bw_ > 0.0; }

  const CollectiveParams& params() const { return params_; }
  double bandwidth_scale() const { return scale_; }

 private:
  struct RankCost {
    double alpha_s = 0.0;
    double algbw = 1.0;  // all-reduce algorithm bandwidth, bytes/s
  };
  RankCost rank_cost(int ranks) const;
  static constexpr int kTabulatedRanks = 1025;

  CollectiveParams params_;
  double scale_ = 1.0;
  double scale_out_bw_ = 0.0;  // bytes/s per direction
  std::vector<double> log2_ranks_;
  std::vector<double> busbw_;  // bytes/s, scaled to the target fabric
  std::vector<RankCost> by_ranks_;
  std::vector<int>
      measured_index_;  // by ranks (kTabulatedRanks entries): into params_.measured_all_reduce, -1 where none
};

}  // namespace engramsim
