#include "scenario/schema/scenario_workload.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "scenario/schema/data_path.hpp"
#include "sim/workload/agentx_generator.hpp"
#include "sim/workload/agentx_trace_reader.hpp"
#include "sim/workload/line_reader.hpp"
#include "sim/workload/synthetic_source.hpp"
#include "sim/workload/trace_format.hpp"
#include "sim/workload/transformed_source.hpp"

namespace engramsim::scenario {

const char* to_string(WorkloadKind k) { return kWorkloadKindNames.name(k); }

namespace {

constexpr std::int64_t kMaxTokens = std::numeric_limits<std::int32_t>::max();

std::shared_ptr<const sim::LengthMarginal> parse_marginal(const ConfigNode& n) {
  const std::string kind = n.one_of("distribution", {"fixed", "uniform", "uniform_ratio"});
  std::shared_ptr<const sim::LengthMarginal> out;
  if (kind == "fixed") {
    out = std::make_shared<sim::FixedLength>(static_cast<std::int32_t>(n.integer("tokens", 1, kMaxTokens)));
  } else if (kind == "uniform") {
    const auto lo = static_cast<std::int32_t>(n.integer("min", 1, kMaxTokens));
    const auto hi = static_cast<std::int32_t>(n.integer("max", 1, kMaxTokens));
    if (hi < lo) n.fail_key("max", "must be >= min (" + std::to_string(lo) + ")");
    out = std::make_shared<sim::UniformLength>(lo, hi);
  } else {
    const auto tokens = static_cast<std::int32_t>(n.integer("tokens", 1, kMaxTokens));
    const double ratio = n.number("ratio", 1e-9, 1.0);
    // vLLM's random dataset: lengths uniform on [floor(ratio * N), N], at least one token.
    const auto lo = std::max<std::int32_t>(1, static_cast<std::int32_t>(std::floor(ratio * tokens)));
    out = std::make_shared<sim::UniformLength>(lo, tokens);
  }
  n.finish();
  return out;
}

std::string existing_file(const ConfigNode& parent, const std::string& key) {
  const std::string path = resolve_data_path(parent, parent.str(key));
  if (const std::string why = ConfigNode::file_problem(path); !why.empty()) parent.fail_key(key, path + ": " + why);
  return path;
}

// A trace file: read again by every run, so a pipe or FIFO is refused at the key, never opened.
std::string existing_trace(const ConfigNode& parent, const std::string& key) {
  const std::string path = existing_file(parent, key);
  if (const std::string why = sim::trace_file_problem(path); !why.empty()) parent.fail_key(key, path + ": " + why);
  return path;
}

using LengthFactory = std::function<std::unique_ptr<sim::LengthDistribution>()>;

std::string seconds_text(Time t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g s", t.seconds());
  return buf;
}

std::uint64_t requests_or_unbounded(std::int64_t n) { return n > 0 ? static_cast<std::uint64_t>(n) : UINT64_MAX; }

// The most live session trees an agentx workload may ask for: each lane holds a whole tree (a
// generated main agent averages some 4 MB of hash ids), and InferenceX sweeps 1..128.
constexpr std::int64_t kMaxAgentxLanes = 4096;
// The longest measured window or grace (a week): longer asks for more records than a run may keep.
constexpr double kMaxAgentxSeconds = 7 * 24 * 3600.0;

// `generate: {seed, sessions}`: the synthetic corpus, its context the deployment's max_model_len.
sim::AgentxGeneratorParams parse_agentx_generate(const ConfigNode& w, std::int64_t model_len) {
  const ConfigNode g = w.child("generate");
  sim::AgentxGeneratorParams gp;
  gp.seed = static_cast<std::uint64_t>(g.integer_or("seed", 42, 0));
  gp.sessions = static_cast<std::int32_t>(g.integer_or("sessions", 393, 1, 1'000'000));
  g.finish();
  gp.max_model_len = static_cast<std::int32_t>(std::min<std::int64_t>(model_len, kMaxTokens));
  try {
    make_agentx_generator(gp);  // out-of-range params fail now, at the key
  } catch (const ConfigError& e) {
    g.fail("the deployment's max_model_len " + std::to_string(model_len) + " is too small for a generated corpus (" +
           e.field() + " " + e.message() + ")");
  }
  return gp;
}

// The corpus file, read to its first session now: a file that is no corpus (or an empty one) fails
// here, at the key, not inside a run.
std::string agentx_corpus(const ConfigNode& w) {
  const std::string path = existing_trace(w, "trace");
  try {
    sim::AgenticSession first;
    if (!sim::open_agentx_trace(path)->next(first)) w.fail_key("trace", path + ": holds no sessions");
  } catch (const ConfigError& e) {
    if (e.where().file.empty()) w.fail_key("trace", path + ": " + e.message());
    throw;
  }
  return path;
}

void add_agentx_corpus_keys(FieldTable<AgentxDraft>& t) {
  t.custom({"trace", "path", "one of `trace`/`generate`",
            "an AgentX corpus (Weka trace v7 JSON lines, plain or gzip; docs/agentic.md \"Format\"), beside the "
            "scenario, then under the data root; `scenarios/traces/agentx-synthetic-seed42.jsonl.gz` ships. Opened "
            "when the scenario is parsed; `validate` reads it to its end"},
           [](const ConfigNode& w, AgentxDraft& o) { o.trace_path = agentx_corpus(w); });
  t.custom({"generate", "`{seed: 42, sessions: 393}`", "one of `trace`/`generate`",
            "the synthetic corpus (docs/agentic.md \"Generator\"), its contexts compacted at the deployment's "
            "`max_model_len` (the card's `max_context` when 0); sessions in [1, 1,000,000]"},
           [](const ConfigNode& w, AgentxDraft& o) { o.generate = parse_agentx_generate(w, o.model_len); });
}

void add_agentx_replay_keys(FieldTable<AgentxDraft>& t) {
  const Time week = Time::from_seconds(kMaxAgentxSeconds);
  t.integer(
       "concurrency", [](auto& o) -> auto& { return o.replay.lanes; }, 1, kMaxAgentxLanes,
       "lanes: session trees live at once (each holds its whole tree)")
      .required();
  t.time(
      "duration", [](auto& o) -> auto& { return o.replay.duration; }, Time::ns(1), week, "the measured window");
  t.integer(
      "warmup_requests", [](auto& o) -> auto& { return o.replay.warmup_requests; }, 0, 1'000'000,
      "warm-up requests per lane, not measured");
  t.time(
      "grace", [](auto& o) -> auto& { return o.replay.grace; }, Time::zero(), week,
      "the latest start of the measured window");
  t.time(
      "tree_idle_cap", [](auto& o) -> auto& { return o.replay.tree_idle_cap; }, Time::zero(), week,
      "cap on each recorded end-to-start gap");
  t.time(
      "system_idle_cap", [](auto& o) -> auto& { return o.replay.system_idle_cap; }, Time::zero(), week,
      "cap on time with nothing in the system");
  t.custom({"start_ratio", "`{min: 0.25, max: 0.75}`", "as shown",
            "a lane's first tree starts at this share of its main calls (uniform draw); 0 <= min <= max <= 1"},
           [](const ConfigNode& w, AgentxDraft& o) {
             const ConfigNode r = w.child("start_ratio");
             o.replay.start_ratio_min = r.number_or("min", o.replay.start_ratio_min, 0.0, 1.0);
             o.replay.start_ratio_max = r.number_or("max", o.replay.start_ratio_max, 0.0, 1.0);
             if (o.replay.start_ratio_max < o.replay.start_ratio_min)
               r.fail_key("max", "must be >= min (" + std::to_string(o.replay.start_ratio_min) + ")");
             r.finish();
           });
}

// `kind: agentx`: the agentic replay of a corpus file or a generated corpus.
ScenarioWorkload parse_agentx(const ConfigNode& w, std::int64_t model_len) {
  if (w.has("trace") == w.has("generate"))
    w.fail("an agentx workload needs exactly one of trace (a corpus file) or generate: {seed, sessions}");
  AgentxDraft draft;
  draft.model_len = model_len;
  static const FieldTable<AgentxDraft> schema = agentx_schema();
  schema.read(w, draft);
  w.finish();
  ScenarioWorkload out;
  out.kind = WorkloadKind::agentx;
  sim::AgenticWorkloadSpec a;
  if (draft.generate) {
    const sim::AgentxGeneratorParams gp = *draft.generate;
    a.sessions = [gp](std::uint64_t) { return make_agentx_generator(gp); };
    out.description = "agentx replay of " + std::to_string(gp.sessions) + " generated sessions (seed " +
                      std::to_string(gp.seed) + ")";
  } else {
    const std::string path = draft.trace_path;
    a.sessions = [path](std::uint64_t) { return sim::open_agentx_trace(path); };
    out.trace_path = path;
    out.trace_read = "agentx " + path;
    out.description = "agentx replay of " + std::filesystem::path(path).filename().string();
  }
  a.replay = draft.replay;
  out.spec.agentic = a;
  const sim::AgenticReplayParams& p = a.replay;
  out.description += ", " + std::to_string(p.lanes) + " lanes, " + seconds_text(p.duration) +
                     " measured after at most " + seconds_text(p.grace) + " of warm-up";
  return out;
}

// ---- closed and open loops ----

// `lengths: {distribution: empirical, file, max_total_tokens}`: loaded and checked once, now.
std::shared_ptr<const sim::EmpiricalLengths> parse_empirical(const ConfigNode& l) {
  l.one_of("distribution", {"empirical"});
  const std::string file = existing_file(l, "file");
  const std::int64_t max_total = l.integer_or("max_total_tokens", 0, 0);
  l.finish();
  return std::make_shared<const sim::EmpiricalLengths>(file, max_total);
}

// `input:` + `output:`, or `lengths:` (empirical pairs).
void add_length_keys(FieldTable<GeneratedDraft>& t) {
  t.rule([](const ConfigNode& w, GeneratedDraft&) {
    const bool pairs = w.has("lengths");
    if (pairs && (w.has("input") || w.has("output")))
      w.fail_key("lengths", "give either lengths (empirical pairs) or input and output, not both");
    if (!pairs && (!w.has("input") || !w.has("output")))
      w.fail("a generated workload needs input and output (or lengths)");
  });
  t.custom({"input", "a length distribution (below)", "required unless `lengths`",
            "prompt tokens, drawn independently per request before the output"},
           [](const ConfigNode& w, GeneratedDraft& o) { o.input = parse_marginal(w.child("input")); });
  t.custom({"output", "a length distribution (below)", "required unless `lengths`", "output tokens"},
           [](const ConfigNode& w, GeneratedDraft& o) { o.output = parse_marginal(w.child("output")); });
  t.custom({"lengths", "`{distribution: empirical, file: F, max_total_tokens: 0}`", "none",
            "instead of `input`/`output`: (input, output) pairs drawn uniformly with replacement from a lengths file "
            "(`num_prefill_tokens,num_decode_tokens` columns), beside the scenario, then under the data root"},
           [](const ConfigNode& w, GeneratedDraft& o) { o.pairs = parse_empirical(w.child("lengths")); });
}

// The draft's lengths as a factory (each run samples from its own copy), and their description.
LengthFactory lengths_of(const GeneratedDraft& o, std::string& description) {
  if (o.pairs) {
    description = o.pairs->describe();
    return [table = o.pairs] { return std::make_unique<sim::EmpiricalLengths>(*table); };
  }
  description = sim::IndependentLengths(o.input, o.output).describe();
  return [in = o.input, out = o.output] { return std::make_unique<sim::IndependentLengths>(in, out); };
}

constexpr std::int64_t kMaxClients = std::numeric_limits<std::int32_t>::max();

FieldTable<GeneratedDraft> arrival_schema() {
  FieldTable<GeneratedDraft> t("workload.arrival");
  t.choice("process", &GeneratedDraft::process, kArrivalKindNames.choices(), "the arrival process").required();
  t.number("rate_per_s", &GeneratedDraft::rate_per_s, 1e-12, 1e12, "mean arrivals per second").required();
  t.number("cv", &GeneratedDraft::cv, 1e-6, 1e6,
           "gamma: the gaps' coefficient of variation (1 is Poisson); required for gamma, refused for poisson")
      .default_words("gamma: required");
  t.rule([](const ConfigNode& a, GeneratedDraft& o) {
    o.rate_at = a.child("rate_per_s").location();
    if (o.process == ArrivalKind::gamma) a.child("cv");  // "missing required field"
    if (o.process == ArrivalKind::poisson && a.has("cv")) a.fail_key("cv", "only a gamma process takes cv");
  });
  return t;
}

ScenarioWorkload closed_loop_workload(const GeneratedDraft& o) {
  ScenarioWorkload out;
  out.kind = WorkloadKind::closed_loop;
  std::string lengths_text;
  const LengthFactory lengths = lengths_of(o, lengths_text);
  const auto count = static_cast<std::uint64_t>(o.num_requests);
  const auto warmup = static_cast<std::uint64_t>(o.warmup_requests);
  const std::uint64_t sent = count + warmup;
  out.num_requests = count;
  out.spec.concurrency = o.concurrency;
  out.spec.max_requests = sent;
  out.spec.warmup_requests = warmup;
  out.spec.source = [lengths, sent](std::uint64_t seed) -> std::unique_ptr<sim::RequestSource> {
    return std::make_unique<sim::SyntheticSource>(std::make_unique<sim::ImmediateArrivals>(), lengths(), seed, sent);
  };
  const std::string requests =
      warmup > 0 ? std::to_string(warmup) + " warm-up and " + std::to_string(count) + " measured requests"
                 : std::to_string(count) + " requests";
  out.description = "closed loop, " + std::to_string(o.concurrency) + " clients, " + requests + ", " + lengths_text;
  if (o.pairs) out.lengths_path = o.pairs->path();
  return out;
}

// "open loop, poisson arrivals at 2 req/s, 100 requests, for 60 s, <lengths>".
std::string open_loop_description(const GeneratedDraft& o, const std::string& lengths_text) {
  char rate_text[64];
  std::snprintf(rate_text, sizeof rate_text, "%g", o.rate_per_s);
  const std::int64_t n = o.num_requests;
  const bool gamma = o.process == ArrivalKind::gamma;
  return "open loop, " + std::string(gamma ? "gamma" : "poisson") + " arrivals at " + rate_text + " req/s" +
         (gamma ? " (cv " + std::to_string(o.cv) + ")" : std::string()) +
         (n > 0 ? ", " + std::to_string(n) + " requests" : std::string()) +
         (o.duration != Time::max() ? ", for " + seconds_text(o.duration) : std::string()) + ", " + lengths_text;
}

ScenarioWorkload open_loop_workload(const GeneratedDraft& o) {
  ScenarioWorkload out;
  out.kind = WorkloadKind::open_loop;
  std::string lengths_text;
  const LengthFactory lengths = lengths_of(o, lengths_text);
  const std::uint64_t count = requests_or_unbounded(o.num_requests);
  out.num_requests = o.num_requests > 0 ? count : 0;
  out.spec.max_requests = count;
  out.spec.source = [process = o.process, rate = o.rate_per_s, cv = o.cv, lengths, count, duration = o.duration,
                     rate_at = o.rate_at](std::uint64_t seed) -> std::unique_ptr<sim::RequestSource> {
    std::unique_ptr<sim::ArrivalProcess> arrivals;
    if (process == ArrivalKind::poisson)
      arrivals = std::make_unique<sim::PoissonArrivals>(rate);
    else
      arrivals = std::make_unique<sim::GammaArrivals>(rate, cv);
    auto source = std::make_unique<sim::SyntheticSource>(std::move(arrivals), lengths(), seed, count, duration);
    source->locate_rate(rate_at, "workload.arrival.rate_per_s");
    return source;
  };
  out.description = open_loop_description(o, lengths_text);
  if (o.pairs) out.lengths_path = o.pairs->path();
  return out;
}

template <class Draft>
Draft read_kind(const ConfigNode& w, const FieldTable<Draft>& schema) {
  Draft draft;
  schema.read(w, draft);
  w.finish();
  return draft;
}

std::string names_words(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "`" : " \\| `") + n + "`";
  return out;
}

void add_trace_file_keys(FieldTable<TraceDraft>& t) {
  t.custom({"path", "path", "required",
            "beside the scenario, then under the data root (`scenarios/traces/` ships Azure, Mooncake, Vidur and "
            "ShareGPT files)"},
           [](const ConfigNode& m, TraceDraft& o) { o.path = existing_trace(m, "path"); })
      .required();
  t.custom({"format", names_words(sim::trace_format_names()), "`auto`", "docs/simulator.md"},
           [](const ConfigNode& m, TraceDraft& o) { o.format = m.one_of("format", sim::trace_format_names()); });
}

void add_trace_transform_keys(FieldTable<TraceDraft>& t) {
  t.number_above(
       "time_scale", [](auto& o) -> auto& { return o.transform.time_scale; }, 0.0, 1e12, "stretch the timeline")
      .type_words("number > 0");
  t.number_above(
       "rate_scale", [](auto& o) -> auto& { return o.transform.rate_scale; }, 0.0, 1e12,
       "offer this many times the request rate")
      .type_words("number > 0");
  t.custom({"window", "`{start: time, end: time}`", "whole trace", "replay only this part, shifted to t = 0"},
           [](const ConfigNode& m, TraceDraft& o) {
             const ConfigNode win = m.child("window");
             o.transform.window_start = win.time_or("start", Time::zero());
             o.transform.window_end = win.time_or("end", Time::max());
             if (o.transform.window_end <= o.transform.window_start) win.fail("window end must be after its start");
             win.finish();
           });
  t.integer(
       "hash_block_tokens", [](auto& o) -> auto& { return o.options.hash_block_tokens; }, 0, kMaxTokens,
       "tokens per prefix hash; each row must carry one hash per full or per started block of its prompt")
      .default_words("the format's");
  t.boolean(
      "skip_zero_output", [](auto& o) -> auto& { return o.options.skip_zero_output; },
      "drop rows with zero output tokens (BurstGPT failures)");
}

bool transforms(const sim::TransformParams& tp) {
  return tp.window_start != Time::zero() || tp.window_end != Time::max() || tp.time_scale != 1.0 ||
         tp.rate_scale != 1.0;
}

// "trace F (format), time x1, rate x2, window 0 s .. end, first N requests, closed loop with C clients".
std::string trace_description(const std::string& path, const std::string& format, const sim::TransformParams& tp,
                              std::int64_t n, std::int32_t clients) {
  std::string out = "trace " + std::filesystem::path(path).filename().string() + " (" + format + ")";
  if (transforms(tp)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ", time x%g, rate x%g", tp.time_scale, tp.rate_scale);
    if (tp.window_start != Time::zero() || tp.window_end != Time::max())
      out += ", window " + seconds_text(tp.window_start) + " .. " +
             (tp.window_end == Time::max() ? std::string("end") : seconds_text(tp.window_end));
    out += buf;
  }
  if (n > 0) out += ", first " + std::to_string(n) + " requests";
  if (clients > 0) out += ", closed loop with " + std::to_string(clients) + " clients";
  return out;
}

