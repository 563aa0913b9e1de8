// `engramsim ask`: a one-line question, answered without writing a scenario first. From the model,
// the GPUs to consider, the workload (ISL/OSL such as 8k/1k, or agentx), the target interactivity
// and the price tier, it writes the sweep scenario it asks (DIR/question.yaml: every deployment of
// the GPUs' node presets at the TPs and Engram tiers given, over a concurrency axis) and runs it as
// `engramsim sweep DIR/question.yaml --out DIR` would: the verdict first, the report, the deploy
// command. Deployments that do not fit are pruned with their reason, as in any sweep.
//
//   engramsim ask --model deepseek-v4.1-flash --gpus b200,b300 --workload agentx
//                 --target-interactivity 125 --price-tier hyperscaler --out out/ask
//   (one command line)
// With --disaggregated 1:1,1:3 each deployment is also compared as prefill:decode units of its
// replicas (x prefill and y decode replicas, one plan unit each).
//
// Exit codes: those of sweep (docs/cli.md); 2 for an unknown model or GPU (nothing is written).
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/config_node.hpp"
#include "core/error.hpp"
#include "core/field_table.hpp"
#include "core/paths.hpp"
#include "core/unit_parse.hpp"
#include "hardware/hardware_loader.hpp"
#include "models/card_loader.hpp"
#include "planner/results_file.hpp"
#include "tools/engramsim/cli_common.hpp"
#include "tools/engramsim/planner_cli.hpp"

