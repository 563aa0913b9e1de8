#include "scenario_generator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "core/rng.hpp"

namespace engramsim::testing {
namespace {

struct CardChoice {
  const char* name;
  bool engram;
  bool drafter;
  std::vector<int> tps;  // TP degrees that can fit on an 8-GPU node of the larger parts
  int context;           // the card's max_context
};

const std::vector<CardChoice>& cards() {
  static const std::vector<CardChoice> list = {
      {"llama-3.1-8b", false, false, {1, 2}, 131072},
      {"engram-offload-dense-4b", true, false, {1, 2}, 4096},
      {"engram-offload-dense-8b", true, false, {1, 2}, 4096},
      {"engram-27b", true, false, {1, 2, 4}, 4096},
      {"llama-3.1-70b", false, false, {2, 4, 8}, 131072},
      {"llama-2-70b", false, false, {2, 4}, 4096},
      {"engram-40b", true, false, {2, 4}, 4096},
      {"deepseek-v4.1-flash", true, true, {2, 4, 8}, 1048576},
      {"qwen3-235b-a22b", false, false, {4, 8}, 40960},
      {"deepseek-v3", false, true, {8}, 163840},
  };
  return list;
}

struct NodeChoice {
  const char* name;
  int gpus;
};

const std::vector<NodeChoice>& nodes() {
  static const std::vector<NodeChoice> list = {
      {"hgx-h100", 8}, {"hgx-h200", 8}, {"hgx-h800", 8}, {"hgx-b200", 8},    {"hgx-b300", 8},    {"dgx-a100", 8},
      {"mi300x-8", 8}, {"mi325x-8", 8}, {"mi355x-8", 8}, {"gb200-nvl72", 4}, {"gb300-nvl72", 4},
  };
  return list;
}

class Draw {
 public:
  explicit Draw(std::uint64_t seed) : rng_(seed, "invariants/generator") {}
  std::int64_t in(std::int64_t lo, std::int64_t hi) { return rng_.uniform_int(lo, hi); }
  bool chance(double p) { return rng_.uniform01() < p; }
  double real(double lo, double hi) { return rng_.uniform(lo, hi); }
  template <class T>
  T pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(in(0, static_cast<std::int64_t>(v.size()) - 1))];
  }
  RngStream& rng() { return rng_; }

 private:
  RngStream rng_;
};

std::string length_spec(Draw& d, std::int64_t max_tokens) {
  std::ostringstream os;
  switch (d.in(0, 2)) {
    case 0:
      os << "{distribution: fixed, tokens: " << d.in(1, max_tokens) << "}";
      break;
    case 1: {
      const std::int64_t lo = d.in(1, max_tokens);
      os << "{distribution: uniform, min: " << lo << ", max: " << d.in(lo, max_tokens) << "}";
      break;
    }
    default:
      os << "{distribution: uniform_ratio, tokens: " << d.in(1, max_tokens)
         << ", ratio: " << d.pick<double>({0.1, 0.5, 0.8, 1.0}) << "}";
  }
  return os.str();
}

// A canonical trace of a few sessions whose turns extend the session's prompt; every session starts
// with the same two hash blocks (a shared system prompt), so prefixes are shared within and across
// sessions. Returns the most and the mean tokens (prompt + output) of its rows.
struct TraceTokens {
  std::int64_t longest = 0;
  std::int64_t mean = 0;
};
TraceTokens write_prefix_trace(Draw& d, const std::string& path, int hash_block, int rows) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + path);
  f << "arrival_s,input_tokens,output_tokens,session,hash_ids\n";
  const int sessions = static_cast<int>(d.in(1, 4));
  std::vector<std::int64_t> context(static_cast<std::size_t>(sessions) + 1, 0);
  double t = 0.0;
  TraceTokens size;
  std::int64_t total = 0;
  for (int i = 0; i < rows; ++i) {
    const int s = static_cast<int>(d.in(1, sessions));
    auto& ctx = context[static_cast<std::size_t>(s)];
    ctx += d.in(1, 600);
    const std::int64_t prompt = ctx;
    const std::int64_t blocks = (prompt + hash_block - 1) / hash_block;
    const std::int64_t output = d.in(1, 200);
    size.longest = std::max(size.longest, prompt + output);
    total += prompt + output;
    f << t << ',' << prompt << ',' << output << ',' << s << ",\"";
    for (std::int64_t b = 0; b < blocks; ++b) f << (b == 0 ? "" : " ") << (b < 2 ? b + 1 : s * 100000 + b);
    f << "\"\n";
    t += d.chance(0.3) ? 0.0 : d.real(0.0, 0.5);
    if (ctx > 6000) ctx = 0;
  }
  size.mean = rows > 0 ? total / rows : 0;
  return size;
}