// ScenarioWorkload::trace_read of a trace workload: every typed value that decides the rows read.
std::string trace_read_key(const std::string& path, const std::string& format, const sim::TraceOptions& opt,
                           const sim::TransformParams& tp, std::int64_t n) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                " hash_block %d skip_zero %d rebase %d window %lld..%lld time x%.17g rate x%.17g cap %llu first %lld",
                opt.hash_block_tokens, opt.skip_zero_output ? 1 : 0, opt.rebase ? 1 : 0,
                static_cast<long long>(tp.window_start.count_ns()), static_cast<long long>(tp.window_end.count_ns()),
                tp.time_scale, tp.rate_scale, static_cast<unsigned long long>(tp.max_requests),
                static_cast<long long>(n));
  return "trace " + path + " (" + format + ")" + buf;
}

ScenarioWorkload trace_workload(const TraceWorkloadDraft& o) {
  ScenarioWorkload out;
  out.kind = WorkloadKind::trace;
  const std::string& path = o.trace.path;
  const std::string& format = o.trace.format;
  const sim::TransformParams tp = o.trace.transform;
  sim::TraceOptions opt = o.trace.options;
  // A run keeps a record of every request: the trace's rows past the bound are refused at their line.
  opt.max_requests = static_cast<std::uint64_t>(kMaxRequestsPerRun);
  opt.bound_from_ns = tp.window_start.count_ns();
  const std::int64_t n = o.num_requests;
  const std::int32_t clients = o.concurrency;
  // An unrecognisable file fails now, at the edge, not inside a run.
  const std::string resolved_format = format == "auto" ? sim::detect_trace_format(path) : format;
  open_trace(path, resolved_format, opt);

  out.trace_path = path;
  out.num_requests = n > 0 ? static_cast<std::uint64_t>(n) : 0;
  out.spec.concurrency = clients;
  out.spec.max_requests = requests_or_unbounded(n);
  const bool transform = transforms(tp);
  out.spec.source = [path, resolved_format, opt, tp, transform](std::uint64_t) -> std::unique_ptr<sim::RequestSource> {
    auto src = open_trace(path, resolved_format, opt);
    if (!transform) return src;
    return std::make_unique<sim::TransformedSource>(std::move(src), tp);
  };
  out.description = trace_description(path, resolved_format, tp, n, clients);
  out.trace_read = trace_read_key(path, resolved_format, o.trace.options, tp, n);
  return out;
}

}  // namespace

