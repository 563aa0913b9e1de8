// `engramsim run SCENARIO.yaml`: simulate a scenario (or each of its `compare:` variants) and print
// the headline numbers: throughput per GPU, TTFT/TPOT/ITL p50 and p99, interactivity, Engram stall
// share, KV usage and tokens per dollar; with variants, side by side with ratios to the first.
//
//   --set key.path=value  override a scenario key (repeatable; planner/sweep_spec.hpp key paths); it
//                         wins over a variant's own `set:` entry, with a warning on stderr
//   --out DIR             write summary.json, requests.csv, timeseries.csv, scenario.json (per-variant
//                         subfolders and compare.json when comparing)
//   --json                print the summary JSON instead of tables
//   --calibration FILE    apply this profile instead of the scenario's (repeatable: one per GPU)
//   --jobs N              run variants in N threads (results do not depend on it)
//   --check-slo           exit 4 when a run misses an `slo:` target
//   --write-golden FILE / --check-golden FILE   keep / compare a golden summary (scenario_golden.hpp)
//   --trace-out FILE      write a Chrome/Perfetto trace (steps, Engram fetches, fabric flows) of the
//                         first --trace-window of the run (default 10s); with variants, FILE gets
//                         "-<variant>" before its extension
// Exit codes: 0 ok; 2 bad input (file:line:col: field: message); 3 a variant does not fit (the
// others still run and print); 4 an SLO target or golden tolerance missed. Schema: docs/scenarios.md.
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/number_text.hpp"
#include "core/unit_parse.hpp"
#include "hardware/board_power.hpp"
#include "planner/sweep_spec.hpp"
#include "scenario/build/scenario_golden.hpp"
#include "scenario/build/scenario_session.hpp"
#include "sim/metrics/summary_metrics.hpp"
#include "sim/serving/scheduler/scheduler_registry.hpp"
#include "study/scenario_evaluator.hpp"
#include "tools/engramsim/cli_common.hpp"
#include "tools/engramsim/run_progress.hpp"

namespace engramsim::cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::vector<std::string> set;
  PriceCliArgs price;
  std::string out;
  bool json = false;
  std::vector<std::string> calibrations;
  int jobs = 0;
  bool check_slo = false;
  std::string write_golden;
  std::string check_golden;
  std::string trace_out;
  std::string trace_window = "10s";
  std::string progress = "auto";  // auto (on when stderr is a terminal), lines, none
};

// FILE for a single run; FILE with "-<variant>" before its extension per compare variant.
std::string trace_path_for(const std::string& file, const std::string& variant) {
  if (variant.empty()) return file;
  const std::filesystem::path p(file);
  return (p.parent_path() / (p.stem().string() + "-" + variant + p.extension().string())).string();
}

std::string fixed(double v, int digits) { return std::isfinite(v) ? fixed_digits(v, digits) : "-"; }

std::string ratio_text(double a, double b) {
  if (!std::isfinite(a) || !std::isfinite(b) || b == 0.0) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3fx", a / b);
  return buf;
}

std::string label_of(const scenario::VariantOutcome& v) { return v.name.empty() ? std::string("run") : v.name; }

// A deployment's scheduler, price, host memory and KV pool, one line each.
void print_deployment_terms(const scenario::BuiltScenario& b, const std::string& indent) {
  std::cout << indent << "scheduler " << b.params.deployment.scheduler.policy.name << " ("
            << b.run.scheduler.max_num_seqs << " seqs, " << sim::step_token_budget(b.run.scheduler)
            << " tokens per step per replica"
            << (b.scheduler_ranks > 1 ? ", " + std::to_string(b.scheduler_ranks) + " attention ranks" : std::string())
            << "), engine " << b.params.deployment.engine;
  if (b.params.deployment.spec_decode.enabled)
    std::cout << ", spec decode " << b.params.deployment.spec_decode.draft_tokens << " drafts, acceptance "
              << fixed(b.params.deployment.spec_decode.acceptance_length, 2);
  std::cout << "\n"
            << indent << "price " << fixed(b.price.total().value(), 3) << " $/GPU-hour ("
            << to_string(b.params.price_tier) << " GPU " << fixed(b.price.gpu_hour.value(), 3) << " + Engram capacity "
            << fixed(b.price.engram_capacity.value(), 3) << ")";
  if (b.price.paid_per_used > 1.0)
    std::cout << "; whole nodes: " << fixed(b.price.paid_per_used, 3) << " GPUs paid per GPU used (idle GPUs), "
              << fixed(b.price.per_gpu_used().value(), 3) << " $/GPU-hour used";
  std::cout << "\n" << indent << b.host_memory_line() << "\n";
  std::cout << indent << "KV pool " << fixed(b.footprint.per_gpu.kv_pool.gib(), 1) << " GiB per GPU, "
            << with_commas(b.footprint.replica_kv_tokens)
            << " tokens per replica (engine log: " << with_commas(b.footprint.engine_logged_kv_tokens) << "), "
            << b.kv_blocks_per_replica << " blocks of " << b.params.deployment.scheduler.block_size << "\n";
}