std::string workload_section(Draw& d, GeneratedCase& c, const std::string& dir, std::int64_t& max_model_len) {
  std::ostringstream w;
  w << "workload:\n";
  const std::int64_t kind = d.in(0, 5);
  if (kind <= 1) {
    c.generated_requests = true;
    c.num_requests = static_cast<std::uint64_t>(d.in(1, 40));
    w << "  kind: closed_loop\n  concurrency: " << d.in(1, 16) << "\n  num_requests: " << c.num_requests << "\n";
  } else if (kind <= 3) {
    c.generated_requests = true;
    c.num_requests = static_cast<std::uint64_t>(d.in(1, 40));
    w << "  kind: open_loop\n  num_requests: " << c.num_requests << "\n";
    const double rate = d.pick<double>({0.5, 2.0, 10.0, 40.0, 200.0});
    if (d.chance(0.5))
      w << "  arrival: {process: poisson, rate_per_s: " << rate << "}\n";
    else
      w << "  arrival: {process: gamma, rate_per_s: " << rate << ", cv: " << d.pick<double>({0.5, 1.0, 2.0, 4.0})
        << "}\n";
  }
  if (kind <= 3) {
    if (d.chance(0.2)) {
      w << "  lengths: {distribution: empirical, file: "
           "scenarios/traces/sharegpt_8k_filtered_stats_llama2_tokenizer.csv}\n";
    } else {
      w << "  input: " << length_spec(d, d.pick<std::int64_t>({64, 512, 3000})) << "\n";
      w << "  output: " << length_spec(d, d.pick<std::int64_t>({8, 64, 300})) << "\n";
    }
    return w.str();
  }
  c.num_requests = static_cast<std::uint64_t>(d.in(1, 30));
  w << "  kind: trace\n  num_requests: " << c.num_requests << "\n";
  if (d.chance(0.25)) w << "  concurrency: " << d.in(1, 8) << "\n";
  w << "  trace:\n";
  if (kind == 4) {
    const int block = static_cast<int>(d.pick<std::int64_t>({16, 32, 64}));
    (void)write_prefix_trace(d, dir + "/prefix-trace.csv", block, static_cast<int>(c.num_requests + d.in(0, 5)));
    w << "    path: prefix-trace.csv\n    format: canonical\n    hash_block_tokens: " << block << "\n";
  } else {
    const std::int64_t t = d.in(0, 3);
    static const char* const shipped[] = {"AzureLLMInferenceTrace_conv.csv", "AzureLLMInferenceTrace_code.csv",
                                          "splitwise_conv.csv", "conversation_trace.jsonl.gz"};
    w << "    path: scenarios/traces/" << shipped[t] << "\n";
    if (t == 3) max_model_len = 32768;  // Mooncake prompts run to tens of thousands of tokens
    if (d.chance(0.3)) w << "    rate_scale: " << d.pick<double>({0.5, 4.0, 50.0}) << "\n";
  }
  return w.str();
}

// A workload for a tight case: more long requests in flight than the small KV pool generate_case
// gives it can hold while they grow: a closed loop of 3 to 8 clients per replica (three times in
// four) or an open loop at 1,000 req/s with prompts up to 512 to 3,000 and outputs up to 128 to 600
// tokens, or (one time in five) a prefix-sharing trace replayed by 3 to 8 clients per replica.
// `fit_tokens` receives the tokens (prompt + output) the pool is sized for: the longest request,
// the mean one for the trace (whose session turns grow; longer turns may then be rejected).
std::string tight_workload_section(Draw& d, GeneratedCase& c, const std::string& dir, std::int64_t replicas,
                                   std::int64_t& fit_tokens) {
  std::ostringstream w;
  w << "workload:\n";
  c.num_requests = static_cast<std::uint64_t>(d.in(12, 40));
  const std::int64_t clients = replicas * d.in(3, 8);
  if (d.chance(0.2)) {
    const int block = static_cast<int>(d.pick<std::int64_t>({16, 32, 64}));
    fit_tokens =
        write_prefix_trace(d, dir + "/prefix-trace.csv", block, static_cast<int>(c.num_requests + d.in(0, 5))).mean;
    w << "  kind: trace\n  num_requests: " << c.num_requests << "\n  concurrency: " << clients << "\n  trace:\n"
      << "    path: prefix-trace.csv\n    format: canonical\n    hash_block_tokens: " << block << "\n";
    return w.str();
  }
  c.generated_requests = true;
  if (d.chance(0.75)) {
    w << "  kind: closed_loop\n  concurrency: " << clients << "\n  num_requests: " << c.num_requests << "\n";
  } else {
    w << "  kind: open_loop\n  num_requests: " << c.num_requests
      << "\n  arrival: {process: poisson, rate_per_s: 1000}\n";
  }
  const std::int64_t in_hi = d.pick<std::int64_t>({512, 1500, 3000});
  const std::int64_t out_hi = d.pick<std::int64_t>({128, 300, 600});
  if (d.chance(0.3))
    w << "  input: {distribution: fixed, tokens: " << in_hi << "}\n";
  else
    w << "  input: {distribution: uniform, min: " << in_hi / 2 << ", max: " << in_hi << "}\n";
  w << "  output: {distribution: uniform, min: " << out_hi / 4 << ", max: " << out_hi << "}\n";
  fit_tokens = in_hi + out_hi;
  return w.str();
}