FieldTable<AgentxDraft> agentx_schema() {
  FieldTable<AgentxDraft> t("workload");
  add_agentx_corpus_keys(t);
  add_agentx_replay_keys(t);
  return t;
}

FieldTable<GeneratedDraft> closed_loop_schema() {
  FieldTable<GeneratedDraft> t("workload");
  t.integer("concurrency", &GeneratedDraft::concurrency, 1, kMaxClients,
            "clients that each send the next request the moment the previous one finishes (InferenceX, `vllm bench "
            "serve --max-concurrency`)")
      .required();
  t.rule([](const ConfigNode&, GeneratedDraft& o) { o.num_requests = 10LL * o.concurrency; });
  t.integer("num_requests", &GeneratedDraft::num_requests, 1, kMaxRequestsPerRun, "requests to send and measure")
      .default_words("10 x concurrency (InferenceX `num_prompts`)");
  t.integer("warmup_requests", &GeneratedDraft::warmup_requests, 0, kMaxRequestsPerRun,
            "requests the clients send first and the summary leaves out (a client's `--warmup-request-count`); the "
            "measured span runs from the first measured arrival to the last measured finish, so the start-up burst, "
            "every client's first prompt at once, is not in TTFT");
  t.rule([](const ConfigNode& w, GeneratedDraft& o) {
    if (o.num_requests > kMaxRequestsPerRun)
      w.fail_key("concurrency", "10 x concurrency requests exceed the " + std::to_string(kMaxRequestsPerRun) +
                                    " a run may send; give num_requests");
    if (o.num_requests + o.warmup_requests > kMaxRequestsPerRun)
      w.fail_key("warmup_requests",
                 "with num_requests, more than the " + std::to_string(kMaxRequestsPerRun) + " requests a run may send");
  });
  add_length_keys(t);
  return t;
}

