#include "sim/workload/agentx_generator.hpp"

#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/rng.hpp"

namespace engramsim::sim {

namespace {

// The fitted distributions (docs/agentic.md "Generator"; tools/agentx/fit_agentx_generator.py
// prints every fit and how close it comes). Published corpus figures in the comments.
struct LogNormal {
  double mu;
  double sigma;
};
constexpr LogNormal kTurns{4.1744, 1.2678};   // main turns per session: p50 65, p90 330 (mean 145 = corpus)
constexpr LogNormal kOutput{6.4232, 1.3560};  // main output: p50 616, p90 3,502
constexpr std::int64_t kMaxOutput = 32000;    // a call's output limit [E]
// New content of a turn (tool results, user text), before the previous output is added: ordinary
// results and, for 3.6 % of turns, large reads or pastes. Fitted so the uncached tokens per turn
// ceil64(previous out + new) come to p50 1,664, mean 3,792, p99 46,722.
constexpr LogNormal kNewSmall{6.4445, 0.8610};
constexpr LogNormal kNewLarge{10.1208, 0.9189};
constexpr double kNewLargeShare = 0.0360;
// End-to-start gap between main turns (s): a scale mixture, fitted to p50 4.9, p90 131.5,
// p99 3,257 and mean 395 (a single lognormal through p50/p90 has mean 132 and p99 1,921).
constexpr LogNormal kGapNarrow{1.5697, 2.2969};
constexpr LogNormal kGapWide{1.7058, 3.5574};
constexpr double kGapWideShare = 0.2259;
constexpr double kGapCapS = 604800;               // a week
constexpr double kSubagentSessionShare = 0.445;   // sessions with subagents
constexpr LogNormal kGroups{1.3863, 1.3313};      // groups per such session: median 4, mean 9.7 (1,697 / 175)
constexpr LogNormal kGroupCalls{2.7726, 0.9348};  // calls per group: median 16, mean 24.8 (42,029 / 1,697)
constexpr std::int64_t kMaxGroupsAtOnce = 3;
// Subagents read and search more per call than the main agent: their new content is the main
// agent's scaled by this factor (fitted to subagent input p50 64,000 / p90 196,326).
constexpr double kSubagentNewScale = 1.6;
// Subagents run with a 256k context [E] (compacted as the main agent is): without a limit their
// input p90 comes out at 333k against the published 196k.
constexpr std::int64_t kSubagentContext = 262144;
// The main agent's context also restarts before the limit (the user clears it, starts a new task):
// a per-turn hazard fitted to main input p50 254,080 (without it: 321k).
constexpr double kResetHazard = 0.0045;
constexpr LogNormal kSubagentGap{0.6931, 1.0};  // between a group's calls: median 2 s [E]
// Service time [E]: TTFT = 0.4 s + uncached tokens at 8,000 tok/s; decode at a per-call rate with
// median 100 tok/s (sessions then wait ~0.96 of their time, as the corpus does).
constexpr double kTtftBaseS = 0.4;
constexpr double kPrefillTokS = 8000;
constexpr LogNormal kDecodeTokS{4.6052, 0.25};
// Context compaction: when a prompt would pass this share of the context the client summarises
// the conversation and restarts from the system prompt plus a summary of 8k-24k tokens [E].
constexpr double kCompactShare = 0.94;
constexpr std::int64_t kSummaryMin = 8192;
constexpr std::int64_t kSummaryMax = 24576;
constexpr std::int64_t kMaxTurns = 4000;
constexpr std::int64_t kMaxGroupCalls = 1000;
// Client system prompt + tool definitions (blocks), shared across sessions: four main-agent
// variants (client versions) and three subagent types [E].
constexpr std::array<std::int64_t, 4> kMainSystemBlocks{280, 320, 352, 384};
constexpr std::array<std::int64_t, 3> kSubagentSystemBlocks{96, 128, 160};

double draw(RngStream& rng, const LogNormal& d) { return std::exp(d.mu + d.sigma * rng.normal(0.0, 1.0)); }
std::int64_t draw_count(RngStream& rng, const LogNormal& d, std::int64_t lo, std::int64_t hi) {
  return std::clamp<std::int64_t>(std::llround(draw(rng, d)), lo, hi);
}
// Times in whole microseconds, so a written corpus reads back to the same nanoseconds.
Time micros(double seconds) { return Time::ns(std::llround(seconds * 1e6) * 1000); }

class AgentxGenerator final : public AgenticSessionSource {
 public:
  explicit AgentxGenerator(const AgentxGeneratorParams& p) : p_(p) {
    std::uint64_t id = 0;
    for (std::size_t v = 0; v < kMainSystemBlocks.size(); ++v) {
      main_system_[v] = id;
      id += static_cast<std::uint64_t>(kMainSystemBlocks[v]);
    }
    for (std::size_t v = 0; v < kSubagentSystemBlocks.size(); ++v) {
      sub_system_[v] = id;
      id += static_cast<std::uint64_t>(kSubagentSystemBlocks[v]);
    }
    next_id_ = id;
  }
  bool next(AgenticSession& out) override;
  std::string describe() const override {
    return "agentx generator (seed " + std::to_string(p_.seed) + ", " + std::to_string(p_.sessions) + " sessions)";
  }