// The KV cap of a tight case: 1.5 to 2.5 times the blocks of `fit_tokens` (at most the context, plus
// room for draft tokens), so that two requests fit at once and a few do not.
std::int64_t tight_kv_cap(Draw& d, std::int64_t fit_tokens, std::int64_t max_model_len, std::int64_t block_size) {
  const std::int64_t tokens = std::min(fit_tokens, max_model_len) + 16;
  const std::int64_t blocks = (tokens + block_size - 1) / block_size;
  const double factor = d.pick<double>({1.5, 2.0, 2.5});
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(blocks) * factor));
}

// A tight case keeps to the policies that preempt (trtllm and static reserve a whole life up front)
// and to batches of several sequences. `block_size` receives the KV block size drawn.
std::string scheduler_section(Draw& d, bool tight, std::int64_t& block_size) {
  std::ostringstream s;
  static const std::vector<std::string> policies = {"vllm", "vllm", "trtllm", "sarathi", "prefill_first", "static"};
  static const std::vector<std::string> preempting = {"vllm", "vllm", "sarathi", "prefill_first"};
  const std::string policy = d.pick(tight ? preempting : policies);
  s << "  scheduler:\n    policy: " << policy << "\n";
  s << "    max_num_seqs: "
    << d.pick<std::int64_t>(tight ? std::vector<std::int64_t>{4, 8, 16, 64, 256}
                                  : std::vector<std::int64_t>{1, 2, 4, 8, 16, 64, 256})
    << "\n";
  s << "    max_num_batched_tokens: " << d.pick<std::int64_t>({256, 512, 2048, 8192}) << "\n";
  block_size = d.pick<std::int64_t>({16, 32, 64});
  s << "    block_size: " << block_size << "\n";
  s << "    enable_prefix_caching: " << (d.chance(0.6) ? "true" : "false") << "\n";
  s << "    gpu_memory_utilization: " << d.pick<double>({0.6, 0.8, 0.9, 0.95}) << "\n";
  if (policy == "vllm" || policy == "trtllm")
    s << "    chunked_prefill: " << (d.chance(0.7) ? "true" : "false") << "\n";
  if (policy == "vllm" && d.chance(0.3))
    s << "    long_prefill_token_threshold: " << d.pick<std::int64_t>({64, 256, 1024}) << "\n";
  if (policy == "sarathi") s << "    chunk_size: " << d.pick<std::int64_t>({64, 256, 512, 1024}) << "\n";
  if (d.chance(0.25)) s << "    cuda_graph_batch_sizes: [1, 2, 4, 8, 16, 32]\n";
  return s.str();
}

std::string engram_section(Draw& d, const CardChoice& card) {
  if (!card.engram) return "";
  static const std::vector<std::string> tiers = {"hbm", "dram", "ssd", "none"};
  const std::string tier = d.pick(tiers);
  std::ostringstream e;
  e << "  engram:\n    tier: " << tier << "\n";
  if (tier == "none") return e.str();
  if (d.chance(0.5)) e << "    access: {model: zipf, exponent: " << d.pick<double>({0.8, 1.0, 1.2}) << "}\n";
  // Same draws in the same order as before; a row cache or the in-run tier needs the direct SSD path.
  const bool row_cache = tier == "ssd" && d.chance(0.5);
  const bool in_run = (tier == "dram" || tier == "ssd") && d.chance(0.25);
  if (row_cache) e << "    dram_cache: 16GiB\n";
  if (in_run) e << "    in_run: true\n";
  if (tier == "ssd" && (row_cache || in_run)) e << "    ssd_path: direct\n";
  return e.str();
}

// Nodes whose presets state NICs (scale_out_bandwidth), so pools may sit on nodes of their own.
bool has_nics(const std::string& node) {
  static const std::vector<std::string> list = {"hgx-h100", "hgx-h200",    "hgx-b200",
                                                "hgx-b300", "gb200-nvl72", "gb300-nvl72"};
  return std::find(list.begin(), list.end(), node) != list.end();
}

