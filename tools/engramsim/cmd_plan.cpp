// `engramsim plan SCENARIO.yaml --out DIR`: size a fleet for a target load within an SLO.
//
// The scenario's sweep axes are the candidate deployments; `sweep.plan` gives the target load
// (requests/s or tokens/s) and the search settings; `slo:` is the SLO. For each candidate the
// highest request rate one replica sustains is found by simulation (study/rate_planner.hpp),
// then replicas, whole nodes, $/hour and $/M tokens at the target, the ranking, and its sensitivity
// to the price tier and to +-20 % load. Candidates run as sweep points, so --jobs, --resume,
// --shard (then `engramsim merge`, then `plan --resume` to size) and mpirun work as for `sweep`.
// A closed-loop plan with a target in tokens/s bounds its disaggregated candidates by their
// rate-matching bound and does not simulate one that cannot beat or tie a candidate already
// simulated (study/pruned_plan.hpp); --no-prune simulates them all.
// Exit codes: 0 a fleet meets the SLO; 4 no candidate meets it at any rate; 1 errors or I/O;
// 2 bad input (nothing is written); 5, 6 the folder refused (as for sweep); 7 SIGINT/SIGTERM stopped
// it at a point boundary (the command to resume is printed).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "core/number_text.hpp"
#include "planner/bound_prune.hpp"
#include "planner/frontier_plan.hpp"
#include "planner/report_data.hpp"
#include "planner/results_file.hpp"
#include "report/report_writer.hpp"
#include "study/planner_scenario.hpp"
#include "study/pruned_plan.hpp"
#include "study/rate_planner.hpp"
#include "study/refine_sweep.hpp"
#include "study/scenario_evaluator.hpp"
#include "tools/engramsim/cli_common.hpp"
#include "tools/engramsim/planner_cli.hpp"

