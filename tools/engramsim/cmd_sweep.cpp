// `engramsim sweep SCENARIO.yaml --out DIR`: expand the scenario's `sweep:` block, simulate every
// point (points whose deployment does not fit are pruned by the footprint model, with the reason
// recorded), stream DIR/results.jsonl, and write the report (report.html, report.md, charts/,
// tables/) when every point is in.
//
//   --jobs N        worker threads (results do not depend on it)
//   --resume        continue an interrupted run (finished points are kept, a torn line is cut)
//   --shard i/N     run one Slurm-array slice into results.shard-i-of-N.jsonl (then `engramsim merge`)
//   --accept-version-change  let --resume/--shard add to results of another engramsim version
//   --set k=v       override a scenario key first (also sweep keys: --set sweep.axes.0.values=[hbm])
//   --calibration F a measured profile for the points on its GPU (repeatable, one per GPU)
//   --progress M    auto | bar | lines | none
//   --refine-rounds N  rounds of concurrency refinement near the target interactivity (default 8, 0: none)
// Under `mpirun -np K` the ranks split the points and rank 0 writes. Exit codes: 0 ok (infeasible
// points are results, not failures); 1 some points failed with an error (see their lines) or I/O;
// 2 bad input (nothing is written); 5 the folder's results were computed from other inputs (named);
// 6 another process owns the folder (5 and 6 change nothing); 7 SIGINT/SIGTERM stopped it at a point
// boundary (the command to resume is printed). Formats and the walk-through: docs/planning.md.
#include <iostream>
#include <memory>
#include <string>

#include "planner/report_data.hpp"
#include "planner/results_file.hpp"
#include "report/report_writer.hpp"
#include "study/planner_scenario.hpp"
#include "study/refine_sweep.hpp"
#include "study/scenario_evaluator.hpp"
#include "tools/engramsim/cli_common.hpp"
#include "tools/engramsim/planner_cli.hpp"