// A colocated deployment's key lines (two-space indent) as both pools of a disaggregated one: the
// decode pool as drawn, the prefill pool with its own replica count; one engine for both (vLLM sends
// the KV after the prefill, SGLang chunk by chunk), no in-run Engram tier (pools do not take it).
// Drawn from a stream of its own so the other draws stay as they were.
std::string disaggregated_deployment(std::uint64_t seed, const std::string& keys) {
  RngStream r(seed, "invariants/disaggregated-pools");
  std::ostringstream pool;
  std::istringstream in(keys);
  for (std::string line; std::getline(in, line);)
    if (line.find("in_run:") == std::string::npos) pool << "  " << line << "\n";
  const std::string engine = r.uniform01() < 0.5 ? "vllm" : "sglang";
  const std::string body = pool.str() + "    engine: " + engine + "\n";
  std::string prefill = body;
  const std::size_t at = prefill.find("    replicas: ");
  if (at != std::string::npos) {
    const std::size_t end = prefill.find('\n', at);
    prefill.replace(at, end - at, "    replicas: " + std::to_string(r.uniform_int(1, 2)));
  }
  std::ostringstream y;
  y << "deployment:\n  kind: disaggregated\n  prefill:\n" << prefill << "  decode:\n" << body;
  y << "  kv_transfer: {local_prefill_threshold: " << (r.uniform01() < 0.5 ? 0 : r.uniform_int(16, 2048)) << "}\n";
  return y.str();
}

}  // namespace

int property_cases(int fallback) {
  if (const char* v = std::getenv("ENGRAMSIM_PROPERTY_CASES")) {
    const int n = std::atoi(v);
    if (n > 0) return n;
  }
  return fallback;
}

GeneratedCase generate_case(std::uint64_t seed, const std::string& dir) {
  Draw d(seed);
  GeneratedCase c;
  c.seed = seed;
  // Drawn from a stream of its own, so the other cases are the ones the generator drew before.
  c.tight = RngStream(seed, "invariants/tight").uniform01() < kTightShare;
  const CardChoice card = d.pick(cards());
  const NodeChoice node_choice = d.pick(nodes());
  const NodeChoice* node = &node_choice;
  int tp = d.pick(card.tps);
  while (tp > node->gpus) tp /= 2;
  std::int64_t max_model_len = 8192;
  // A tight case draws its replica count first: its clients scale with it.
  const std::int64_t tight_replicas = c.tight ? d.in(1, 2) : 0;
  std::int64_t fit_tokens = 0;
  const std::string workload = c.tight ? tight_workload_section(d, c, dir, tight_replicas, fit_tokens)
                                       : workload_section(d, c, dir, max_model_len);

  std::ostringstream y;
  y << "name: invariant-case-" << seed << "\nseed: " << d.in(0, 1000000) << "\nmodel: " << card.name
    << "\nnode: " << node->name << "\n";
  max_model_len = std::min<std::int64_t>(max_model_len, card.context);
  std::ostringstream keys;
  keys << "  replicas: " << (c.tight ? tight_replicas : d.in(1, 3)) << "\n  tp: " << tp
       << "\n  max_model_len: " << max_model_len << "\n";
  keys << "  router: " << d.pick<std::string>({"round_robin", "least_outstanding", "least_kv", "session_affinity"})
       << "\n";
  std::int64_t block_size = 16;
  keys << engram_section(d, card) << scheduler_section(d, c.tight, block_size);
  if (card.drafter) keys << "  spec_decode: {enabled: " << (d.chance(0.5) ? "true" : "false") << "}\n";
  c.disaggregated =
      !c.tight && has_nics(node->name) && RngStream(seed, "invariants/disaggregated").uniform01() < kDisaggregatedShare;
  y << (c.disaggregated ? disaggregated_deployment(seed, keys.str()) : "deployment:\n" + keys.str());
  y << workload;
  if (c.tight) {
    c.kv_block_cap = tight_kv_cap(d, fit_tokens, max_model_len, block_size);
  } else {
    if (d.chance(0.2)) {
      c.has_horizon = true;
      y << "horizon: " << d.pick<std::string>({"50ms", "500ms", "3s"}) << "\n";
    }
    if (d.chance(0.5)) c.kv_block_cap = d.pick<std::int64_t>({24, 64, 200, 500, 1500});
  }
  c.yaml = y.str();
  c.scenario_path = dir + "/scenario.yaml";
  std::ofstream f(c.scenario_path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + c.scenario_path);
  f << c.yaml;
  return c;
}

}  // namespace engramsim::testing
