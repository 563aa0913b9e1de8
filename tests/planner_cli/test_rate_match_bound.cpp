// The rate-matching bound (study/rate_match.hpp, study/plan_bound.hpp) is an upper bound on the
// shipped disaggregated scenarios: a plan prunes with it, so no simulated point may beat it.
// Tolerance: none. Every disaggregated point's simulated throughput per GPU is at most its bound,
// both the bound of the run (the run's mean request, prefix hits and median interactivity) and the
// bound before the run a plan prunes with (the requests the run will draw), taken at the
// interactivity the point reached. The DeepSeek-R1 sweeps run at more client counts than they ship
// with (down to 4 per unit, where a decode replica's batch is small and the bound is tightest).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_test_util.hpp"
#include "study/planner_scenario.hpp"
#include "study/scenario_evaluator.hpp"

namespace engramsim::study {
namespace {

// Evaluates every disaggregated point of the scenario and checks both bounds; returns the points checked.
int check_disaggregated_points(const std::string& scenario, const std::vector<std::string>& set) {
  const PlannerScenario sc = load_planner_scenario(engramsim::test::source_root() + "/" + scenario, set);
  ScenarioEvaluator evaluator(sc.file, sc.sweep.base);
  evaluator.validate(sc.sweep.points);
  int checked = 0;
  for (const auto& p : sc.sweep.points) {
    const nlohmann::json a = p.assignments_json();
    if (a.contains("deployment") && a["deployment"].value("kind", "") != "disaggregated") continue;
    const planner::Outcome o = evaluator.evaluate(p);
    EXPECT_EQ(o.status, planner::PointStatus::ok) << scenario << " " << p.label() << ": " << o.reason;
    if (o.status != planner::PointStatus::ok) continue;
    const double simulated = o.result.at("throughput_per_gpu").get<double>();
    // A closed loop's interactivity is its median one (an agentic replay has no bound before the run).
    const double interactivity = o.result.at("interactivity").get<double>();
    const nlohmann::json& m = o.result.at("extra").at("rate_match");
    EXPECT_LE(simulated, m.at("tok_per_s_per_gpu").get<double>()) << scenario << " " << p.label() << ": " << m;
    EXPECT_LE(m.at("simulated_share").get<double>(), 1.0) << scenario << " " << p.label();
    const PointBound before = evaluator.bound_before_run(p, interactivity);
    if (before.bound)
      EXPECT_LE(simulated, before.bound->tokens_per_s_per_gpu)
          << scenario << " " << p.label() << " at " << interactivity << " tok/s/user";
    ++checked;
  }
  return checked;
}

const std::string kMoreClients = "sweep.axes.1={key: workload.concurrency, values: [4, 6, 8, 14, 20, 32, 128, 512]}";

TEST(RateMatchBound, NoDeepSeekR1PointOnB200BeatsItsBound) {
  EXPECT_EQ(check_disaggregated_points("scenarios/disagg-dsr1-b200.yaml", {kMoreClients}), 24);
}

TEST(RateMatchBound, NoDeepSeekR1PointOnGb200BeatsItsBound) {
  EXPECT_EQ(check_disaggregated_points("scenarios/disagg-dsr1-gb200.yaml", {kMoreClients}), 24);
}

// The AgentX replay draws its requests as it runs: it has the bound of its run only.
TEST(RateMatchBound, TheAgentxRunDoesNotBeatItsBound) {
  EXPECT_EQ(check_disaggregated_points("scenarios/disagg-v41-agentx-b200.yaml", {}), 1);
}

}  // namespace
}  // namespace engramsim::study