// A disaggregated deployment: each pool's line and terms (the pool's own price), the KV transfer,
// and the one price the run charges per GPU-hour.
void print_disaggregated(const scenario::BuiltScenario& b, const std::string& indent) {
  const std::vector<std::string> lines = b.deployment_lines();
  std::cout << b.card.name << ", disaggregated over " << b.run_gpus() << " GPUs:\n";
  std::cout << indent << lines[0] << "\n";
  print_deployment_terms(*b.prefill_pool, indent + "  ");
  std::cout << indent << lines[1] << "\n";
  print_deployment_terms(b, indent + "  ");
  std::cout << indent << lines[2] << "\n";
  if (b.run.price_per_gpu_hour)
    std::cout << indent << "run price " << fixed(b.run.price_per_gpu_hour->value(), 3)
              << " $/GPU-hour (the pools' prices weighted by their GPUs)\n";
}

// `cli_sets`: the command line's --set arguments, which take precedence over a variant's own set.
void print_header(const scenario::ScenarioSession& s, const std::vector<scenario::SetArgument>& cli_sets) {
  std::cout << "Scenario " << s.name;
  if (!s.description.empty()) std::cout << ": " << s.description;
  std::cout << "\n";
  bool calibration_shown = false;
  for (const auto& v : s.variants) {
    std::cout << "\n" << (s.compare ? "[" + v.name + "] " : std::string());
    if (!v.set.empty()) {
      std::cout << "set";
      for (const auto& [k, val] : v.set) {
        std::cout << " " << k << "=" << val;
        for (const auto& c : cli_sets)
          if (c.key == k) std::cout << " (overridden: --set " << c.key << "=" << c.value << ")";
      }
      std::cout << "\n" << (s.compare ? std::string(v.name.size() + 3, ' ') : std::string());
    }
    if (!v.built) {
      std::cout << "does not fit: " << v.infeasible << "\n";
      continue;
    }
    const scenario::BuiltScenario& b = *v.built;
    const std::string indent = s.compare ? std::string(v.name.size() + 3, ' ') : std::string();
    if (b.prefill_pool) {
      print_disaggregated(b, indent);
    } else {
      std::cout << b.card.name << ": " << b.deployment_line() << "\n";
      print_deployment_terms(b, indent);
    }
    std::cout << indent << "workload: " << b.params.workload.description << "\n";
    if (b.params.calibration && !calibration_shown) {
      calibration_shown = true;
      std::cout << indent << "calibration " << b.params.calibration_path << ":\n";
      for (const auto& sec : b.calibration_sections)
        std::cout << indent << "  " << sec.name << ": " << to_string(sec.state)
                  << (sec.detail.empty() ? std::string() : " (" + sec.detail + ")") << "\n";
      for (const auto& line : b.calibration_applied.notes) std::cout << indent << "  note: " << line << "\n";
      for (const auto& line : b.calibration_applied.applied) std::cout << indent << "  applied: " << line << "\n";
    } else if (!b.params.calibration && !calibration_shown) {
      calibration_shown = true;
      std::cout << indent << "calibration: none (default efficiencies and curves)\n";
    }
  }
}