 private:
  struct Chain {  // one agent's prompt: block ids of the last prompt, previous output, clock
    std::vector<std::uint64_t> blocks;
    std::int64_t context = 0;  // the model's context length
    double reset_hazard = 0;
    std::int64_t prev_out = 0;
    Time now;
  };
  void start_chain(Chain& c, std::uint64_t system_first, std::int64_t system_blocks, std::int64_t tokens);
  void append_tokens(Chain& c, std::int64_t tokens);
  std::int64_t new_content(RngStream& rng, double scale) const;
  AgenticCall make_call(RngStream& rng, Chain& c, std::int64_t new_tokens, std::uint64_t system_first,
                        std::int64_t system_blocks);
  AgenticSubagent make_group(RngStream& rng, Time start, std::int64_t index, Time& end);
  std::vector<std::int64_t> spawn_plan(RngStream& rng, std::int64_t turns) const;

  AgentxGeneratorParams p_;
  std::array<std::uint64_t, kMainSystemBlocks.size()> main_system_{};
  std::array<std::uint64_t, kSubagentSystemBlocks.size()> sub_system_{};
  std::uint64_t next_id_ = 0;
  std::int32_t produced_ = 0;
};

std::int64_t AgentxGenerator::new_content(RngStream& rng, double scale) const {
  const bool large = rng.uniform01() < kNewLargeShare;
  return std::max<std::int64_t>(1, std::llround(scale * draw(rng, large ? kNewLarge : kNewSmall)));
}

void AgentxGenerator::append_tokens(Chain& c, std::int64_t tokens) {
  const std::int64_t blocks = (tokens + p_.block_tokens - 1) / p_.block_tokens;
  for (std::int64_t b = 0; b < blocks; ++b) c.blocks.push_back(next_id_++);
}

void AgentxGenerator::start_chain(Chain& c, std::uint64_t system_first, std::int64_t system_blocks,
                                  std::int64_t tokens) {
  c.blocks.clear();
  for (std::int64_t b = 0; b < system_blocks; ++b) c.blocks.push_back(system_first + static_cast<std::uint64_t>(b));
  append_tokens(c, tokens);
  c.prev_out = 0;
}

// The next call of chain `c`: previous output plus `new_tokens` appended (or, past the compaction
// point, a fresh prompt of system prompt + summary), output and service time drawn.
AgenticCall AgentxGenerator::make_call(RngStream& rng, Chain& c, std::int64_t new_tokens, std::uint64_t system_first,
                                       std::int64_t system_blocks) {
  const std::int64_t block = p_.block_tokens;
  const std::size_t before = c.blocks.size();
  const std::int64_t added = (c.prev_out + new_tokens + block - 1) / block * block;
  const auto limit = static_cast<std::int64_t>(kCompactShare * static_cast<double>(c.context));
  const bool reset = c.reset_hazard > 0 && rng.uniform01() < c.reset_hazard;
  if (static_cast<std::int64_t>(c.blocks.size()) * block + added > limit || (reset && !c.blocks.empty())) {
    start_chain(c, system_first, system_blocks, rng.uniform_int(kSummaryMin, kSummaryMax));
  } else {
    append_tokens(c, c.prev_out + new_tokens);
  }
  AgenticCall call;
  call.input_tokens = static_cast<std::int32_t>(static_cast<std::int64_t>(c.blocks.size()) * block);
  const std::int64_t room = c.context - call.input_tokens;
  call.output_tokens = static_cast<std::int32_t>(std::clamp<std::int64_t>(
      std::llround(draw(rng, kOutput)), 1, std::min(kMaxOutput, std::max<std::int64_t>(1, room))));
  call.hash_ids = c.blocks;
  const std::int64_t uncached =
      c.blocks.size() > before ? static_cast<std::int64_t>(c.blocks.size() - before) * block : call.input_tokens;
  const double decode_s = call.output_tokens / draw(rng, kDecodeTokS);
  call.api_time = micros(kTtftBaseS + static_cast<double>(uncached) / kPrefillTokS + decode_s);
  call.start = c.now;
  c.now = call.start + call.api_time;
  c.prev_out = call.output_tokens;
  return call;
}

AgenticSubagent AgentxGenerator::make_group(RngStream& rng, Time start, std::int64_t index, Time& end) {
  const std::size_t type = static_cast<std::size_t>(rng.uniform_int(0, kSubagentSystemBlocks.size() - 1));
  AgenticSubagent g;
  g.agent_id = "agent-" + std::to_string(index);
  Chain c;
  start_chain(c, sub_system_[type], kSubagentSystemBlocks[type], 0);
  c.context = std::min<std::int64_t>(p_.max_model_len, kSubagentContext);
  c.now = start;
  const std::int64_t calls = draw_count(rng, kGroupCalls, 1, kMaxGroupCalls);
  for (std::int64_t k = 0; k < calls; ++k) {
    if (k > 0) c.now += micros(draw(rng, kSubagentGap));
    g.calls.push_back(
        make_call(rng, c, new_content(rng, kSubagentNewScale), sub_system_[type], kSubagentSystemBlocks[type]));
  }
  end = c.now;
  return g;
}

// How many subagent groups main turn i launches (0 for most turns; at most kMaxGroupsAtOnce).
std::vector<std::int64_t> AgentxGenerator::spawn_plan(RngStream& rng, std::int64_t turns) const {
  std::vector<std::int64_t> plan(static_cast<std::size_t>(turns), 0);
  if (turns < 2 || rng.uniform01() >= kSubagentSessionShare) return plan;
  std::int64_t groups = draw_count(rng, kGroups, 1, (turns - 1) * kMaxGroupsAtOnce);
  std::vector<std::int64_t> free_turns;
  for (std::int64_t i = 0; i + 1 < turns; ++i) free_turns.push_back(i);  // the last turn answers, never spawns
  while (groups > 0 && !free_turns.empty()) {
    const auto pick = static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(free_turns.size()) - 1));
    const std::int64_t batch = std::min(groups, rng.uniform_int(1, kMaxGroupsAtOnce));
    plan[static_cast<std::size_t>(free_turns[pick])] = batch;
    free_turns[pick] = free_turns.back();
    free_turns.pop_back();
    groups -= batch;
  }
  return plan;
}

