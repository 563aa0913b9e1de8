// `engramsim validate FILE...`: loads each file with the strict loader of its kind and prints
// `OK path (kind)`, or `error: path (kind): file:line:col: field: message` on stderr.
//
// The kind comes from the folder the file sits in (models/cards, models/engines, hardware/gpus,
// hardware/nodes, hardware/calibrations), else from its top-level keys: `workload` -> scenario,
// `schema: engramsim-calibration/...` -> calibration profile, `gpu_count` -> node, `hbm_capacity` ->
// GPU, `num_layers` -> model card, `per_step` -> engine preset, `cases` -> validation set
// (scenarios/validation/cases.yaml). A scenario is checked variant by variant (every `compare:` entry
// applied, as `engramsim run` would), including the card, node, calibration profile and trace it
// names; whether the deployment fits is `engramsim run`'s (or `footprint`'s) question, not this one.
// Exit 0 when every file loads, 2 when any does not.
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/unit_parse.hpp"
#include "hardware/calibration_profile.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "models/engine_loader.hpp"
#include "planner/sweep_spec.hpp"
#include "scenario/schema/scenario.hpp"
#include "scenario/schema/scenario_document.hpp"
#include "tools/engramsim/cli_common.hpp"
#include "validation/validation_case.hpp"

namespace engramsim::cli {
namespace {

enum class Kind { card, gpu, node, engine, calibration, scenario, validation_set, unknown };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::card:
      return "model card";
    case Kind::gpu:
      return "GPU preset";
    case Kind::node:
      return "node preset";
    case Kind::engine:
      return "engine preset";
    case Kind::calibration:
      return "calibration profile";
    case Kind::scenario:
      return "scenario";
    case Kind::validation_set:
      return "validation set";
    case Kind::unknown:
      return "unknown kind";
  }
  return "?";
}

Kind kind_by_folder(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(fs::path(path)).lexically_normal().parent_path();
  const std::string leaf = dir.filename().string();
  const std::string up = dir.parent_path().filename().string();
  if (up == "models" && leaf == "cards") return Kind::card;
  if (up == "models" && leaf == "engines") return Kind::engine;
  if (up == "hardware" && leaf == "gpus") return Kind::gpu;
  if (up == "hardware" && leaf == "nodes") return Kind::node;
  if (up == "hardware" && leaf == "calibrations") return Kind::calibration;
  return Kind::unknown;
}

// By top-level keys; an unreadable or non-map file stays unknown (the error says why).
Kind kind_by_content(const std::string& path) {
  // Syntax errors, folders and missing files are reported where they are (ConfigError, located).
  const YAML::Node root = ConfigNode::load_file(path).raw();
  if (!root.IsMap()) return Kind::unknown;
  const YAML::Node& r = root;
  if (r["workload"]) return Kind::scenario;
  if (r["schema"] && r["schema"].IsScalar() && r["schema"].Scalar().rfind("engramsim-calibration/", 0) == 0)
    return Kind::calibration;
  if (r["gpu_count"]) return Kind::node;
  if (r["hbm_capacity"]) return Kind::gpu;
  if (r["num_layers"]) return Kind::card;
  if (r["per_step"]) return Kind::engine;
  if (r["cases"]) return Kind::validation_set;
  return Kind::unknown;
}

// Loads the file; returns a note for the OK line ("2 variants").
std::string check(const std::string& path, Kind kind) {
  switch (kind) {
    case Kind::card:
      load_model_card(path);
      return "";
    case Kind::engine:
      load_engine(path);
      return "";
    case Kind::gpu:
      load_gpu(path);
      return "";
    case Kind::node:
      load_node(path);
      return "";
    case Kind::calibration: {
      // The raw samples it names must be the ones it was fitted from (their recorded hash).
      const CalibrationProfile p = load_calibration_profile(path);
      if (!p.provenance.samples_file.empty())
        if (const std::string why = verify_samples_file(p, path); !why.empty())
          throw ConfigError({path, 0, 0}, "provenance.samples_hash", why);
      return "";
    }
    case Kind::scenario: {
      const scenario::ScenarioDocument doc = scenario::read_scenario_document(path);
      // One variant's tree at a time: a long compare list costs memory linear in its length.
      const scenario::ScenarioExpansion variants(doc, {});
      std::set<std::string> traces_read;
      for (std::size_t i = 0; i < variants.size(); ++i) {
        const scenario::ScenarioVariant v = variants.variant(i);
        const scenario::ScenarioParams p = scenario::parse_scenario(ConfigNode(v.root, doc.file, ""));
        // A replayed trace is read to its end (or the workload's request cap), once per distinct
        // workload section, so a bad row anywhere is found here rather than in the middle of a run.
        if (!p.workload.trace_path.empty()) {
          YAML::Emitter workload_text;
          workload_text << static_cast<const YAML::Node&>(v.root)["workload"];
          if (traces_read.insert(p.workload.trace_path + "\n" + workload_text.c_str()).second)
            scenario::read_trace_through(p);
        }
      }
      if (variants.size() > 1) return std::to_string(variants.size()) + " variants";
      return "";
    }
    case Kind::validation_set: {
      const auto set = validation::load_validation_set(path);
      return std::to_string(set.cases.size()) + " cases";
    }
    case Kind::unknown:
      break;
  }
  throw ConfigError(
      {path, 0, 0}, "",
      "cannot tell what kind of file this is (not under models/{cards,engines} or hardware/{gpus,nodes,calibrations}, "
      "and no workload, schema, gpu_count, hbm_capacity, num_layers, per_step or cases key)");
}

int run_validate(const std::vector<std::string>& files) {
  int failed = 0;
  for (const std::string& path : files) {
    Kind kind = kind_by_folder(path);
    std::string note;
    std::string error;
    try {  // every file is checked, whatever an earlier one did
      if (const std::string why = ConfigNode::file_problem(path); !why.empty())
        throw ConfigError({path, 0, 0}, "", why);
      if (kind == Kind::unknown) kind = kind_by_content(path);
      note = check(path, kind);
    } catch (const ConfigError& e) {
      error = e.what();
    } catch (const UnitParseError& e) {
      error = e.what();
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (error.empty()) {
      std::cout << "OK " << path << " (" << kind_name(kind) << (note.empty() ? "" : ", " + note) << ")\n";
    } else {
      ++failed;
      // Located messages already start with the path; say it once.
      if (error.rfind(path, 0) == 0)
        std::cerr << "error: " << error << " (" << kind_name(kind) << ")\n";
      else
        std::cerr << "error: " << path << " (" << kind_name(kind) << "): " << error << "\n";
    }
  }
  return failed == 0 ? exit_code::ok : exit_code::bad_input;
}

}  // namespace

void add_validate_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("validate",
                                     "Check model cards, GPU/node and engine presets, calibration profiles, scenarios "
                                     "and validation sets with the strict loaders");
  auto files = std::make_shared<std::vector<std::string>>();
  cmd->add_option("files", *files, "Files to check (kind from the folder, else from the keys)")->required();
  cmd->callback([&action, files] { action = [files] { return run_validate(*files); }; });
}

}  // namespace engramsim::cli