// The variants ran at the same load, so a ratio above is not a verdict when their interactivity
// differs: say so, and where the answer at equal interactivity comes from.
void print_equal_concurrency_note(
    const std::vector<std::pair<const scenario::VariantOutcome*, const scenario::VariantOutcome*>>& ratios) {
  const auto interactivity = [](const sim::Summary& s) { return s.windowed ? s.p90_e2e_norm_intvty : s.median_intvty; };
  std::string differs;
  for (const auto& [v, base] : ratios) {
    const double r = interactivity(v->result->summary) / interactivity(base->result->summary);
    if (std::isfinite(r) && std::abs(r - 1.0) > 0.05)
      differs += (differs.empty() ? "" : ", ") + label_of(*v) + " " + fixed(r, 3) + "x of " + label_of(*base);
  }
  if (differs.empty()) return;
  std::cout << "\nThese are equal-load comparisons, not a verdict: interactivity differs (" << differs
            << "). For the answer at equal interactivity, sweep the concurrency and set "
               "sweep.report.target_interactivity (engramsim sweep; docs/planning.md \"The verdict\").\n";
}

// The energy rows (docs/cost-model.md "Energy"): each variant's mean GPU board power from its GPU's
// load-following curve, and J per output token at the board and at the meter; "-" for a GPU
// without a curve.
void add_energy_rows(
    const std::vector<const scenario::VariantOutcome*>& ran,
    const std::vector<std::pair<const scenario::VariantOutcome*, const scenario::VariantOutcome*>>& ratios,
    TextTable& t) {
  const BoardPowerTable power = load_board_power(default_board_power_path());
  const auto figures = [&](const scenario::VariantOutcome& v) -> std::array<double, 3> {
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    const BoardPowerCurve* c = power.find(v.built->params.node.gpu.name);
    if (c == nullptr) return {kNaN, kNaN, kNaN};
    const sim::Summary& s = v.result->summary;
    const double w = board_watts(*c, s.gpu_busy_fraction, s.mean_decode_rows);
    const EnergyPerToken e = energy_per_output_token(w, s.num_gpus, s.duration_s,
                                                     static_cast<double>(s.total_output_tokens), power.facility);
    return {w, e.board_j, e.facility_j};
  };
  const std::array<std::pair<const char*, int>, 3> labels = {
      {{"GPU board W (load-following)", 0}, {"J/output tok, GPU board", 3}, {"J/output tok, facility", 3}}};
  for (std::size_t i = 0; i < labels.size(); ++i) {
    std::vector<std::string> line = {labels[i].first};
    for (const auto* v : ran) line.push_back(fixed(figures(*v)[i], labels[i].second));
    for (const auto& [v, base] : ratios) line.push_back(ratio_text(figures(*v)[i], figures(*base)[i]));
    t.add_row(line);
  }
}

void print_table(const scenario::ScenarioSession& s) {
  std::vector<const scenario::VariantOutcome*> ran;
  for (const auto& v : s.variants)
    if (v.result) ran.push_back(&v);
  if (ran.empty()) return;
  // One ratio column per variant that has a baseline which ran.
  std::vector<std::pair<const scenario::VariantOutcome*, const scenario::VariantOutcome*>> ratios;
  for (const auto* v : ran) {
    const scenario::VariantOutcome* base = v->baseline.empty() ? nullptr : s.find(v->baseline);
    if (base && base->result) ratios.emplace_back(v, base);
  }
  std::vector<std::string> header = {"METRIC"};
  for (const auto* v : ran) header.push_back(label_of(*v));
  for (const auto& [v, base] : ratios) header.push_back(label_of(*v) + "/" + label_of(*base));
  TextTable t(header);
  std::vector<std::string> done = {"requests done/total"};
  for (const auto* v : ran)
    done.push_back(std::to_string(v->result->summary.completed) + "/" +
                   std::to_string(v->result->summary.num_requests));
  done.resize(header.size());
  bool any_rejected = false;
  for (const auto* v : ran) any_rejected = any_rejected || v->result->summary.rejected > 0;
  std::vector<std::string> rejected = {"requests rejected"};  // longer than max_model_len or the KV pool
  for (const auto* v : ran) rejected.push_back(std::to_string(v->result->summary.rejected));
  rejected.resize(header.size());
  t.add_row(done);
  if (any_rejected) t.add_row(rejected);
  bool any_windowed = false;
  for (const auto* v : ran) any_windowed = any_windowed || v->result->summary.windowed;
  bool any_offload = false;
  for (const auto* v : ran) any_offload = any_offload || v->result->summary.kv_offload;
  bool any_disaggregated = false;
  for (const auto* v : ran) any_disaggregated = any_disaggregated || v->result->summary.disaggregated;
  for (const sim::SummaryMetric* m :
       sim::run_table_metrics(sim::summary_metrics(), any_windowed, any_offload, any_disaggregated)) {
    const auto value = [m](const scenario::VariantOutcome* v) { return sim::shown_value(*m, v->result->summary); };
    std::vector<std::string> line = {m->row->label};
    for (const auto* v : ran) line.push_back(fixed(value(v), m->row->digits));
    for (const auto& [v, base] : ratios) line.push_back(m->row->ratio ? ratio_text(value(v), value(base)) : "");
    t.add_row(line);
  }
  add_energy_rows(ran, ratios, t);
  std::cout << "\n" << t.render();
  print_equal_concurrency_note(ratios);
}

