// `engramsim validate-set [--cases FILE] [--case ID]... [--calibration FILE]... [--jobs N] [--verbose]
// [--json]`: reproduce the published measurements of the validation set
// (scenarios/validation/cases.yaml by default) with the default efficiencies, or a measured profile
// for the cases on its GPU, and print, per case, the published and predicted values, the error,
// the tolerance and pass/fail; then the MAPE per metric kind (step-level, serving throughput,
// serving latency; the Engram penalty also as mean absolute error in percentage points) against
// the acceptance targets, the coverage (sources, GPUs, model families), the known misses
// with their reasons and the cases that cannot be represented, with why. How cases are reproduced:
// validation/validation_runner.hpp; the set and its tolerances: docs/validation.md.
// Exit codes: 0 every evaluated case within its kind's tolerance or a listed known miss, and every
// MAPE target met; 2 bad input (the cases file or a scenario it names); 4 a case outside its
// tolerance that is not a known miss, a reproduction that failed to run, or a MAPE target missed.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "models/card_loader.hpp"
#include "planner/sweep_spec.hpp"
#include "study/validation_sweep.hpp"
#include "tools/engramsim/cli_common.hpp"
#include "validation/validation_case.hpp"
#include "validation/validation_runner.hpp"

namespace engramsim::cli {
namespace {

namespace val = engramsim::validation;

struct ValidateSetArgs {
  std::string cases;
  std::vector<std::string> only;
  int jobs = 0;
  std::vector<std::string> calibrations;
  bool verbose = false;
  bool json = false;
};

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string value_text(double v, const std::string& unit) {
  if (!std::isfinite(v)) return "-";
  if (unit == "s") return std::abs(v) < 1.0 ? fmt("%.4g ms", v * 1e3) : fmt("%.4g s", v);
  if (unit == "ms") return fmt("%.4g ms", v);
  if (unit == "%") return fmt("%.2f %%", v);
  if (unit == "tok/$") return fmt("%.1fM tok/$", v / 1e6);
  if (unit == "x" || unit == "fraction") return fmt("%.3f", v);
  return fmt("%.0f ", v) + unit;
}

std::string error_text(const val::CaseResult& r) {
  if (!std::isfinite(r.predicted)) return "-";
  if (r.tolerance && r.tolerance->type == val::ToleranceType::abs_pp) return fmt("%+.2f pp", r.abs_error);
  if (r.tolerance && r.tolerance->type == val::ToleranceType::abs) return fmt("%+.3f", r.abs_error);
  return fmt("%+.1f%%", 100.0 * r.rel_error);
}

// Model family from the card, for the coverage line; the name itself when it is not a card.
std::string family_of(const std::string& model) {
  if (model.empty()) return "";
  try {
    return load_model_card(model).family;
  } catch (const std::exception&) {
    return model;
  }
}

struct Coverage {
  std::set<std::string> sources, gpus, families;
  int step = 0, serving = 0;
};

Coverage coverage_of(const val::ValidationSet& set, const val::ValidationReport& report) {
  Coverage cov;
  for (const auto& r : report.results) {
    if (r.status == val::CaseStatus::unsupported || r.status == val::CaseStatus::error) continue;
    const val::ValidationCase* c = set.find(r.id);
    cov.sources.insert(r.source);
    if (!r.gpu.empty()) cov.gpus.insert(r.gpu);
    std::string model = r.model;
    if (model.empty() && c && c->step) model = c->step->model;
    if (!model.empty()) cov.families.insert(family_of(model));
    (r.level == val::CaseLevel::step ? cov.step : cov.serving) += 1;
  }
  return cov;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

void print_unsupported(const val::ValidationReport& report) {
  bool header = false;
  for (const auto& r : report.results) {
    if (r.status != val::CaseStatus::unsupported) continue;
    if (!header) std::cout << "\nUnsupported (not evaluated):\n";
    header = true;
    std::cout << "  " << r.id << ": " << r.message << "\n";
  }
}

// Known misses with their reasons, then the gate: what, if anything, makes the run exit 4.
void print_verdict(const val::ValidationReport& report) {
  bool header = false;
  for (const auto& r : report.results) {
    if (r.status != val::CaseStatus::known_miss) continue;
    if (!header) std::cout << "\nKnown misses (outside tolerance, listed in the cases file):\n";
    header = true;
    std::cout << "  " << r.id << " (" << error_text(r) << "): " << r.known_miss << "\n";
  }
  for (const auto& id : report.stale_known_misses())
    std::cout << "note: " << id << " is listed as a known miss but is within tolerance: remove its known_miss\n";
  std::cout << "\n";
  if (report.failed() > 0)
    std::cout << report.failed() << " case(s) outside tolerance and not known misses\n";
  else
    std::cout << "every evaluated case within tolerance or a known miss (" << report.known_misses() << ")\n";
  for (const auto k : report.targets_missed()) {
    for (const auto& s : report.kinds)
      if (s.kind == k)
        std::cout << "MAPE target missed: " << to_string(k) << " " << fmt("%.1f%%", 100 * s.mape) << " > "
                  << fmt("%.0f%%", 100 * val::mape_target(k)) << "\n";
  }
  std::cout << (report.gate_passed() ? "gate: passed" : "gate: FAILED (exit 4)") << "\n";
}

void print_calibrations(const val::ValidationReport& report, const val::EvalOptions& options) {
  if (options.calibrations.empty()) {
    std::cout << " with default efficiencies (no calibration profile)\n\n";
    return;
  }
  std::cout << "; calibration profiles:\n";
  int served = 0;
  for (const auto& c : options.calibrations) {
    int used = 0;
    for (const auto& r : report.results) used += r.calibration == c.path ? 1 : 0;
    served += used;
    const std::string gpu = c.profile.provenance.gpu.empty() ? "host sections only" : c.profile.provenance.gpu;
    std::cout << "  " << c.path << " (" << gpu << "): " << used << " case(s)\n";
  }
  const int rest = static_cast<int>(report.evaluated()) - served;
  if (rest > 0) std::cout << rest << " other case(s) at default efficiencies; ";
  std::cout << "tolerances are those of the default efficiencies\n\n";
}

void print_cases(const val::ValidationReport& report, bool calibrated, bool verbose) {
  std::vector<std::string> head{"CASE", "METRIC", "PUBLISHED", "PREDICTED", "ERROR", "TOLERANCE", "RESULT"};
  if (calibrated) head.push_back("EFFICIENCIES");
  TextTable t(head);
  for (const auto& r : report.results) {
    if (r.status == val::CaseStatus::unsupported) continue;
    std::vector<std::string> row{r.id,
                                 r.metric,
                                 value_text(r.published, r.unit),
                                 value_text(r.predicted, r.unit),
                                 error_text(r),
                                 r.tolerance ? r.tolerance->describe() : "-",
                                 to_string(r.status)};
    if (calibrated) row.push_back(r.calibration.empty() ? "default" : "calibrated");
    t.add_row(row);
  }
  std::cout << t.render();
  for (const auto& r : report.results)
    if (r.status == val::CaseStatus::error) std::cout << "error: " << r.id << ": " << r.message << "\n";
  if (!verbose) return;
  std::cout << "\nWhat ran:\n";
  for (const auto& r : report.results)
    if (r.status != val::CaseStatus::unsupported)
      std::cout << "  " << r.id << ": " << r.detail << " [" << fmt("%.2f", r.wall_s) << " s]\n";
}

constexpr const char* kLeanLegend =
    "LEAN: mean error signed by speed, + where the model predicts faster than measured (throughput above, "
    "time below), - slower\n";

std::string lean_text(val::MetricKind kind, double lean) {
  return val::is_speed_kind(kind) ? fmt("%+.1f%%", 100 * lean) : "-";
}

void print_kinds(const val::ValidationReport& report) {
  TextTable k(
      {"METRIC KIND", "CASES", "TOLERANCE", "FAILED", "KNOWN MISSES", "MAPE", "LEAN", "MEAN |ERROR|", "TARGET"});
  for (const auto& s : report.kinds) {
    const double target = val::mape_target(s.kind);
    const std::string abs = s.kind == val::MetricKind::engram_penalty ? fmt("%.2f pp", s.mean_abs_error) : "-";
    const std::string tgt =
        std::isfinite(target) ? fmt("<= %.0f%%", 100 * target) + (s.mape <= target ? " met" : " NOT met") : "-";
    // A percentage-point metric is judged by its mean absolute error; a relative error of a small
    // percentage says little.
    const std::string mape = s.kind == val::MetricKind::engram_penalty ? "-" : fmt("%.1f%%", 100 * s.mape);
    k.add_row({to_string(s.kind), std::to_string(s.cases), val::kind_tolerance(s.kind).describe(),
               std::to_string(s.failed), std::to_string(s.known_misses), mape, lean_text(s.kind, s.lean), abs, tgt});
  }
  std::cout << k.render() << kLeanLegend;
}

// Where the error sits: the relative-error kinds by source, by GPU, by engine and by batch.
void print_groups(const val::ValidationReport& report) {
  for (const auto& [title, field] :
       {std::pair{"SOURCE", &val::CaseResult::source}, std::pair{"GPU", &val::CaseResult::gpu},
        std::pair{"ENGINE", &val::CaseResult::engine}, std::pair{"BATCH", &val::CaseResult::batch}}) {
    const auto groups = val::summarize_by(report.results, field);
    if (groups.empty()) continue;
    TextTable g({title, "CASES", "MAPE", "LEAN", "FURTHEST CASE", "ITS ERROR"});
    for (const auto& s : groups)
      g.add_row({s.group, std::to_string(s.cases), fmt("%.1f%%", 100 * s.mape), fmt("%+.1f%%", 100 * s.lean),
                 s.worst_id, fmt("%+.1f%%", 100 * s.worst_rel)});
    const std::string t = title;
    const std::string by = t == "GPU"      ? "GPU"
                           : t == "ENGINE" ? "engine"
                           : t == "BATCH"  ? "batch (decode rows of a step, per replica)"
                                           : "source";
    std::cout << "\nStep-level, serving-throughput and latency cases by " << by << ":\n" << g.render();
  }
}

void print_text(const val::ValidationSet& set, const val::ValidationReport& report, const val::EvalOptions& options,
                bool verbose) {
  std::cout << "Validation set " << report.file << ": " << report.results.size() << " cases, " << report.evaluated()
            << " evaluated";
  print_calibrations(report, options);
  print_cases(report, !options.calibrations.empty(), verbose);
  std::cout << "\n";
  print_kinds(report);
  print_groups(report);
  const Coverage cov = coverage_of(set, report);
  std::cout << "\nCoverage of evaluated cases: " << cov.step << " step-level, " << cov.serving << " serving-level; "
            << cov.sources.size() << " sources (" << join(cov.sources) << "); " << cov.gpus.size() << " GPUs ("
            << join(cov.gpus) << "); " << cov.families.size() << " model families (" << join(cov.families) << ")\n";
  print_unsupported(report);
  print_verdict(report);
}

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

void print_json(const val::ValidationSet& set, const val::ValidationReport& report) {
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& r : report.results) {
    nlohmann::json c = {
        {"id", r.id},
        {"level", to_string(r.level)},
        {"metric", r.metric},
        {"kind", to_string(r.kind)},
        {"unit", r.unit},
        {"published", r.published},
        {"predicted", number_or_null(r.predicted)},
        {"rel_error", number_or_null(r.rel_error)},
        {"abs_error", number_or_null(r.abs_error)},
        {"status", to_string(r.status)},
        {"source", r.source},
        {"gpu", r.gpu},
        {"model", r.model},
        {"engine", r.engine},
        {"detail", r.detail},
        {"known_miss", r.known_miss.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.known_miss)},
        {"calibration", r.calibration.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.calibration)},
        {"message", r.message},
        {"wall_s", r.wall_s}};
    if (r.tolerance) {
      // A published range is written as abs_pp, as this file has always written it.
      const val::ToleranceType t = r.tolerance->type;
      const char* type = t == val::ToleranceType::range ? "abs_pp" : val::kToleranceTypeNames.name(t);
      c["tolerance"] = {{"type", type}, {"value", r.tolerance->value}, {"why", r.tolerance->why}};
    } else {
      c["tolerance"] = nullptr;
    }
    cases.push_back(c);
  }
  nlohmann::json kinds = nlohmann::json::array();
  for (const auto& s : report.kinds) {
    const double target = val::mape_target(s.kind);
    kinds.push_back(
        {{"kind", to_string(s.kind)},
         {"cases", s.cases},
         {"tolerance", val::kind_tolerance(s.kind).describe()},
         {"failed", s.failed},
         {"known_misses", s.known_misses},
         {"mape", s.mape},
         {"lean", val::is_speed_kind(s.kind) ? nlohmann::json(s.lean) : nlohmann::json(nullptr)},
         {"mean_abs_error", s.mean_abs_error},
         {"mape_target", number_or_null(target)},
         {"target_met", std::isfinite(target) ? nlohmann::json(s.mape <= target) : nlohmann::json(nullptr)}});
  }
  const auto groups_json = [&](std::string val::CaseResult::*field) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& g : val::summarize_by(report.results, field))
      a.push_back({{"group", g.group},
                   {"cases", g.cases},
                   {"mape", g.mape},
                   {"lean", g.lean},
                   {"worst_id", g.worst_id},
                   {"worst_rel_error", g.worst_rel}});
    return a;
  };
  const Coverage cov = coverage_of(set, report);
  nlohmann::json out = {{"file", report.file},
                        {"cases", cases},
                        {"kinds", kinds},
                        {"by_source", groups_json(&val::CaseResult::source)},
                        {"by_gpu", groups_json(&val::CaseResult::gpu)},
                        {"by_engine", groups_json(&val::CaseResult::engine)},
                        {"by_batch", groups_json(&val::CaseResult::batch)},
                        {"coverage",
                         {{"step_cases", cov.step},
                          {"serving_cases", cov.serving},
                          {"sources", cov.sources},
                          {"gpus", cov.gpus},
                          {"model_families", cov.families}}},
                        {"evaluated", report.evaluated()},
                        {"failed", report.failed()},
                        {"known_misses", report.known_misses()},
                        {"stale_known_misses", report.stale_known_misses()},
                        {"all_within_tolerance", report.all_within_tolerance()},
                        {"gate_passed", report.gate_passed()}};
  std::cout << json_text(out) << "\n";
}

