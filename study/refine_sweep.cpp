#include "study/refine_sweep.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "core/stop_signal.hpp"
#include "planner/refine.hpp"
#include "planner/report_data.hpp"

namespace engramsim::study {

namespace {

// One line per round on the progress stream (none with --progress none): what the round adds.
void announce_round(const planner::SweepRunOptions& o, int round, std::size_t points, std::size_t grown,
                    double target) {
  if (o.progress == planner::ProgressMode::none) return;
  std::ostream& os = o.progress_stream != nullptr ? *o.progress_stream : std::cerr;
  os << "refinement round " << round << ": " << points << (points == 1 ? " point" : " points") << " near " << target
     << " tok/s/user (" << points - grown << " between points bracketing it, " << grown << " past the grid's ends)\n";
}

// The results through `round` of the configurations in scope.
planner::ReportData in_scope(const std::string& out, int round, const RefineScope& scope) {
  planner::ReportData d = planner::load_results_through_round(out, round);
  if (scope.includes)
    d.points.erase(std::remove_if(d.points.begin(), d.points.end(),
                                  [&](const planner::ReportPoint& p) { return !scope.includes(p.config); }),
                   d.points.end());
  return d;
}

}  // namespace

RefineRun refine_scope(const PlannerScenario& sc, const ScenarioEvaluator& evaluator, planner::SweepRunOptions o,
                       const std::string& out, int rounds, const RefineScope& scope) {
  RefineRun run;
  run.last_round = scope.first_round - 1;
  if (!sc.report.target_interactivity || rounds <= 0) return run;
  const double x = *sc.report.target_interactivity;
  std::vector<planner::SweepPoint> known = sc.sweep.points;
  for (int round = scope.first_round; round < scope.first_round + rounds; ++round) {
    // What the grid and the earlier rounds found, and nothing more: after a kill, this round's
    // and later rounds' points may already be on disk, and a resumed run must decide as the
    // uninterrupted one did (the same points, the same stop), so that it writes the same bytes.
    const planner::ReportData before = in_scope(out, round - 1, scope);
    const std::vector<planner::SweepPoint> next = refinement_points(before, known, x);
    if (next.empty()) break;
    const std::size_t grown = extension_points(before, known, x).size();
    const bool growing = grown > 0;
    announce_round(o, round, next.size(), grown, x);
    o.out_dir = planner::refine_round_dir(out, round);
    std::filesystem::create_directories(o.out_dir);
    const planner::SweepRunSummary s = run_sweep(
        next, [&](const planner::SweepPoint& p) { return evaluator.evaluate(p); }, o);
    if (s.stopped)
      throw RunStopped("stopped in refinement round " + std::to_string(round) + " at a point boundary (" +
                       std::to_string(s.already_done + s.evaluated) + " of its " + std::to_string(next.size()) +
                       " points are in " + s.results_file.string() + ")");
    if (!s.complete)
      throw std::runtime_error("refinement round " + std::to_string(round) + " stopped; rerun with --resume");
    run.points += next.size();
    run.last_round = round;
    known.insert(known.end(), next.begin(), next.end());
    const double moved = largest_change(compare_at(before, x), planner::compare_at(in_scope(out, round, scope), x));
    if (moved < planner::kRefineSettled && !growing) break;
  }
  return run;
}

std::size_t refine_near_target(const PlannerScenario& sc, const ScenarioEvaluator& evaluator,
                               planner::SweepRunOptions o, const std::string& out, int rounds) {
  return refine_scope(sc, evaluator, std::move(o), out, rounds, RefineScope{}).points;
}

}  // namespace engramsim::study
