// A synthetic but self-consistent sweep for report tests: an analytic serving model (throughput
// grows and interactivity falls with concurrency; DRAM offload frees HBM and adds a small stall)
// evaluated through the real sweep runner into a results folder, plus a context.
#pragma once

#include <cmath>
#include <filesystem>
#include <string>

#include "core/config_node.hpp"
#include "core/rng.hpp"
#include "planner/point_metrics.hpp"
#include "planner/report_data.hpp"
#include "planner/sweep_runner.hpp"

namespace engramsim::planner::testing {

inline Outcome evaluate_analytic(const SweepPoint& p) {
  const auto a = p.assignments_json();
  const int tp = a["deployment.tp"].get<int>();
  const std::string tier = a["deployment.engram_tier"].get<std::string>();
  const double c = a["workload.concurrency"].get<double>();
  // Per-GPU HBM: 288 GiB parts, weights split by TP, Engram tables in HBM only on the hbm tier.
  const double weights = 360.0 / tp;
  const double engram = tier == "hbm" ? 189.0 / tp : 0.0;
  const double kv = 288.0 * 0.92 - weights - engram - 12.0;
  if (kv <= 0.0) return Outcome::infeasible("HBM: KV pool short by " + std::to_string(-kv) + " GiB");
  const double kv_needed = c * 1.0;  // GiB per GPU for c sequences
  if (kv_needed > kv) return Outcome::infeasible("KV cache: needs " + std::to_string(kv_needed) + " GiB");
  PointMetrics m;
  m.gpus = tp;
  m.concurrency = c;
  const double stall = tier == "dram" ? 0.04 * std::log2(1.0 + c) / 8.0 : 0.0;
  const double tpot = 6.0 * (tp == 2 ? 1.25 : 1.0) * (1.0 + c / 48.0) / (1.0 - stall);
  m.interactivity = 1000.0 / tpot;
  // A variant axis and a node axis (the wide fixture) only scale the throughput, so its curves stay apart.
  const double variant = a.contains("deployment.variant") ? a["deployment.variant"].get<double>() : 0.0;
  const std::string node = a.contains("node") ? a["node"].get<std::string>() : "";
  const double gpu_speed = node == "hgx-b200" ? 0.85 : node == "hgx-h200" ? 0.6 : 1.0;
  if (!node.empty()) m.extra["gpu"] = node.substr(4);
  m.output_throughput_per_gpu = c * m.interactivity / tp * (1.0 + 0.1 * variant) * gpu_speed;
  m.throughput_per_gpu = 2.0 * m.output_throughput_per_gpu;
  m.request_rate = c / (1.0 + tpot);
  m.ttft_ms = {40.0 + c, 60.0 + 2 * c, 90.0 + 4 * c};
  m.tpot_ms = {tpot, tpot * 1.1, tpot * 1.3};
  m.e2e_ms = {1000 * tpot, 1100 * tpot, 1300 * tpot};
  m.gpu_hour_usd = 2.34;
  m.cost_per_gpu_hour_usd = 2.34 + (tier == "dram" ? 0.03 : 0.0);
  m.engram_tier = tier;
  m.engram_stall_share = stall;
  m.hbm_footprint = {{"weights", weights}, {"engram", engram}, {"activations", 12.0}, {"kv_pool", kv}};
  RngStream rng(42, p.id);
  for (int i = 0; i < 200; ++i) {
    m.ttft_samples_ms.push_back(m.ttft_ms.p50 * (0.5 + rng.exponential(2.0)));
    m.tpot_samples_ms.push_back(tpot * (0.9 + 0.3 * rng.uniform01()));
  }
  m.ttft_samples_ms = downsample_quantiles(m.ttft_samples_ms, 101);
  return Outcome::ok(to_json(m));
}

inline const char* kAnalyticScenario =
    "deployment: {tp: 4, engram_tier: hbm}\nworkload: {concurrency: 1}\n"
    "sweep:\n  axes:\n    - {key: deployment.tp, values: [2, 4]}\n"
    "    - {key: deployment.engram_tier, values: [hbm, dram]}\n"
    "    - {key: workload.concurrency, range: {from: 1, to: 256, factor: 2}}\n";

// 24 configurations (3 nodes x tp x tier x 2 variants) at four concurrencies: charts with many series.
inline const char* kWideScenario =
    "node: hgx-b300\ndeployment: {tp: 4, engram_tier: hbm, variant: 0}\nworkload: {concurrency: 1}\n"
    "sweep:\n  axes:\n    - {key: node, values: [hgx-b300, hgx-b200, hgx-h200]}\n"
    "    - {key: deployment.tp, values: [2, 4]}\n"
    "    - {key: deployment.engram_tier, values: [hbm, dram]}\n"
    "    - {key: deployment.variant, values: [0, 1]}\n"
    "    - {key: workload.concurrency, values: [8, 32, 64, 128]}\n";

inline ReportContext analytic_context() {
  ReportContext c;
  c.title = "DRAM offload of Engram tables on a 288 GiB GPU";
  c.question =
      "Does moving Engram tables to host DRAM beat keeping them in HBM, in tokens per dollar at 60 tok/s/user?";
  c.scenario = "scenarios/synthetic.yaml";
  c.model_card = "synthetic-card";
  c.presets = {"gpu: synthetic-288g", "node: synthetic-8x"};
  c.price_tier = "hyperscaler";
  c.target_interactivity = 60.0;
  c.slo.min_interactivity = 40.0;
  c.slo.max_ttft_p99_ms = 1000.0;
  c.assumptions = {{"HBM capacity", "288 GiB", "datasheet", "datasheet"},
                   {"DRAM gather bandwidth", "50 GB/s", "calibration run 1", "measured"},
                   {"Cost tier", "$2.34/GPU-hour", "price survey", "assumed"}};
  c.notes = {"Fleet sizing: see the table below."};
  c.extra_tables = {
      {"fleet", "Fleet plans", {"configuration", "replicas", "$/hour"}, {{"tp=2 engram_tier=dram", "12", "224.6"}}}};
  return c;
}

// Runs the analytic sweep (or `scenario`) into dir and writes its context; returns the number of points.
inline std::size_t make_analytic_results(const std::filesystem::path& dir, int jobs = 2,
                                         const char* scenario = kAnalyticScenario) {
  const auto root = ConfigNode::load_string(scenario, "synthetic.yaml");
  const auto pts = expand_sweep(SweepSpec::from_scenario(root));
  SweepRunOptions o;
  o.out_dir = dir;
  o.jobs = jobs;
  o.progress = ProgressMode::none;
  o.durable = false;
  run_sweep(pts, evaluate_analytic, o);
  write_context(dir, analytic_context());
  return pts.size();
}

}  // namespace engramsim::planner::testing