FieldTable<GeneratedDraft> open_loop_schema() {
  FieldTable<GeneratedDraft> t("workload");
  t.section("arrival", arrival_schema(), "how requests arrive").required();
  t.integer("num_requests", &GeneratedDraft::num_requests, 0, kMaxRequestsPerRun,
            "requests to send (0: until `duration`)")
      .default_words("required unless `duration`");
  t.positive("duration", &GeneratedDraft::duration, "stop generating arrivals after this time").default_words("none");
  t.rule([](const ConfigNode& w, GeneratedDraft& o) {
    if (o.num_requests == 0 && o.duration == Time::max())
      w.fail("an open-loop workload needs num_requests and/or duration");
    // The clock counts int64 nanoseconds (about 292 years); the mean span of the arrivals must leave
    // room for the draws' spread, so it may be at most kMaxArrivalSpanSeconds.
    const double span = static_cast<double>(std::max<std::int64_t>(o.num_requests - 1, 0)) / o.rate_per_s;
    if (o.num_requests > 0 && o.duration == Time::max() && span > kMaxArrivalSpanSeconds) {
      char text[160];
      std::snprintf(text, sizeof text, "%g", span);
      w.child("arrival").fail_key("rate_per_s", "num_requests at this rate arrive over about " + std::string(text) +
                                                    " s, past the " +
                                                    seconds_text(Time::from_seconds(kMaxArrivalSpanSeconds)) +
                                                    " of arrivals a run's nanosecond clock allows; raise the rate, "
                                                    "lower num_requests or give a duration");
    }
    if (o.num_requests == 0 && o.rate_per_s * o.duration.seconds() > static_cast<double>(kMaxRequestsPerRun))
      w.fail_key("duration", "rate_per_s x duration expects more than " + std::to_string(kMaxRequestsPerRun) +
                                 " requests, the most a run may send; shorten it or give num_requests");
  });
  add_length_keys(t);
  return t;
}