// Prints each SLO target per variant; returns false when any is missed.
bool report_slo(const scenario::ScenarioSession& s, bool print) {
  bool all = true;
  for (const auto& v : s.variants) {
    if (!v.result) continue;
    const scenario::ScenarioSlo& slo = v.built->params.slo;
    if (!slo.any()) continue;
    std::string line;
    for (const auto& t : slo.targets) {
      const bool ok = scenario::slo_target_met(t, v.result->summary);
      all = all && ok;
      line += " " + t.key + " " + fixed(scenario::slo_statistic_ms(t, v.result->summary), 2) + "ms" +
              (ok ? "<=" : ">") + fixed(t.limit.millis(), 2) + "ms" + (ok ? " ok;" : " MISSED;");
    }
    if (slo.min_interactivity > 0) {
      const double iv = v.result->summary.median_intvty;
      const bool ok = std::isfinite(iv) && iv >= slo.min_interactivity;
      all = all && ok;
      line += " interactivity " + fixed(iv, 1) + (ok ? ">=" : "<") + fixed(slo.min_interactivity, 1) +
              (ok ? " ok;" : " MISSED;");
    }
    if (slo.per_request.any())
      line += " goodput " + fixed(100.0 * v.result->summary.goodput_fraction, 1) + " % of requests";
    if (print) std::cout << "SLO " << label_of(v) << ":" << line << "\n";
  }
  return all;
}

// Names what write_session_outputs wrote: the run files of each variant that ran (none for a
// variant that does not fit) and, for a comparison, compare.json.
void print_written_outputs(const scenario::ScenarioSession& s, const std::string& out) {
  for (const auto& v : s.variants) {
    if (!v.built || !v.result) continue;
    const std::filesystem::path folder = s.compare ? std::filesystem::path(out) / v.name : std::filesystem::path(out);
    std::cerr << "wrote " << folder.string() << "/{requests.csv, summary.json, timeseries.csv, scenario.json}\n";
  }
  if (s.compare) std::cerr << "wrote " << (std::filesystem::path(out) / "compare.json").string() << "\n";
}

scenario::SessionOptions session_options(const RunArgs& a) {
  scenario::SessionOptions options;
  for (const auto& arg : a.set) {
    const auto [key, value] = parse_set_argument(arg);
    options.set.push_back({key, value});
  }
  // One profile replaces the scenario's; several are chosen per GPU, as sweep and plan choose.
  if (a.calibrations.size() == 1) options.calibration = a.calibrations.front();
  if (a.calibrations.size() > 1)
    options.calibrations_by_gpu = study::load_calibration_overrides(a.calibrations).profiles;
  return options;
}