int run_validate_set(const ValidateSetArgs& a) {
  const std::string path = a.cases.empty() ? val::default_validation_set_path() : a.cases;
  const val::ValidationSet set = val::load_validation_set(path);
  val::EvalOptions options;
  options.evaluate_sweep = study::make_validation_sweep_evaluator();
  options.jobs = a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.only = a.only;
  for (const std::string& f : a.calibrations) options.calibrations.push_back({f, load_calibration_profile(f)});
  const val::ValidationReport report = val::evaluate_set(set, options);
  if (a.json)
    print_json(set, report);
  else
    print_text(set, report, options, a.verbose);
  return report.gate_passed() ? exit_code::ok : exit_code::check_failed;
}

}  // namespace

void add_validate_set_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("validate-set",
                                     "Reproduce the published measurements of the validation set and compare (exit 4: "
                                     "a case misses that is not a known miss, "
                                     "or a MAPE target is missed)");
  auto a = std::make_shared<ValidateSetArgs>();
  cmd->add_option("--cases", a->cases, "Validation set file (default: scenarios/validation/cases.yaml)");
  cmd->add_option("--case", a->only, "Evaluate only this case id (repeatable)")->allow_extra_args(false);
  cmd->add_option("--jobs", a->jobs, "Threads for serving runs (0 = one per hardware thread)")
      ->check(CLI::Range(0, limits::kMaxJobs));
  cmd->add_option("--calibration", a->calibrations,
                  "Calibration profile (engramsim calibrate) for the cases on its GPU (repeatable: one per GPU, as "
                  "sweep chooses)")
      ->allow_extra_args(false);
  cmd->add_flag("--verbose", a->verbose, "Also print what ran for each case");
  cmd->add_flag("--json", a->json, "Print one JSON object instead of tables");
  cmd->callback([&action, a] { action = [a] { return run_validate_set(*a); }; });
}

}  // namespace engramsim::cli
