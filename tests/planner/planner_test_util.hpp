// Helpers shared by the planner tests: temporary folders, file reading, a small sweep and a
// deterministic evaluator whose results depend only on the point.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/config_node.hpp"
#include "planner/sweep_runner.hpp"
#include "planner/sweep_spec.hpp"
#include "tests/support/temp_dir.hpp"

namespace engramsim::planner::testing {

using TempDir = engramsim::test::TempDir;

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

inline std::size_t count_lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// tp x tier x concurrency = 2 x 3 x 6 = 36 points.
inline std::vector<SweepPoint> small_sweep() {
  const auto root = ConfigNode::load_string(
      "deployment: {tp: 4, engram_tier: hbm}\nworkload: {concurrency: 1}\n"
      "sweep:\n  axes:\n    - {key: deployment.tp, values: [2, 4]}\n"
      "    - {key: deployment.engram_tier, values: [hbm, dram, ssd]}\n"
      "    - {key: workload.concurrency, values: [1, 2, 4, 8, 16, 32]}\n",
      "small.yaml");
  return expand_sweep(SweepSpec::from_scenario(root));
}

// Deterministic: infeasible for tp=2 on hbm above concurrency 8 (as a footprint check would be),
// throws for tp=4 ssd concurrency 32, otherwise a result computed from the assignments. An
// optional delay varies per point so completion order differs from index order.
inline Outcome evaluate_small(const SweepPoint& p, int delay_ms = 0) {
  const auto a = p.assignments_json();
  const int tp = a["deployment.tp"].get<int>();
  const std::string tier = a["deployment.engram_tier"].get<std::string>();
  const int c = a["workload.concurrency"].get<int>();
  if (delay_ms > 0)
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms * (1 + static_cast<int>((p.index * 7) % 3))));
  if (tp == 2 && tier == "hbm" && c > 8)
    return Outcome::infeasible("HBM: KV pool short by " + std::to_string(c) + " GiB");
  if (tp == 4 && tier == "ssd" && c == 32) throw std::runtime_error("simulated failure");
  const double tier_penalty = tier == "hbm" ? 1.0 : tier == "dram" ? 1.1 : 1.6;
  nlohmann::json r;
  r["interactivity"] = 1000.0 / (10.0 * tier_penalty * (1.0 + c / 16.0) / std::sqrt(tp));
  r["throughput_per_gpu"] = c * r["interactivity"].get<double>() * 2.0 / tp;
  r["label"] = p.label();
  return Outcome::ok(r);
}

}  // namespace engramsim::planner::testing
