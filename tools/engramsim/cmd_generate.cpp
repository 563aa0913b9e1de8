// `engramsim generate agentx --seed N --sessions N --out FILE[.gz]`: writes a synthetic AgentX-like
// corpus (sim/workload/agentx_generator.hpp) as Weka trace v7 JSON lines, gzip-compressed when FILE
// ends in .gz. The same seed and session count give the same bytes. Exit codes: 0 written; 1 I/O;
// 2 bad input (an option out of range).
#include <iostream>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "sim/workload/agentx_generator.hpp"
#include "tools/engramsim/cli_common.hpp"

namespace engramsim::cli {
namespace {

struct GenerateAgentxArgs {
  std::uint64_t seed = 42;
  std::int32_t sessions = 393;
  std::string out;
};

int generate_agentx(const GenerateAgentxArgs& a) {
  sim::AgentxGeneratorParams p;
  p.seed = a.seed;
  p.sessions = a.sessions;
  auto source = sim::make_agentx_generator(p);  // validates before anything is written
  const std::int64_t n = sim::write_agentx_trace_file(*source, a.out);
  std::cout << "wrote " << n << " sessions to " << a.out << " (" << source->describe() << ")\n";
  return exit_code::ok;
}

}  // namespace

void add_generate_command(CLI::App& app, CommandAction& action) {
  CLI::App* cmd = app.add_subcommand("generate", "Write a synthetic workload corpus");
  cmd->require_subcommand(1);
  CLI::App* agentx =
      cmd->add_subcommand("agentx", "A synthetic AgentX-like agentic coding corpus (Weka trace v7 JSONL)");
  auto a = std::make_shared<GenerateAgentxArgs>();
  agentx->add_option("--seed", a->seed, "Random seed")->capture_default_str();
  agentx->add_option("--sessions", a->sessions, "Number of session trees")
      ->check(CLI::Range(1, limits::kMaxAgentxSessions))
      ->capture_default_str();
  agentx->add_option("--out", a->out, "Output file (.gz: gzip-compressed)")->required();
  agentx->callback([&action, a] { action = [a] { return generate_agentx(*a); }; });
}

}  // namespace engramsim::cli