namespace engramsim::cli {
namespace {

std::string fixed(double v, int digits) { return fixed_digits(v, digits); }

// --json: the run's counts and the ranking (cheapest first) with each candidate's fleet.
nlohmann::json plan_json(const planner::SweepRunSummary& s, const planner::FleetPlanResult& fleet,
                         const std::string& report) {
  nlohmann::json ranking = nlohmann::json::array();
  for (const planner::RankedPlan& r : fleet.ranking) {
    const planner::FleetPlan& p = r.plan;
    ranking.push_back({{"name", r.name},
                       {"replicas", p.replicas},
                       {"nodes", p.nodes},
                       {"gpus", p.gpus},
                       {"max_rate_per_replica", p.max_rate_per_replica},
                       {"utilization", p.utilization},
                       {"usd_per_hour", p.cost_per_hour.value()},
                       {"gpu_usd_per_hour", p.gpu_cost_per_hour.value()},
                       {"storage_usd_per_hour", p.storage_cost_per_hour.value()},
                       {"usd_per_million_tokens", p.usd_per_million_tokens},
                       {"past_kv_wall", r.past_kv_wall}});
  }
  nlohmann::json j = sweep_summary_json(s);
  j["target_rate"] = fleet.target_rate;
  j["tokens_per_request"] = fleet.tokens_per_request;
  j["ranking"] = ranking;
  j["winner_stable"] = fleet.sensitivity.winner_stable;
  j["notes"] = fleet.notes;
  j["report"] = report;
  return j;
}

// The verdict first (the recommendation is the first note), then the table and the counts.
void print_fleet_plan(const planner::FleetPlanResult& fleet, const planner::SweepRunSummary& s,
                      const planner::ReportContext& ctx, const std::string& report) {
  for (const auto& n : fleet.notes) std::cout << n << "\n\n";
  print_sweep_summary(s, std::cout);
  for (const auto& t : fleet.tables) {
    if (t.name != "fleet_plan") continue;
    std::cout << "\n" << t.title << "\n";
    TextTable tt(t.columns);
    for (const auto& r : t.rows) tt.add_row(r);
    std::cout << tt.render();
  }
  std::cout << "\n";
  print_validation_accuracy(ctx, std::cout);
  std::cout << "report: " << report << "\n";
}

// Workloads driven by their clients (closed loop, agentic replay) are sized from the frontier at
// the target interactivity (planner/frontier_plan.hpp) instead of by a rate search.
bool frontier_mode(const study::PlannerScenario& sc, const study::SweepInputs& in) {
  if (!sc.report.target_interactivity || in.workload_kinds.empty()) return false;
  for (const auto k : in.workload_kinds)
    if (k != scenario::WorkloadKind::closed_loop && k != scenario::WorkloadKind::agentx) return false;
  return true;
}

void print_table(const planner::Table& t) {
  std::cout << t.title << "\n";
  TextTable tt(t.columns);
  for (const auto& r : t.rows) tt.add_row(r);
  std::cout << tt.render() << "\n";
}

void print_frontier_plan(const planner::FrontierPlan& f, const std::optional<planner::Table>& gap,
                         const planner::ReportContext& ctx, const std::string& report) {
  std::cout << f.verdict << "\n\n";
  print_table(f.table);
  if (gap) print_table(*gap);
  print_validation_accuracy(ctx, std::cout);
  std::cout << "report: " << report << "\n";
}

// The plan's verdict and tables into the context, then the report rebuilt with them; the results.
planner::ReportData report_with_verdict(const std::string& out, const std::string& verdict,
                                        std::vector<planner::Table> tables, planner::ReportContext& ctx) {
  ctx.notes.push_back(verdict);
  ctx.extra_tables = std::move(tables);
  planner::write_context(out, ctx);
  planner::ReportData data = planner::load_results(out);
  report::write_report(data, out);
  return data;
}

// A power budget instead of a load: the most tokens inside it, the verdict first.
int power_plan_output(const SweepCliArgs& a, const study::PlannerScenario& sc,
                      const study::ScenarioEvaluator& evaluator, const planner::SweepRunSummary& s,
                      planner::ReportContext& ctx) {
  const planner::PowerPlan f = planner::plan_in_power(planner::load_results(a.out), *sc.report.target_interactivity,
                                                      sc.plan->target.power_mw, sc.plan->target_utilization);
  const planner::ReportData data = report_with_verdict(a.out, f.verdict, {f.table}, ctx);
  const std::string report = (std::filesystem::path(a.out) / "report.html").string();
  const bool found = !f.ranking.empty() && f.ranking.front().tokens_per_s > 0.0;
  const std::string serve =
      found ? write_serve_command(evaluator, data, f.ranking.front().config, *sc.report.target_interactivity, a.out,
                                  f.ranking.front().past_wall)
            : std::string();
  if (a.json) {
    nlohmann::json j = sweep_summary_json(s);
    j["verdict"] = f.verdict;
    j["ranking"] = nlohmann::json::array();
    for (const auto& r : f.ranking)
      j["ranking"].push_back({{"name", r.config},
                              {"nodes", r.nodes},
                              {"gpus", r.gpus},
                              {"tokens_per_s", r.tokens_per_s},
                              {"usd_per_hour", r.usd_per_hour},
                              {"past_kv_wall", r.past_wall}});
    j["report"] = report;
    j["serve_command"] = serve;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << f.verdict << "\n\n" << f.table.title << "\n";
    TextTable tt(f.table.columns);
    for (const auto& r : f.table.rows) tt.add_row(r);
    std::cout << tt.render() << "\n";
    print_validation_accuracy(ctx, std::cout);
    std::cout << "report: " << report << "\n";
    if (!serve.empty()) std::cout << "deploy: " << serve << " (the largest fleet's engine command line)\n";
  }
  if (s.errors > 0) return exit_code::failure;
  return found ? exit_code::ok : exit_code::check_failed;
}

// After the frontier plan's points and refinement: whole nodes at the target load, the verdict first.
int frontier_plan_output(const SweepCliArgs& a, const study::PlannerScenario& sc,
                         const study::ScenarioEvaluator& evaluator, const planner::SweepRunSummary& s,
                         planner::ReportContext& ctx, const study::PlanBounds* bounds) {
  if (const auto none = planner::nothing_fits(planner::load_results(a.out))) {
    report::write_report(planner::load_results(a.out), a.out);
    return report_nothing_fits(*none, s, a.json);
  }
  const planner::PlanTarget& t = sc.plan->target;
  if (t.power_mw > 0.0) return power_plan_output(a, sc, evaluator, s, ctx);
  const double x = *sc.report.target_interactivity;
  const planner::ReportData results = planner::load_results(a.out);
  const planner::FrontierPlan f =
      planner::plan_at_interactivity(results, x, t.tokens_per_s, t.requests_per_s, sc.plan->target_utilization);
  std::optional<planner::Table> gap;
  if (bounds && !bounds->candidates.empty())
    gap = planner::bound_gap_table(results, x, bounds->candidates, bounds->target);
  std::vector<planner::Table> tables = {f.table};
  if (gap) tables.push_back(*gap);
  const planner::ReportData data = report_with_verdict(a.out, f.verdict, std::move(tables), ctx);
  const std::string report = (std::filesystem::path(a.out) / "report.html").string();
  const std::string serve = f.ranking.empty() ? std::string()
                                              : write_serve_command(evaluator, data, f.ranking.front().name, x, a.out,
                                                                    f.ranking.front().past_kv_wall);
  if (a.json) {
    nlohmann::json j = sweep_summary_json(s);
    j["verdict"] = f.verdict;
    j["ranking"] = nlohmann::json::array();
    for (const auto& r : f.ranking)
      j["ranking"].push_back({{"name", r.name},
                              {"replicas", r.plan.replicas},
                              {"nodes", r.plan.nodes},
                              {"gpus", r.plan.gpus},
                              {"usd_per_hour", r.plan.cost_per_hour.value()},
                              {"usd_per_million_tokens", r.plan.usd_per_million_tokens},
                              {"past_kv_wall", r.past_kv_wall}});
    j["tied"] = f.tied;
    j["report"] = report;
    j["serve_command"] = serve;
    if (gap) j["bound_gap"] = report::table_to_json(*gap);
    std::cout << j.dump(2) << "\n";
  } else {
    print_frontier_plan(f, gap, ctx, report);
    if (!serve.empty()) std::cout << "deploy: " << serve << " (the cheapest fleet's engine command line)\n";
  }
  if (s.errors > 0) return exit_code::failure;
  return f.ranking.empty() ? exit_code::check_failed : exit_code::ok;
}

// Whether a frontier plan bounds its disaggregated candidates (docs/planning.md "Pruning by a
// bound"): for a target in tokens/s. It prunes by the bounds unless --no-prune, in one process (MPI
// ranks would each have to read the stages' lines).
bool bounds_candidates(const study::PlannerScenario& sc) { return sc.plan->target.tokens_per_s > 0.0; }
bool prunes(const SweepCliArgs& a, const study::PlannerScenario& sc, const planner::MpiSession* mpi) {
  return bounds_candidates(sc) && !a.no_prune && mpi == nullptr;
}

// The frontier mode: the sweep's points (pruned by their bound where that applies) and refinement,
// then whole nodes at the target load.
int frontier_plan_command(const SweepCliArgs& a, const study::PlannerScenario& sc,
                          const study::ScenarioEvaluator& evaluator, const study::SweepInputs& inputs,
                          const planner::MpiSession* mpi) {
  planner::ReportContext ctx = study::make_report_context(sc, inputs);
  ctx.tool = tool_version();
  ctx.overrides = a.set;
  const std::optional<study::PlanBounds> bounds =
      bounds_candidates(sc) ? std::optional<study::PlanBounds>(study::bound_plan(sc, evaluator, ctx)) : std::nullopt;
  // Without a bounded candidate the staged run is the plain one: one stage, every configuration.
  const bool pruning = prunes(a, sc, mpi) && !bounds->candidates.empty();
  planner::SweepRunOptions o = sweep_run_options(
      a, mpi,
      study::results_fingerprint(sc.sweep, "plan-frontier-v1 cdf=" + std::to_string(evaluator.cdf_samples()) +
                                               " refine_rounds=" + std::to_string(a.refine_rounds) +
                                               evaluator.calibrations().fingerprint +
                                               (pruning ? bounds->fingerprint() : std::string())),
      inputs);
  if (o.shard.count > 1)
    throw ConfigError({sc.file, 0, 0}, "--shard", "a frontier plan (closed-loop or agentic workload) runs in one job");
  std::unique_ptr<planner::FolderLock> lock = own_output_folder(o);
  if (pruning) {
    // Grid and refinement in stages, the candidates whose bound cannot beat a simulated one pruned.
    const study::PrunedPlanRun run = study::run_pruned_plan(sc, evaluator, o, ctx, *bounds, a.refine_rounds);
    throw_if_stopped(run.grid, "the plan");
    if (!run.grid.complete) {
      std::cerr << "error: the plan stopped before every candidate was run; rerun with --resume\n";
      return exit_code::failure;
    }
    return frontier_plan_output(a, sc, evaluator, run.grid, ctx, &*bounds);
  }
  const planner::SweepRunSummary s = planner::run_sweep(
      sc.sweep.points, [&](const planner::SweepPoint& p) { return evaluator.evaluate(p); }, o);
  if (mpi && mpi->rank() != 0) return exit_code::ok;
  throw_if_stopped(s, "the plan");
  o.mpi = nullptr;
  if (!lock) lock = own_output_folder(o);
  if (!s.complete) {
    std::cerr << "error: the plan stopped before every candidate was run; rerun with --resume\n";
    return exit_code::failure;
  }
  planner::write_context(a.out, ctx);
  study::refine_near_target(sc, evaluator, o, a.out, a.refine_rounds);
  return frontier_plan_output(a, sc, evaluator, s, ctx, bounds ? &*bounds : nullptr);
}

int plan_command(const SweepCliArgs& a) {
  const std::unique_ptr<planner::MpiSession> mpi = planner::MpiSession::start_if_launched();
  const bool writer = !mpi || mpi->rank() == 0;
  install_stop_handlers();
  check_output_folder(a.out);

  const study::PlannerScenario sc = study::load_planner_scenario(a.scenario, a.set);
  if (!sc.plan)
    throw ConfigError({sc.file, 0, 0}, "sweep.plan",
                      "engramsim plan needs a sweep.plan block with the target load (docs/planning.md)");
  study::ScenarioEvaluator evaluator(sc.file, sc.sweep.base, study::load_calibration_overrides(a.calibrations));
  const study::SweepInputs inputs = evaluator.validate(sc.sweep.points);
  if (frontier_mode(sc, inputs)) return frontier_plan_command(a, sc, evaluator, inputs, mpi.get());
  if (sc.plan->target.power_mw > 0.0)
    throw ConfigError({sc.file, 0, 0}, "sweep.plan.target.power_mw",
                      "a power budget sizes a closed-loop or agentic plan with a target interactivity; this plan "
                      "searches request rates");
  const study::RatePlanner rate_planner(evaluator, *sc.plan);
  rate_planner.validate(sc.sweep.points);
  planner::SweepRunOptions o = sweep_run_options(
      a, mpi.get(),
      study::results_fingerprint(sc.sweep, sc.plan->evaluation_key() + evaluator.calibrations().fingerprint), inputs);

  std::unique_ptr<planner::FolderLock> lock = own_output_folder(o);
  const planner::SweepRunSummary s = planner::run_sweep(
      sc.sweep.points, [&](const planner::SweepPoint& p) { return rate_planner.evaluate(p); }, o);
  if (!writer) return exit_code::ok;
  throw_if_stopped(s, "the plan");
  o.mpi = nullptr;
  if (!lock) lock = own_output_folder(o);
  planner::ReportContext ctx = study::make_report_context(sc, inputs);
  ctx.tool = tool_version();
  ctx.overrides = a.set;
  // Candidates are probed at a rate, not a client count: the x of the stall chart and the
  // "at ..." of the recommendation are the mean requests in the probed node (Little's law).
  ctx.curve_axis = "requests in system";
  if (o.shard.count > 1) {
    planner::write_context(a.out, ctx);
    if (a.json) {
      print_shard_json(s, o.shard, std::cout);
    } else {
      print_sweep_summary(s, std::cout);
      std::cout << "shard " << o.shard.index << "/" << o.shard.count
                << " done; when every shard is done: engramsim merge " << a.out << " --shards " << o.shard.count
                << ", then engramsim plan " << a.scenario << " --out " << a.out
                << " --resume (sizes the fleet without simulating again)\n";
    }
    return s.errors > 0 ? exit_code::failure : exit_code::ok;
  }
  if (!s.complete) {
    if (!a.json) print_sweep_summary(s, std::cout);
    std::cerr << "error: the plan stopped before every candidate was searched; rerun with --resume\n";
    return exit_code::failure;
  }

  const auto lines = planner::read_results_file(planner::results_path(a.out)).lines;
  const planner::FleetPlanResult fleet = planner::plan_fleet(lines, *sc.plan, inputs.price_tier, sc.sweep.spec.keys());
  ctx.notes.insert(ctx.notes.end(), fleet.notes.begin(), fleet.notes.end());
  ctx.extra_tables = fleet.tables;
  const planner::PlanSettings& ps = *sc.plan;
  ctx.assumptions.push_back({"target load",
                             ps.target.requests_per_s > 0 ? fixed(ps.target.requests_per_s, 3) + " req/s"
                                                          : fixed(ps.target.tokens_per_s, 0) + " tok/s",
                             "scenario sweep.plan.target", "assumed"});
  ctx.assumptions.push_back({"overload guard", "queue p99 <= " + fixed(ps.max_queue_p99.seconds(), 2) + " s",
                             "scenario sweep.plan.max_queue_p99", "assumed"});
  ctx.assumptions.push_back({"requests per probe and replica", std::to_string(ps.probe_requests),
                             "scenario sweep.plan.probe_requests", "assumed"});
  planner::write_context(a.out, ctx);
  const planner::ReportData data = planner::load_results(a.out);
  report::write_report(data, a.out);
  if (const auto none = planner::nothing_fits(data)) return report_nothing_fits(*none, s, a.json);

  std::size_t errors = 0;
  for (const auto& l : lines) errors += l.status == planner::PointStatus::error;
  const std::string report = (std::filesystem::path(a.out) / "report.html").string();
  if (a.json)
    std::cout << plan_json(s, fleet, report).dump(2) << "\n";
  else
    print_fleet_plan(fleet, s, ctx, report);
  if (errors > 0) {
    std::cerr << "error: " << errors << " candidates failed; their lines in results.jsonl carry the message\n";
    return exit_code::failure;
  }
  if (fleet.ranking.empty()) {
    std::cerr << "no candidate meets the SLO at any probed rate\n";
    return exit_code::check_failed;
  }
  return exit_code::ok;
}

}  // namespace

void add_plan_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("plan", "Find the cheapest fleet that serves a target load within the SLO");
  auto a = std::make_shared<SweepCliArgs>();
  add_sweep_cli_options(cmd, *a);
  cmd->add_flag("--no-prune", a->no_prune,
                "Simulate every disaggregated candidate, also those whose rate-matching bound cannot beat a "
                "simulated one");
  cmd->callback([&action, a] {
    action = [a] {
      append_price_sets(a->price, a->set);
      return plan_command(*a);
    };
  });
}

}  // namespace engramsim::cli