double gap_seconds(RngStream& rng) {
  const bool wide = rng.uniform01() < kGapWideShare;
  return std::min(kGapCapS, draw(rng, wide ? kGapWide : kGapNarrow));
}

bool AgentxGenerator::next(AgenticSession& out) {
  if (produced_ >= p_.sessions) return false;
  RngStream rng(p_.seed, "agentx.session." + std::to_string(produced_));
  out = AgenticSession{};
  out.id = "synthetic-" + std::to_string(p_.seed) + "-" + std::to_string(produced_);
  out.block_tokens = p_.block_tokens;
  const std::int64_t turns = draw_count(rng, kTurns, 1, kMaxTurns);
  const std::vector<std::int64_t> plan = spawn_plan(rng, turns);
  const auto variant = static_cast<std::size_t>(rng.uniform_int(0, kMainSystemBlocks.size() - 1));
  Chain main;
  start_chain(main, main_system_[variant], kMainSystemBlocks[variant], 0);
  main.context = p_.max_model_len;
  main.reset_hazard = kResetHazard;
  std::int64_t group_index = 0;
  for (std::int64_t i = 0; i < turns; ++i) {
    AgenticCall call = make_call(rng, main, new_content(rng, 1.0), main_system_[variant], kMainSystemBlocks[variant]);
    const std::int64_t spawn = plan[static_cast<std::size_t>(i)];
    call.type = spawn > 0 ? AgenticCallType::subagent_call : AgenticCallType::normal;
    out.entries.emplace_back(std::move(call));
    // The gap to the next turn includes the subagents' run (the main agent waits for them).
    Time resume = main.now + micros(gap_seconds(rng));
    for (std::int64_t g = 0; g < spawn; ++g) {
      Time end;
      const Time start = main.now + micros(rng.uniform(0.05, 0.5));
      out.entries.emplace_back(make_group(rng, start, group_index++, end));
      resume = std::max(resume, end + micros(rng.uniform(0.05, 0.5)));
    }
    main.now = resume;
  }
  ++produced_;
  return true;
}

// ---- writer ----

void put_int(std::string& s, std::int64_t v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
}