// --trace-out / --trace-window: each variant's Chrome trace file, checked against the inputs.
void plan_traces(const RunArgs& a, scenario::ScenarioSession& session) {
  Time window;
  try {
    window = parse_time(a.trace_window);
  } catch (const std::exception& e) {
    throw ConfigError({"--trace-window", 0, 0}, "trace_window", e.what());
  }
  if (window <= Time::zero()) throw ConfigError({"--trace-window", 0, 0}, "trace_window", "must be > 0");
  // The path as given is checked as --out's is: with variants, "-<variant>" goes before its
  // extension, so a folder given here would get files beside it, not in it.
  check_output_file(a.trace_out, "--trace-out");
  std::vector<std::string> traces;
  for (auto& v : session.variants) {
    if (!v.built) continue;
    v.built->run.trace.path = trace_path_for(a.trace_out, session.compare ? v.name : std::string());
    v.built->run.trace.window = window;
    traces.push_back(v.built->run.trace.path);
  }
  scenario::check_outputs_spare_inputs(session, traces, "--trace-out");
  for (const std::string& t : traces)
    if (std::filesystem::is_directory(t))
      throw ConfigError({"--trace-out", 0, 0}, "", t + " is a folder; give a file name");
}

// Every output path is checked before the run, so a bad one neither wastes the simulation nor
// loses its results. Returns the golden to check against, if any.
std::optional<scenario::Golden> check_outputs(const RunArgs& a, const scenario::ScenarioSession& session) {
  if (!a.out.empty()) {
    check_output_folder(a.out);
    scenario::check_outputs_spare_inputs(session, scenario::session_output_files(session, a.out), "--out");
  }
  std::optional<scenario::Golden> golden;
  if (!a.check_golden.empty()) golden = scenario::read_golden(a.check_golden);
  if (!a.write_golden.empty() && std::filesystem::is_directory(a.write_golden))
    throw ConfigError({"--write-golden", 0, 0}, "", a.write_golden + " is a folder; give the golden's file name");
  // The trace's folder is made last among the checks, as --out makes its own at the end.
  if (!a.trace_out.empty()) {
    const std::filesystem::path folder = std::filesystem::path(a.trace_out).parent_path();
    std::error_code ec;
    if (!folder.empty()) std::filesystem::create_directories(folder, ec);
    if (ec) throw std::runtime_error("--trace-out: cannot create folder " + folder.string() + ": " + ec.message());
  }
  return golden;
}