namespace engramsim::cli {
namespace {

struct AskArgs {
  std::string model;
  std::vector<std::string> gpus;
  std::string workload = "8k/1k";
  double target = 0.0;
  std::vector<int> tps = {1, 2, 4, 8};
  std::vector<std::string> tiers = {"hbm", "dram"};
  std::vector<int> concurrency = {1, 4, 16, 64};
  std::string attention = "automatic";  // deployment.attention: automatic, tensor or data
  int ep = 0;                           // deployment.ep: 0 = automatic
  int requests = 200;                   // closed loop: requests per point
  std::string duration = "600s";        // agentx: the measured window per point
  // xPyD ratios ("1:2": one prefill, two decode replicas) compared beside each colocated deployment;
  // empty: colocated only.
  std::vector<std::string> disaggregated;
  SweepCliArgs sweep;
};

struct Ratio {
  int prefill = 1;
  int decode = 1;
};

// "1:2" -> one prefill and two decode replicas; anything else is an error at the flag.
Ratio parse_ratio(const std::string& text) {
  const auto colon = text.find(':');
  const auto count = [&](const std::string& t) {
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (t.empty() || used != t.size() || v < 1 || v > 64)
      throw ConfigError({"--disaggregated", 0, 0}, "deployment",
                        "expected prefill:decode replica counts such as 1:2 (each 1 to 64), got '" + text + "'");
    return v;
  };
  if (colon == std::string::npos) count("");
  return {count(text.substr(0, colon)), count(text.substr(colon + 1))};
}

// "8k/1k" or "1024/128" -> input and output tokens.
std::pair<long long, long long> isl_osl(const std::string& w) {
  const auto slash = w.find('/');
  const auto tokens = [&](std::string t) -> long long {
    long long mult = 1;
    if (!t.empty() && (t.back() == 'k' || t.back() == 'K')) {
      mult = 1024;
      t.pop_back();
    }
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || t.empty() || v <= 0 || v > (1LL << 24))
      throw ConfigError({"--workload", 0, 0}, "workload", "expected agentx or ISL/OSL such as 8k/1k, got '" + w + "'");
    return v * mult;
  };
  if (slash == std::string::npos) tokens("");
  return {tokens(w.substr(0, slash)), tokens(w.substr(slash + 1))};
}

// --duration as workload.duration reads it: a time with its unit ("600s", "10min", "1h") in
// [1ns, a week]. Checked before question.yaml is written, so a bare number is an error at the flag,
// not at a line of a file the user did not write (which would then hold the folder for that question).
void check_duration(const std::string& text) {
  const SourceLocation flag{"--duration", 0, 0};
  Time t;
  try {
    t = parse_time(text);
  } catch (const UnitParseError& e) {
    throw ConfigError(flag, "workload.duration", e.what());
  }
  const Time most = Time::from_seconds(limits::kMaxAgentxSeconds);
  if (t < Time::ns(1) || t > most)
    throw ConfigError(flag, "workload.duration",
                      "must be a time in [" + time_words(Time::ns(1)) + ", " + time_words(most) + "]");
}

template <typename T>
std::string list(const std::vector<T>& v) {
  std::ostringstream o;
  o << "[";
  for (std::size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << v[i];
  o << "]";
  return o.str();
}

std::string workload_yaml(const AskArgs& a) {
  std::ostringstream o;
  if (a.workload == "agentx") {
    // The generator's full-size corpus (as many sessions as the real trace), as the article sweeps use.
    o << "workload:\n  kind: agentx\n  generate: {seed: 42, sessions: 393}\n"
      << "  concurrency: " << a.concurrency.front() << "\n  duration: " << a.duration
      << "\n  warmup_requests: 10\n  grace: 1800s\n  tree_idle_cap: 300s\n  system_idle_cap: 10s\n"
      << "  start_ratio: {min: 0.25, max: 0.75}\n";
    return o.str();
  }
  const auto [in, out] = isl_osl(a.workload);
  o << "workload:\n  kind: closed_loop\n  concurrency: " << a.concurrency.front() << "\n  num_requests: " << a.requests
    << "\n  input: {distribution: uniform_ratio, tokens: " << in << ", ratio: 0.8}\n"
    << "  output: {distribution: uniform_ratio, tokens: " << out << ", ratio: 0.8}\n";
  return o.str();
}

// One pool or colocated deployment of the question, as a flow map: its TP, tier and the question's
// engine, layout, scheduler and router.
std::string deployment_map(const AskArgs& a, int replicas, int tp, const std::string* tier) {
  const bool agentx = a.workload == "agentx";
  std::ostringstream o;
  o << "{replicas: " << replicas << ", tp: " << tp << ", engine: vllm, attention: " << a.attention << ", ep: " << a.ep;
  if (tier != nullptr) o << ", engram: {tier: " << *tier << "}";
  o << ", scheduler: {policy: vllm, max_num_batched_tokens: 8192, max_num_seqs: 256, block_size: 64, "
    << "enable_prefix_caching: " << (agentx ? "true" : "false")
    << ", chunked_prefill: true, gpu_memory_utilization: 0.9}, router: " << (agentx ? "sticky_session" : "round_robin")
    << "}";
  return o.str();
}

// With --disaggregated the deployment itself is the axis: for each TP and tier, the colocated
// replica and each xPyD unit of such replicas (docs/disaggregation.md "Planning").
std::string deployment_axis(const AskArgs& a, bool engram) {
  std::ostringstream o;
  o << "    - key: deployment\n      values:\n";
  const std::vector<std::string> none = {""};
  for (const int tp : a.tps)
    for (const std::string& tier : engram ? a.tiers : none) {
      const std::string* t = engram ? &tier : nullptr;
      o << "        - " << deployment_map(a, 1, tp, t) << "\n";
      for (const std::string& r : a.disaggregated) {
        const Ratio ratio = parse_ratio(r);
        o << "        - {kind: disaggregated, prefill: " << deployment_map(a, ratio.prefill, tp, t)
          << ", decode: " << deployment_map(a, ratio.decode, tp, t) << "}\n";
      }
    }
  return o.str();
}

// The sweep scenario the question asks, as YAML text.
std::string question_yaml(const AskArgs& a, const std::vector<std::string>& nodes, bool engram) {
  const bool agentx = a.workload == "agentx";
  std::ostringstream q;
  q << "On " << list(a.gpus) << ", which deployment of " << a.model << " serves " << a.workload
    << " traffic with the most tokens per dollar at " << a.target << " tok/s/user (attention " << a.attention << ", EP "
    << (a.ep > 0 ? std::to_string(a.ep) : std::string("automatic"))
    << (a.disaggregated.empty() ? std::string() : ", colocated or prefill:decode " + list(a.disaggregated)) << ")?";
  std::ostringstream o;
  o << "# Written by engramsim ask; rerun with: engramsim sweep question.yaml --out DIR\n"
    << "name: ask\ndescription: \"" << q.str() << "\"\nseed: 42\nmodel: " << a.model << "\nnode: " << nodes.front()
    << "\nprice_tier: " << (a.sweep.price.price_tier.empty() ? "hyperscaler" : a.sweep.price.price_tier) << "\n"
    << "deployment:\n  replicas: 1\n  tp: " << a.tps.front() << "\n  engine: vllm\n"
    << "  attention: " << a.attention << "\n  ep: " << a.ep << "\n";
  if (engram) o << "  engram: {tier: " << a.tiers.front() << "}\n";
  o << "  scheduler: {policy: vllm, max_num_batched_tokens: 8192, max_num_seqs: 256, block_size: 64, "
    << "enable_prefix_caching: " << (agentx ? "true" : "false")
    << ", chunked_prefill: true, gpu_memory_utilization: 0.9}\n"
    << "  router: " << (agentx ? "sticky_session" : "round_robin") << "\n"
    << workload_yaml(a) << "sweep:\n  axes:\n    - {key: node, values: " << list(nodes) << "}\n";
  if (!a.disaggregated.empty()) {
    o << deployment_axis(a, engram);
  } else {
    o << "    - {key: deployment.tp, values: " << list(a.tps) << "}\n";
    if (engram) o << "    - {key: deployment.engram.tier, values: " << list(a.tiers) << "}\n";
  }
  o << "    - {key: workload.concurrency, values: " << list(a.concurrency) << "}\n"
    << "  report:\n    title: \"" << q.str() << "\"\n    question: \"" << q.str() << "\"\n"
    << "    target_interactivity: " << a.target << "\n";
  return o.str();
}

int ask_command(AskArgs a) {
  check_duration(a.duration);
  for (const auto& r : a.disaggregated) parse_ratio(r);
  check_output_folder(a.sweep.out);
  const ModelCard card = load_model_card(a.model);
  std::vector<std::string> nodes;
  for (const auto& g : a.gpus) nodes.push_back(node_for(g, "--gpus"));
  const std::filesystem::path file = std::filesystem::path(a.sweep.out) / "question.yaml";
  const std::string question = question_yaml(a, nodes, card.engram.has_value());
  // A folder asked another question keeps it: nothing is written before the sweep owns the folder,
  // and --resume goes on with the same question only.
  if (std::filesystem::exists(file)) {
    if (ConfigNode::read_file(file.string()) != question)
      throw ConfigError({"--out", 0, 0}, "out",
                        file.string() + " asks another question; give a new --out folder (or rerun that question)");
  } else {
    std::filesystem::create_directories(a.sweep.out);
    planner::write_file_atomically(file, question);
  }
  a.sweep.scenario = file.string();
  append_price_sets(a.sweep.price, a.sweep.set);
  try {
    return sweep_command(a.sweep);
  } catch (const RunStopped& e) {
    // `ask` has no --resume: the sweep of the question it wrote does.
    std::vector<std::string> resume = {"sweep",     a.sweep.scenario, "--out",
                                       a.sweep.out, "--jobs",         std::to_string(a.sweep.jobs)};
    if (a.sweep.progress != "auto") resume.insert(resume.end(), {"--progress", a.sweep.progress});
    if (a.sweep.json) resume.push_back("--json");
    for (const auto& s : a.sweep.set) resume.insert(resume.end(), {"--set", s});
    throw RunStopped(e.what(), resume);
  }
}

}  // namespace

void add_ask_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand(
      "ask", "Answer a one-line question: the best deployment of a model on some GPUs at a target interactivity");
  auto a = std::make_shared<AskArgs>();
  cmd->add_option("--model", a->model, "Model card (engramsim list models)")->required();
  cmd->add_option("--gpus", a->gpus, "GPUs or node presets to consider, comma-separated")->required()->delimiter(',');
  cmd->add_option("--workload", a->workload, "agentx, or ISL/OSL such as 8k/1k (closed loop)");
  cmd->add_option("--target-interactivity", a->target, "Tokens/s per user the deployments are compared at")
      ->required()
      ->check(CLI::Range(1e-3, 1e6));
  cmd->add_option("--tp", a->tps, "Tensor-parallel sizes to consider (default 1,2,4,8)")
      ->delimiter(',')
      ->check(CLI::Range(1, limits::kMaxTp));
  cmd->add_option("--engram-tiers", a->tiers, "Engram tiers to consider for a model with Engram (default hbm,dram)")
      ->delimiter(',')
      ->check(CLI::IsMember({"hbm", "dram", "ssd"}));
  cmd->add_option("--attention", a->attention,
                  "Attention parallelism of every deployment: automatic (the simulator's rule, default), tensor "
                  "(plain TP) or data (DP attention)")
      ->check(CLI::IsMember({"automatic", "tensor", "data"}));
  cmd->add_option("--ep", a->ep, "Expert-parallel ranks of every deployment (0 = automatic, default)")
      ->check(CLI::Range(0, limits::kMaxTp));
  cmd->add_option("--concurrency", a->concurrency,
                  "Concurrency grid (default 1,4,16,64; grown and refined near the target)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--disaggregated", a->disaggregated,
                  "Also compare prefill:decode splits of each deployment, as replica ratios such as 1:1,1:2,1:3 "
                  "(docs/disaggregation.md)")
      ->delimiter(',');
  cmd->add_option("--requests", a->requests, "Closed loop: requests per point (default 200)")
      ->check(CLI::Range(1, 1 << 24));
  cmd->add_option("--duration", a->duration,
                  "agentx: measured window per point, a time with its unit: 600s, 10min, 1h (default 600s)");
  cmd->add_option("--out", a->sweep.out, "Output folder (question.yaml, results, report, serve-command.sh)")
      ->required();
  cmd->add_flag("--resume", a->sweep.resume,
                "Go on with an interrupted ask in --out: the same question keeps its finished points");
  cmd->add_option("--jobs", a->sweep.jobs, "Worker threads (0 = one per hardware thread)")
      ->check(CLI::Range(0, limits::kMaxJobs));
  cmd->add_option("--progress", a->sweep.progress, "Progress display: auto, bar, lines, none")
      ->check(CLI::IsMember({"auto", "bar", "lines", "none"}));
  cmd->add_flag("--json", a->sweep.json, "Print the outcome as one JSON object");
  add_price_options(cmd, a->sweep.price);
  cmd->callback([&action, a] { action = [a] { return ask_command(*a); }; });
}

}  // namespace engramsim::cli