namespace engramsim::cli {
namespace {

struct PointCounts {
  std::size_t ok = 0, infeasible = 0, errors = 0;
};

PointCounts count_points(const planner::ReportData& data) {
  PointCounts c;
  for (const auto& p : data.points) {
    c.ok += p.status == planner::PointStatus::ok;
    c.infeasible += p.status == planner::PointStatus::infeasible;
    c.errors += p.status == planner::PointStatus::error;
  }
  return c;
}

// --json: the run's counts, the outcome of every point, the report's path and the recommendation.
void print_sweep_json(const planner::SweepRunSummary& s, const PointCounts& c, const std::string& report,
                      const planner::Recommendation& rec, std::size_t refined, const std::string& serve) {
  nlohmann::json j = sweep_summary_json(s);
  j["refined"] = refined;
  j["ok"] = c.ok;
  j["infeasible"] = c.infeasible;
  j["errors"] = c.errors;
  j["report"] = report;
  j["serve_command"] = serve;
  j["recommendation"] = {{"found", rec.found},
                         {"config", rec.config},
                         {"tokens_per_dollar", rec.tokens_per_dollar},
                         {"interactivity", rec.interactivity},
                         {"past_kv_wall", rec.past_wall},
                         {"past_kv_wall_better", rec.past_wall_better},
                         {"text", rec.text}};
  std::cout << j.dump(2) << "\n";
}

}  // namespace

int sweep_command(const SweepCliArgs& a) {
  // First: under mpirun every rank must join before anything else can fail differently on one.
  const std::unique_ptr<planner::MpiSession> mpi = planner::MpiSession::start_if_launched();
  const bool writer = !mpi || mpi->rank() == 0;
  install_stop_handlers();
  check_output_folder(a.out);

  const study::PlannerScenario sc = study::load_planner_scenario(a.scenario, a.set);
  if (writer && sc.sweep.spec.dimensions.empty())
    std::cerr << "note: " << a.scenario << " has no sweep: block; its base is the one point evaluated"
              << (static_cast<const YAML::Node&>(sc.sweep.base)["compare"]
                      ? " (compare: variants run with engramsim run)"
                      : "")
              << "\n";
  study::ScenarioEvaluator evaluator(sc.file, sc.sweep.base, study::load_calibration_overrides(a.calibrations));
  const study::SweepInputs inputs = evaluator.validate(sc.sweep.points);
  planner::SweepRunOptions o =
      sweep_run_options(a, mpi.get(),
                        study::results_fingerprint(sc.sweep, "sweep-v1 cdf=" + std::to_string(evaluator.cdf_samples()) +
                                                                 " refine_rounds=" + std::to_string(a.refine_rounds) +
                                                                 evaluator.calibrations().fingerprint),
                        inputs);

  std::unique_ptr<planner::FolderLock> lock = own_output_folder(o);
  const planner::SweepRunSummary s = planner::run_sweep(
      sc.sweep.points, [&](const planner::SweepPoint& p) { return evaluator.evaluate(p); }, o);
  if (!writer) return exit_code::ok;
  throw_if_stopped(s, "the sweep");
  // Refinement runs here, on the writer alone (under MPI the other ranks are done); a sharded run
  // stops at the grid (its shards hold halves of it).
  o.mpi = nullptr;
  if (!lock) lock = own_output_folder(o);

  planner::ReportContext ctx = study::make_report_context(sc, inputs);
  ctx.tool = tool_version();
  ctx.overrides = a.set;
  planner::write_context(a.out, ctx);
  if (o.shard.count > 1) {
    if (a.json) {
      print_shard_json(s, o.shard, std::cout);
    } else {
      print_sweep_summary(s, std::cout);
      std::cout << "shard " << o.shard.index << "/" << o.shard.count << " done: " << s.results_file.string()
                << "\nwhen every shard is done: engramsim merge " << a.out << " --shards " << o.shard.count << "\n";
    }
    return s.errors > 0 ? exit_code::failure : exit_code::ok;
  }
  if (!s.complete) {
    if (!a.json) print_sweep_summary(s, std::cout);
    std::cerr << "error: the sweep stopped before every point was evaluated; rerun with --resume\n";
    return exit_code::failure;
  }
  const std::size_t refined = study::refine_near_target(sc, evaluator, o, a.out, a.refine_rounds);
  const planner::ReportData data = planner::load_results(a.out);
  report::write_report(data, a.out);
  if (const auto none = planner::nothing_fits(data)) return report_nothing_fits(*none, s, a.json);
  const PointCounts counts = count_points(data);
  const std::string report = (std::filesystem::path(a.out) / "report.html").string();
  const planner::Recommendation rec = planner::recommend(data);
  const std::string serve =
      rec.found ? write_serve_command(evaluator, data, rec.config, rec.interactivity, a.out, rec.past_wall)
                : std::string();
  if (a.json) {
    print_sweep_json(s, counts, report, rec, refined, serve);
  } else {
    // The answer first; how it was reached after it.
    std::cout << rec.text << "\n\n";
    print_sweep_summary(s, std::cout);
    std::cout << counts.ok << " ok, " << counts.infeasible << " infeasible (pruned), " << counts.errors << " errors";
    if (refined > 0) std::cout << " (" << refined << " of them added near the target interactivity)";
    std::cout << "\n";
    print_validation_accuracy(ctx, std::cout);
    std::cout << "report: " << report << "\n";
    if (!serve.empty()) std::cout << "deploy: " << serve << " (the recommended configuration's engine command line)\n";
  }
  if (counts.errors > 0) {
    std::cerr << "error: " << counts.errors << " points failed; their lines in results.jsonl carry the message\n";
    return exit_code::failure;
  }
  return exit_code::ok;
}

void add_sweep_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("sweep", "Simulate every point of a scenario's sweep and write the sizing report");
  auto a = std::make_shared<SweepCliArgs>();
  add_sweep_cli_options(cmd, *a);
  cmd->callback([&action, a] {
    action = [a] {
      append_price_sets(a->price, a->set);
      return sweep_command(*a);
    };
  });
}

}  // namespace engramsim::cli
