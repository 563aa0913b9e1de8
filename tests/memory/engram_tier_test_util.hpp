// Shared pieces of the in-run Engram tier tests: a toy step model with Engram layers and node /
// tier parameters built by hand, so every expected time can be worked out on paper.
#pragma once

#include <algorithm>
#include <vector>

#include "models/step_model.hpp"
#include "sim/memory/engram_tier_service.hpp"

namespace engramsim::test {

// compute = per_step + per_token x tokens; Engram layer e sits after `fractions[e]` of the compute;
// every position reads `k` rows per layer on each rank; no within-step dedup in the analytic counts.
class ToyEngramModel final : public StepTimeModel {
 public:
  ToyEngramModel(Time per_step, Time per_token, std::vector<double> fractions, int k, double row_bytes = 264.0)
      : per_step_(per_step), per_token_(per_token), fractions_(std::move(fractions)), k_(k), row_bytes_(row_bytes) {}

  StepCost step(const BatchShape& b) const override {
    StepCost c;
    c.compute = per_step_ + Time::ns(per_token_.count_ns() * tokens(b));
    c.total = c.compute;
    return c;
  }
  std::size_t engram_layer_count() const override { return fractions_.size(); }
  StepCost step_engram(const BatchShape& b, std::span<EngramLayerStep> layers) const override {
    const StepCost c = step(b);
    const double t = static_cast<double>(tokens(b));
    for (std::size_t e = 0; e < fractions_.size(); ++e) {
      EngramLayerStep& l = layers[e];
      l.layer = static_cast<int>(e);
      l.sees_prompt = true;
      l.positions = t;
      l.window = Time::from_seconds(c.compute.seconds() * fractions_[e]);
      l.lookups = t * k_;
      l.distinct_rows = 0.0;  // not known: sampled counts are scaled linearly
      l.host_rows = l.lookups;
      l.ssd_pages = l.lookups * (1.0 + (row_bytes_ - 1.0) / 4096.0);
    }
    return c;
  }

 private:
  static std::int64_t tokens(const BatchShape& b) {
    std::int64_t n = 0;
    for (const auto& p : b.prefill) n += p.tokens;
    for (const auto& d : b.decode) n += d.positions;
    return n;
  }
  Time per_step_;
  Time per_token_;
  std::vector<double> fractions_;
  int k_;
  double row_bytes_;
};

// An HGX-like node: `gpus` GPUs in groups of `per_switch`, 64 GB/s links and uplinks, 1 us of link
// latency (0.5 us per hop), two sockets of ample DRAM bandwidth, `drives` drives of 1 M IOPS,
// 7 GB/s, 90 us on the root complex.
inline fabric::NodeFabricParams toy_node(int gpus, int per_switch, int drives = 0) {
  fabric::NodeFabricParams p;
  p.gpu_count = gpus;
  for (int g = 0; g < gpus; g += per_switch) {
    p.gpu_groups.emplace_back();
    for (int i = g; i < std::min(gpus, g + per_switch); ++i) p.gpu_groups.back().push_back(i);
  }
  p.gpu_link_bandwidth = Bandwidth(64e9);
  p.gpu_link_latency = Time::ns(500);
  p.switch_uplink_bandwidth = Bandwidth(64e9);
  p.switch_uplink_latency = Time::ns(500);
  p.cpu_sockets = 2;
  p.host_dram_bandwidth = Bandwidth(1200e9);
  p.drive_count = drives;
  p.drive.read_bandwidth = Bandwidth(7e9);
  p.drive.iops = 1e6;
  p.drive.latency = Time::us(90);
  return p;
}

// A V4.1-shaped table (two layers of 24 sub-tables, 264 B rows) with `rows_per_subtable` rows each.
inline EngramTierParams toy_tier(EngramTier tier, const fabric::NodeFabricParams& node, int replicas, int tp = 1,
                                 std::int64_t rows_per_subtable = 16'000'000) {
  EngramTierParams p;
  p.tier = tier;
  p.shape.table_rows = {rows_per_subtable * 24, rows_per_subtable * 24};
  p.shape.rows_per_token = 24;
  p.shape.subtables_per_rank = 24 / tp;
  p.row_bytes = Bytes(264.0);
  p.tp = tp;
  p.replicas = replicas;
  p.access.model = AccessModel::zipf;
  p.access.zipf_s = 1.0;
  p.node = node;
  return p;
}

}  // namespace engramsim::test