// Seconds with nine decimals from integer nanoseconds (exact).
void put_seconds(std::string& s, Time t) {
  const std::int64_t ns = t.count_ns();
  put_int(s, ns / 1'000'000'000);
  std::string frac = std::to_string(ns % 1'000'000'000);
  s += '.';
  s.append(9 - frac.size(), '0');
  s += frac;
}

void put_string(std::string& s, const std::string& v) {
  s += '"';
  for (const char c : v) {
    if (c == '"' || c == '\\') s += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;  // ids hold no control characters
    s += c;
  }
  s += '"';
}

void put_call(std::string& s, const AgenticCall& c) {
  s += "{\"t\":";
  put_seconds(s, c.start);
  s += ",\"type\":\"";
  s += kAgenticCallTypeNames.name(c.type);
  s += '"';
  s += ",\"model\":\"synthetic\",\"in\":";
  put_int(s, c.input_tokens);
  s += ",\"out\":";
  put_int(s, c.output_tokens);
  s += ",\"hash_ids\":[";
  for (std::size_t i = 0; i < c.hash_ids.size(); ++i) {
    if (i > 0) s += ',';
    put_int(s, static_cast<std::int64_t>(c.hash_ids[i]));
  }
  s += "],\"api_time\":";
  put_seconds(s, c.api_time);
  if (c.think_time > Time::zero()) {
    s += ",\"think_time\":";
    put_seconds(s, c.think_time);
  }
  s += ",\"input_types\":[\"text\"],\"output_types\":[\"text\"],\"stop\":\"end_turn\"}";
}

void put_group(std::string& s, const AgenticSubagent& g) {
  s += "{\"type\":\"subagent\",\"agent_id\":";
  put_string(s, g.agent_id);
  s += ",\"subagent_type\":\"general-purpose\",\"status\":\"completed\",\"duration_ms\":";
  const Time span =
      g.calls.empty() ? Time::zero() : g.calls.back().start + g.calls.back().api_time - g.calls.front().start;
  put_int(s, span.count_ns() / 1'000'000);
  s += ",\"models\":[\"synthetic\"],\"requests\":[";
  for (std::size_t i = 0; i < g.calls.size(); ++i) {
    if (i > 0) s += ',';
    put_call(s, g.calls[i]);
  }
  s += "]}";
}

std::string session_line(const AgenticSession& session) {
  std::string s = "{\"id\":";
  put_string(s, session.id);
  s += ",\"models\":[\"synthetic\"],\"block_size\":";
  put_int(s, session.block_tokens);
  s += ",\"hash_id_scope\":\"local\",\"requests\":[";
  for (std::size_t i = 0; i < session.entries.size(); ++i) {
    if (i > 0) s += ',';
    if (const auto* call = std::get_if<AgenticCall>(&session.entries[i]))
      put_call(s, *call);
    else
      put_group(s, std::get<AgenticSubagent>(session.entries[i]));
  }
  s += "]}\n";
  return s;
}

}  // namespace

std::unique_ptr<AgenticSessionSource> make_agentx_generator(const AgentxGeneratorParams& params) {
  if (params.sessions < 1) throw ConfigError({}, "sessions", "must be >= 1, got " + std::to_string(params.sessions));
  if (params.block_tokens < 1 || params.block_tokens > (1 << 20))
    throw ConfigError({}, "block_tokens", "must be in [1, 1048576], got " + std::to_string(params.block_tokens));
  const std::int64_t needed = (kMainSystemBlocks.back() + 1) * 64 + kSummaryMax + kMaxOutput;
  if (params.max_model_len < needed * 2)
    throw ConfigError(
        {}, "max_model_len",
        "must be >= " + std::to_string(needed * 2) + " (room for the system prompt, a summary and outputs)");
  return std::make_unique<AgentxGenerator>(params);
}

void write_agentx_trace(AgenticSessionSource& source, std::ostream& out) {
  AgenticSession s;
  while (source.next(s)) {
    const std::string line = session_line(s);
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
}

// The corpus goes to a temporary name beside `path` and is renamed only once whole, so a full disk
// or a kill never leaves a cut corpus under the final name; an error names the file and the reason.
std::int64_t write_agentx_trace_file(AgenticSessionSource& source, const std::string& path) {
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  const auto fail = [&](int error) {
    std::remove(tmp.c_str());
    return std::runtime_error("cannot write " + path + ": " + std::strerror(error != 0 ? error : EIO));
  };
  errno = 0;
  gzFile f = gzopen(tmp.c_str(), gz ? "wb9" : "wbT");
  if (f == nullptr) throw fail(errno);
  AgenticSession s;
  std::int64_t n = 0;
  while (source.next(s)) {
    const std::string line = session_line(s);
    if (gzwrite(f, line.data(), static_cast<unsigned>(line.size())) != static_cast<int>(line.size())) {
      const int error = errno;
      gzclose(f);
      throw fail(error);
    }
    ++n;
  }
  if (gzclose(f) != Z_OK) throw fail(errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw fail(errno);
  return n;
}

}  // namespace engramsim::sim