FieldTable<TraceWorkloadDraft> trace_workload_schema() {
  FieldTable<TraceWorkloadDraft> t("workload");
  t.custom({"trace", "map", "required", "the file and how it is replayed (`workload.trace`, below)"},
           [](const ConfigNode& w, TraceWorkloadDraft& o) {
             static const FieldTable<TraceDraft> schema = trace_schema();
             const ConfigNode tr = w.child("trace");
             if (!tr.is_map()) tr.finish();  // "expected a map"
             schema.read(tr, o.trace);
             tr.finish();
           })
      .required();
  t.integer("num_requests", &TraceWorkloadDraft::num_requests, 0, kMaxRequestsPerRun,
            "replay only the first N requests (0: all)")
      .default_words("all");
  t.integer("concurrency", &TraceWorkloadDraft::concurrency, 0, kMaxClients,
            "> 0: replay the trace's lengths in closed loop with this many clients, ignoring its times");
  return t;
}

FieldTable<TraceDraft> trace_schema() {
  FieldTable<TraceDraft> t("workload.trace");
  add_trace_file_keys(t);
  add_trace_transform_keys(t);
  return t;
}

ScenarioWorkload parse_scenario_workload(const ConfigNode& w, std::int64_t model_len) {
  const WorkloadKind kind = *kWorkloadKindNames.parse(w.one_of("kind", kWorkloadKindNames.names()));
  if (kind == WorkloadKind::agentx) return parse_agentx(w, model_len);
  if (kind == WorkloadKind::closed_loop) {
    static const FieldTable<GeneratedDraft> schema = closed_loop_schema();
    return closed_loop_workload(read_kind(w, schema));
  }
  if (kind == WorkloadKind::open_loop) {
    static const FieldTable<GeneratedDraft> schema = open_loop_schema();
    return open_loop_workload(read_kind(w, schema));
  }
  static const FieldTable<TraceWorkloadDraft> schema = trace_workload_schema();
  return trace_workload(read_kind(w, schema));
}

}  // namespace engramsim::scenario