// Runs the variants on `jobs` threads (0: one per hardware thread), with progress lines on stderr
// when asked (run_progress.hpp); stdout is unchanged.
void run_variants(const RunArgs& a, scenario::ScenarioSession& session) {
  int jobs = a.jobs;
  if (jobs <= 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ProgressWriter writer{&std::cerr};
  std::vector<std::unique_ptr<RunProgress>> probes;
  if (a.progress == "lines" || (a.progress == "auto" && ::isatty(STDERR_FILENO) != 0))
    for (auto& v : session.variants)
      if (v.built) {
        probes.push_back(std::make_unique<RunProgress>(writer, session.compare ? v.name : std::string()));
        v.built->run.probe = probes.back().get();
      }
  // Each variant is written as its run ends and its per-request records released, so a long compare
  // list holds one run's records per thread (docs/scenarios.md "Input limits").
  if (!a.out.empty()) scenario::begin_session_outputs(session, a.out);
  scenario::run_session(session, jobs, [&a, &session](scenario::VariantOutcome& v) {
    if (!a.out.empty()) scenario::write_variant_outputs(session, v, a.out);
    scenario::release_run_records(v);
  });
}

void write_and_print(const RunArgs& a, const scenario::ScenarioSession& session,
                     const scenario::SessionOptions& options) {
  if (!a.out.empty()) {
    scenario::write_compare_outputs(session, a.out);  // the variants' files were written as they ran
    print_written_outputs(session, a.out);
  }
  if (!a.trace_out.empty())
    for (const auto& v : session.variants)
      if (v.built && v.result) std::cerr << "wrote trace " << v.built->run.trace.path << "\n";
  if (a.json) {
    std::cout << scenario::session_json(session);
  } else {
    print_header(session, options.set);
    print_table(session);
    std::cout << "\n";
  }
}

// --write-golden and --check-golden; false when the run differs from the golden.
bool handle_goldens(const RunArgs& a, const scenario::ScenarioSession& session, const scenario::SessionOptions& options,
                    const std::optional<scenario::Golden>& golden) {
  if (!a.write_golden.empty()) {
    std::string note;
    if (std::filesystem::exists(a.write_golden)) note = scenario::read_golden(a.write_golden).note;
    scenario::write_golden(scenario::golden_from_session(session, options.set, note), a.write_golden);
    std::cerr << "wrote golden " << a.write_golden << "\n";
  }
  if (!golden) return true;
  const auto diffs = scenario::compare_with_golden(*golden, scenario::golden_from_session(session, options.set, ""));
  for (const auto& d : diffs) std::cerr << "golden: " << d << "\n";
  return diffs.empty();
}

// One line on stderr per --set that changes what a variant's own `set:` entry sets: the command line
// wins, so the variant's name no longer says what it runs (docs/scenarios.md "Overrides").
void warn_set_conflicts(const scenario::ScenarioSession& session) {
  for (const auto& v : session.variants)
    for (const auto& c : v.set_conflicts) std::cerr << "warning: " << scenario::set_conflict_warning(c) << "\n";
}

int run_scenario_command(const RunArgs& a) {
  const scenario::SessionOptions options = session_options(a);
  const scenario::ScenarioDocument doc = scenario::read_scenario_document(a.scenario);
  scenario::ScenarioSession session = scenario::prepare_session(doc, options);
  warn_set_conflicts(session);
  if (!a.trace_out.empty()) plan_traces(a, session);
  const std::optional<scenario::Golden> golden = check_outputs(a, session);
  if (!session.compare && session.any_infeasible()) {
    std::cerr << "error: does not fit: " << session.variants.front().infeasible << "\n";
    return exit_code::infeasible;
  }
  run_variants(a, session);
  write_and_print(a, session, options);
  const bool slo_ok = report_slo(session, !a.json);
  int rc = exit_code::ok;
  if (!handle_goldens(a, session, options, golden)) rc = exit_code::check_failed;
  if (a.check_slo && !slo_ok) rc = exit_code::check_failed;
  if (session.any_infeasible()) {
    for (const auto& v : session.variants)
      if (!v.built) std::cerr << "error: variant " << v.name << " does not fit: " << v.infeasible << "\n";
    rc = exit_code::infeasible;
  }
  return rc;
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("run", "Simulate a scenario (and its compare variants) and print the results");
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("scenario", a->scenario, "Scenario YAML file")->required();
  cmd->add_option("--set", a->set, "Override a scenario key: key.path=value (repeatable)")->allow_extra_args(false);
  cmd->add_option("--out", a->out, "Write summary.json, requests.csv, timeseries.csv and scenario.json here");
  cmd->add_flag("--json", a->json, "Print the summary JSON instead of tables");
  cmd->add_option("--calibration", a->calibrations,
                  "Calibration profile replacing the scenario's (repeatable: one per GPU, chosen as sweep chooses)")
      ->allow_extra_args(false);
  add_price_options(cmd, a->price);
  cmd->add_option("--jobs", a->jobs, "Threads for compare variants (0 = one per hardware thread)")
      ->check(CLI::Range(0, limits::kMaxJobs));
  cmd->add_flag("--check-slo", a->check_slo, "Exit 4 when a run misses an slo: target");
  cmd->add_option("--write-golden", a->write_golden, "Write a golden summary of this run (scenarios/golden/NAME.json)");
  cmd->add_option("--check-golden", a->check_golden,
                  "Compare this run with a golden summary; exit 4 outside tolerance");
  CLI::Option* trace_out =
      cmd->add_option("--trace-out", a->trace_out,
                      "Write a Chrome/Perfetto trace (steps, Engram fetches, fabric flows) of the start of the run");
  cmd->add_option("--trace-window", a->trace_window, "Simulated time the trace covers (default 10s)")->needs(trace_out);
  cmd->add_option("--progress", a->progress, "Progress lines on stderr: auto (on a terminal), lines, none")
      ->check(CLI::IsMember({"auto", "lines", "none"}));
  cmd->callback([&action, a] {
    action = [a] {
      append_price_sets(a->price, a->set);
      return run_scenario_command(*a);
    };
  });
}

}  // namespace engramsim::cli
