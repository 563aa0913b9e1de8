#include "validation/case_schema.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <utility>
#include <vector>

#include "core/config_node.hpp"
#include "core/paths.hpp"
#include "models/engine_loader.hpp"

namespace engramsim::validation {
namespace {

namespace fs = std::filesystem;
using Case = CaseInput;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A catalog name stays a name; a path (with '/' or ending in .yaml) resolves against base_dir.
std::string resolve_ref(const std::string& ref, const std::string& base_dir) {
  if (ref.find('/') == std::string::npos && !ends_with(ref, ".yaml")) return ref;
  const fs::path p(ref);
  if (p.is_absolute() || base_dir.empty()) return ref;
  return (fs::path(base_dir) / p).lexically_normal().string();
}

// A scenario named without a path is a file of the cases' folder.
std::string scenario_ref(const std::string& scenario, const std::string& base_dir) {
  return resolve_ref(
      scenario.find('/') == std::string::npos && !ends_with(scenario, ".yaml") ? scenario + ".yaml" : scenario,
      base_dir);
}

std::optional<double> plain_number(const std::string& s) {
  double v = 0;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || ptr != e || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Metrics read off a sweep's frontiers (reproduce.sweep).
bool sweep_metric(const std::string& m) {
  return m == "total_tokens_per_dollar" || m == "total_tput_per_gpu" || m == "tput_ratio_at_interactivity" ||
         m == "tokens_per_dollar_ratio" || m == "frontier_ratio_max";
}

bool is_time_metric(const std::string& m) { return ends_with(m, "_time_s") || ends_with(m, "_ms"); }

// The access to a data member that a field table takes: member(&S::m)(s) is s.m.
template <class S, class M>
auto member(M S::*m) {
  return [m](auto& s) -> auto& { return s.*m; };
}

// `attention: tensor | data` as the data-parallel-attention flag.
template <class S>
void add_attention(FieldTable<S>& t) {
  t.choice("attention", member(&S::dp_attention), {{"tensor", false}, {"data", true}},
           "tensor-parallel attention, or data-parallel (one replica of attention per rank)");
}

// --- reproduce.*.precision ---------------------------------------------------------------------

FieldTable<PrecisionOverrides> precision_schema() {
  using P = PrecisionOverrides;
  FieldTable<P> t("precision");
  std::vector<std::pair<std::string, std::optional<Precision>>> names;
  for (const auto& [p, n] : kPrecisionNames.entries) names.emplace_back(n, p);
  const std::pair<const char*, std::optional<Precision> P::*> kinds[] = {
      {"attention", &P::attention}, {"dense_ffn", &P::dense_ffn}, {"experts", &P::experts},
      {"embedding", &P::embedding}, {"lm_head", &P::lm_head},     {"kv_cache", &P::kv_cache}};
  for (const auto& [key, m] : kinds)
    t.choice(key, member(m), names, std::string("precision of the card's ") + key + " (a quantised checkpoint)")
        .default_words("the card's");
  const std::pair<const char*, std::optional<double> P::*> scales[] = {
      {"attention_scale_bytes_per_element", &P::attention_scale_bytes_per_element},
      {"dense_ffn_scale_bytes_per_element", &P::dense_ffn_scale_bytes_per_element},
      {"experts_scale_bytes_per_element", &P::experts_scale_bytes_per_element}};
  for (const auto& scale : scales) {
    const std::string key = scale.first;
    const auto m = scale.second;
    t.custom({key, number_type_words(0.0, 1.0, false), "the card's", "quantisation scale bytes per element"},
             [key, m](const ConfigNode& n, P& p) { p.*m = n.number(key, 0.0, 1.0); });
  }
  t.rule([](const ConfigNode& m, P& p) {
    m.finish();  // an unknown key is the error, not the block it leaves empty
    if (!p.any()) m.fail("give at least one precision to replace");
  });
  return t;
}

// --- reproduce.step ----------------------------------------------------------------------------

FieldTable<StepReproduction> batch_schema(bool prefill) {
  using S = StepReproduction;
  FieldTable<S> t(prefill ? "prefill" : "decode");
  if (!prefill) {
    t.integer("seqs", member(&S::decode_seqs), 1, 100'000'000, "decode sequences per replica").required();
    t.integer("context", member(&S::decode_context), 0, 100'000'000, "context tokens of each").required();
    return t;
  }
  t.integer("chunks", member(&S::prefill_chunks), 1, 10'000'000, "prefill chunks per replica").default_words("1");
  t.integer("tokens", member(&S::prefill_tokens), 1, 100'000'000, "tokens per chunk").required();
  t.integer("cached", member(&S::prefill_cached), 0, 100'000'000, "tokens of each already in the KV cache");
  t.rule([](const ConfigNode& m, S& s) {
    if (!m.has("chunks")) s.prefill_chunks = 1;
  });
  return t;
}

void add_step_layout(FieldTable<StepReproduction>& t) {
  using S = StepReproduction;
  t.any_text("model", member(&S::model), "model card: catalog name, or a file relative to the cases file").required();
  t.any_text("node", member(&S::node), "node preset: catalog name, or a file relative to the cases file").required();
  t.integer("tp", member(&S::tp), 1, 1024, "tensor-parallel ranks");
  t.integer("ep", member(&S::ep), 1, 1024, "expert-parallel ranks");
  add_attention(t);
  t.choice(
      "expert_placement", [](auto& s) -> auto& { return s.expert_balance.placement; }, placement_choices(),
      "as a scenario's `deployment.expert_placement`");
  t.integer(
       "redundant_experts", [](auto& s) -> auto& { return s.expert_balance.redundant_experts; }, 0, 1 << 16,
       "redundant expert replicas (with `expert_placement: eplb`)")
      .check([](const S& s) -> std::string {
        return s.expert_balance.redundant_experts > 0 && s.expert_balance.placement != ExpertPlacement::eplb
                   ? "redundant expert replicas need expert_placement: eplb"
                   : "";
      });
  t.choice(
      "expert_routing", [](auto& s) -> auto& { return s.expert_balance.routing; }, routing_choices(),
      "as a scenario's `deployment.expert_routing`");
  t.any_text("engine", member(&S::engine), "engine preset: catalog name, or a file relative to the cases file");
  t.section("precision", member(&S::precision), precision_schema(), "");
  t.boolean("spec_decode", member(&S::spec_decode), "keep the card's drafter (off: removed)");
}

FieldTable<StepReproduction> step_schema() {
  using S = StepReproduction;
  FieldTable<S> t("step");
  add_step_layout(t);
  t.section("decode", batch_schema(false), "");
  t.section("prefill", batch_schema(true), "");
  t.custom({"ops", "list of strings", "none (the whole step)", "sum these ops of one layer instead of the step"},
           [](const ConfigNode& m, S& s) {
             s.ops = m.strings("ops");
             if (s.ops.empty()) m.fail_key("ops", "list at least one op");
           });
  t.custom({"layer", integer_type_words(0, 10'000), "0", "the layer whose `ops` are summed (only with `ops`)"},
           [](const ConfigNode& m, S& s) {
             s.layer = static_cast<int>(m.integer("layer", 0, 10'000));
             if (s.ops.empty()) m.fail_key("layer", "a layer is only read together with ops");
           });
  t.rule([](const ConfigNode& m, S& s) {
    if (s.decode_seqs == 0 && s.prefill_chunks == 0) m.fail("give a decode and/or a prefill batch");
  });
  return t;
}

// --- reproduce.serving, reproduce.sweep, reproduce.footprint -----------------------------------

// `set:` overrides, a map of key.path: value passed on to the scenario in file order.
std::vector<scenario::SetArgument> read_set(const ConfigNode& n) {
  if (!n.is_map()) n.fail("expected a map of key.path: value");
  std::vector<scenario::SetArgument> out;
  for (const std::string& key : n.keys()) {
    YAML::Emitter e;
    e << YAML::Flow << n.raw()[key];
    out.push_back({key, e.c_str()});
  }
  return out;
}

template <class S>
void add_set(FieldTable<S>& t, const std::string& meaning) {
  t.custom({"set", "map of key.path: value", "none", meaning},
           [](const ConfigNode& m, S& s) { s.set = read_set(m.child("set")); });
}

FieldTable<ServingReproduction> serving_schema() {
  using S = ServingReproduction;
  FieldTable<S> t("serving");
  t.any_text("scenario", member(&S::scenario), "scenario file (a name: NAME.yaml beside the cases file)").required();
  t.any_text("variant", member(&S::variant), "compare variant to run (none: the scenario has no `compare`)");
  t.any_text("baseline", member(&S::baseline), "second variant, for penalty and ratio metrics");
  add_set(t, "overrides of the scenario's keys (e.g. fewer requests)");
  t.custom({"baseline_set", "map of key.path: value", "none",
            "overrides applied after `set` for the second run of a penalty or ratio (e.g. another concurrency)"},
           [](const ConfigNode& m, S& s) { s.baseline_set = read_set(m.child("baseline_set")); });
  t.section("precision", member(&S::precision), precision_schema(), "");
  t.choice("pool", member(&S::pool), kPoolNames.choices(),
           "one pool of a PD-disaggregated deployment: served alone (a colocated scenario), or the pool whose GPUs "
           "the throughputs of the whole deployment are counted over (a disaggregated scenario)");
  t.choice("span", member(&S::span), kSpanNames.choices(),
           "throughputs over the summary's measured span, or `loaded`: from the first measured arrival to the last "
           "arrival, from the requests that finish within it (the steady rate at full load)");
  t.number("cached_input_fraction", member(&S::cached_input_fraction), 0.0, 0.99,
           "published share of input tokens served from a KV cache engramsim does not model");
  t.number("target_interactivity", member(&S::target_interactivity), 0.0, 1e6,
           "above 0: closed loop at the concurrency whose decode step gives this many tok/s per user");
  return t;
}

FieldTable<SweepReproduction> sweep_schema() {
  using S = SweepReproduction;
  FieldTable<S> t("sweep");
  t.any_text("scenario", member(&S::scenario), "sweep scenario file (a name: NAME.yaml beside the cases file)")
      .required();
  add_set(t, "overrides of the scenario's keys, applied before the sweep is expanded");
  t.any_text("config", member(&S::config), "the configuration read, as the report labels it").required();
  t.any_text("baseline", member(&S::baseline), "the second configuration (ratio metrics: required; others: none)");
  t.custom({"at_interactivity", number_type_words(1e-3, 1e6, false), "required, none for `frontier_ratio_max`",
            "tok/s/user at which the frontiers are read"},
           [](const ConfigNode& m, S& s) { s.at_interactivity = m.number("at_interactivity", 1e-3, 1e6); });
  return t;
}

FieldTable<FootprintReproduction> footprint_schema() {
  using F = FootprintReproduction;
  FieldTable<F> t("footprint");
  t.any_text("model", member(&F::model), "model card: catalog name, or a file relative to the cases file").required();
  t.any_text("node", member(&F::node), "node preset: catalog name, or a file relative to the cases file").required();
  t.integer("tp", member(&F::tp), 1, 1024, "tensor-parallel ranks");
  t.integer("ep", member(&F::ep), 1, 1024, "expert-parallel ranks").check([](const F& f) -> std::string {
    return f.tp % f.ep != 0 ? "must divide tp" : "";
  });
  add_attention(t);
  t.choice("tier", member(&F::tier), {{"hbm", "hbm"}, {"dram", "dram"}, {"ssd", "ssd"}, {"none", "none"}},
           "Engram tier, as `deployment.engram.tier`");
  t.integer("max_num_batched_tokens", member(&F::max_num_batched_tokens), 1, 1 << 30, "as the scheduler key");
  t.integer("max_num_seqs", member(&F::max_num_seqs), 1, 1 << 30, "as the scheduler key");
  t.integer("max_model_len", member(&F::max_model_len), 0, 1LL << 40, "as the scheduler key (0: the card's)");
  t.number("gpu_memory_utilization", member(&F::gpu_memory_utilization), 1e-3, 1.0, "as the scheduler key");
  t.integer("block_size", member(&F::block_size), 1, 1 << 20, "as the scheduler key");
  t.any_text("engine", member(&F::engine), "engine preset whose start-up memory profile applies (default vllm)");
  t.integer("max_cudagraph_capture_size", member(&F::max_cudagraph_capture_size), 0, 1 << 20,
            "as the scheduler key, in tokens (0: no capture-size term)");
  return t;
}

// --- reproduce ---------------------------------------------------------------------------------

// An engine preset: a catalog name, or a file relative to the cases file. A missing one is an error
// at `section`'s engine key; a bad one is located in the preset.
std::string resolve_engine(const ConfigNode& section, const std::string& engine, const std::string& base_dir) {
  const std::string ref = resolve_ref(engine, base_dir);
  if (const std::string why = ConfigNode::file_problem(resolve_catalog_path("models/engines", ref)); !why.empty()) {
    std::string known;
    for (const auto& name : known_engines()) known += (known.empty() ? "" : ", ") + name;
    section.fail_key("engine", "no engine preset '" + ref + "' (" + why + "; known: " + known + ")");
  }
  load_engine(ref);
  return ref;
}

// Paths against the cases file's folder; a named engine preset or sweep scenario must exist.
void resolve_references(const ConfigNode& r, Case& in) {
  ValidationCase& c = in.c;
  if (c.step) {
    StepReproduction& s = *c.step;
    s.model = resolve_ref(s.model, in.base_dir);
    s.node = resolve_ref(s.node, in.base_dir);
    s.engine = resolve_engine(r.child("step"), s.engine, in.base_dir);
  }
  if (c.serving) c.serving->scenario = scenario_ref(c.serving->scenario, in.base_dir);
  if (c.sweep) {
    c.sweep->scenario = scenario_ref(c.sweep->scenario, in.base_dir);
    if (const std::string why = ConfigNode::file_problem(c.sweep->scenario); !why.empty())
      r.child("sweep").fail_key("scenario", c.sweep->scenario + ": " + why);
  }
  if (c.footprint) {
    c.footprint->model = resolve_ref(c.footprint->model, in.base_dir);
    c.footprint->node = resolve_ref(c.footprint->node, in.base_dir);
    c.footprint->engine = resolve_engine(r.child("footprint"), c.footprint->engine, in.base_dir);
  }
}

// What a sweep metric reads: one configuration or two, at an interactivity or over the overlap.
void check_sweep_keys(const ConfigNode& n, const std::string& metric) {
  const bool ratio = metric != "total_tokens_per_dollar" && metric != "total_tput_per_gpu";
  if (ratio)
    n.child("baseline");  // required: throws when absent
  else if (n.has("baseline"))
    n.fail_key("baseline", metric + " reads one configuration");
  if (metric == "frontier_ratio_max") {
    if (n.has("at_interactivity")) n.fail_key("at_interactivity", "the maximum is taken over the frontiers' overlap");
  } else {
    n.child("at_interactivity");
  }
}

// Serving metrics that compare the run with a second one.
bool two_run_metric(const std::string& m) {
  return m == "throughput_penalty_pct" || m == "tput_ratio_hbm_over_dram" || m == "tput_ratio_over_baseline" ||
         m == "p50_tpot_ratio_over_baseline";
}

// A serving case has a second run exactly when its metric compares two.
void check_serving_keys(const ConfigNode& n, const ServingReproduction& s, const std::string& metric) {
  if (two_run_metric(metric) && !has_baseline(s))
    n.fail(metric + " compares two runs: give baseline (a variant) or baseline_set (overrides)");
  if (two_run_metric(metric)) return;
  for (const char* key : {"baseline", "baseline_set"})
    if (n.has(key)) n.fail_key(key, metric + " reads one run");
}

// Exactly one way to reproduce, at the case's level.
void check_reproduction(const ConfigNode& r, Case& in) {
  resolve_references(r, in);
  const ValidationCase& c = in.c;
  if (c.sweep) check_sweep_keys(r.child("sweep"), c.metric);
  if (c.serving) check_serving_keys(r.child("serving"), *c.serving, c.metric);
  r.finish();
  const int kinds =
      (c.step ? 1 : 0) + (c.serving ? 1 : 0) + (c.sweep ? 1 : 0) + (c.footprint ? 1 : 0) + (r.has("same_as") ? 1 : 0);
  if (kinds != 1) r.fail("give exactly one of step, serving, sweep, footprint, same_as");
  if (c.step && c.level != CaseLevel::step) r.fail_key("step", "a serving-level case needs a serving reproduction");
  if (c.serving && c.level != CaseLevel::serving) r.fail_key("serving", "a step-level case needs a step reproduction");
  if (c.sweep && c.level != CaseLevel::serving) r.fail_key("sweep", "a sweep reproduces a serving-level case");
  if (c.footprint && c.level != CaseLevel::footprint) r.fail_key("footprint", "a footprint case has level footprint");
}

FieldTable<Case> reproduce_schema() {
  FieldTable<Case> t("reproduce");
  t.section(
      "step", [](auto& in) -> auto& { return in.c.step; }, step_schema(),
      "the step model on the exact published batch (level step)");
  t.section(
      "serving", [](auto& in) -> auto& { return in.c.serving; }, serving_schema(),
      "a scenario run through the simulator (level serving)");
  t.section(
      "sweep", [](auto& in) -> auto& { return in.c.sweep; }, sweep_schema(),
      "a sweep run through the planner, read off the configurations' frontiers (level serving)");
  t.section(
      "footprint", [](auto& in) -> auto& { return in.c.footprint; }, footprint_schema(),
      "one replica's HBM footprint (level footprint)");
  t.any_text(
      "same_as", [](auto& in) -> auto& { return in.c.same_as; },
      "another case's id: its reproduction, run once for both");
  t.rule(check_reproduction);
  return t;
}

// --- published, source, tolerance -------------------------------------------------------------

// `published.value`: a plain number, or a time with its unit for time metrics.
void read_published_value(const ConfigNode& pub, Case& in) {
  ValidationCase& c = in.c;
  const ConfigNode value = pub.child("value");
  if (!value.is_scalar()) value.fail("expected a number or a unit string");
  c.published_text = value.raw().Scalar();
  if (auto num = plain_number(c.published_text)) {
    if (is_time_metric(c.metric)) value.fail("a time needs a unit (\"91.9ms\")");
    c.published = *num;
  } else {
    if (!is_time_metric(c.metric)) value.fail("expected a plain number for metric " + c.metric);
    const Time t = value.as_time();
    c.published = ends_with(c.metric, "_ms") ? t.millis() : t.seconds();
  }
}

// `published.range`: the source states a bound or a range; it is the case's tolerance.
void read_published_range(const ConfigNode& pub, Case& in) {
  const ConfigNode range = pub.child("range");
  if (!range.is_sequence()) range.fail("expected [lo, hi]");
  const auto els = range.elements();
  if (els.size() != 2) range.fail("expected [lo, hi]");
  Tolerance t{ToleranceType::range, 0.0, "the published range", els[0].as_number(), els[1].as_number()};
  if (!(t.lo <= in.c.published && in.c.published <= t.hi)) range.fail("the range must hold the published value");
  in.published_range = t;
}

FieldTable<Case> published_schema() {
  FieldTable<Case> t("published");
  t.custom({"value", "number, or a time with its unit (`91.9ms`) for `*_time_s` and `*_ms` metrics", "required",
            "the published number in the metric's unit"},
           read_published_value)
      .required();
  t.custom({"range", "[lo, hi]", "none",
            "where the source states a bound or a range: the tolerance (it must hold `value`, the central reading)"},
           read_published_range);
  t.any_text("unit", &Case::published_unit, "the unit as published, for readers");
  t.choice("basis", &Case::basis, {{"published", "published"}, {"derived", "derived"}},
           "as published, or derived (`derivation` says how)");
  t.any_text("derivation", &Case::derivation, "the arithmetic of a derived value");
  return t;
}

FieldTable<Case> source_schema() {
  FieldTable<Case> t("source");
  t.any_text(
       "name", [](auto& in) -> auto& { return in.c.source; }, "the source (docs/validation-sources.md)")
      .required();
  t.any_text(
       "url", [](auto& in) -> auto& { return in.c.source_url; }, "where it is published")
      .required();
  t.any_text("where", &Case::source_where, "section, table or figure").required();
  t.any_text("date", &Case::source_date, "publication date");
  t.any_text("retrieved_via", &Case::retrieved_via, "how it was found");
  return t;
}

FieldTable<Case::Suggested> suggested_schema() {
  using S = Case::Suggested;
  FieldTable<S> t("suggested_tolerance");
  t.number("rel", member(&S::rel), 0.0, 1e300, "relative").default_words("none");
  t.number("abs", member(&S::abs), 0.0, 1e300, "absolute, in the metric's unit").default_words("none");
  t.number("abs_pp", member(&S::abs_pp), 0.0, 1e300, "percentage points").default_words("none");
  return t;
}

FieldTable<Tolerance> tolerance_schema() {
  FieldTable<Tolerance> t("tolerance");
  const std::pair<ToleranceType, double> kinds[] = {
      {ToleranceType::rel, 10.0}, {ToleranceType::abs, 1e300}, {ToleranceType::abs_pp, 100.0}};
  const char* meaning[] = {"a fraction of the published value", "in the metric's unit", "in percentage points"};
  for (std::size_t i = 0; i < 3; ++i) {
    const auto [type, hi] = kinds[i];
    const std::string key = kToleranceTypeNames.name(type);
    t.custom({key, number_type_words(0.0, hi, false), "none", std::string("one of rel, abs, abs_pp: ") + meaning[i]},
             [key, type = type, hi = hi](const ConfigNode& m, Tolerance& out) {
               out.type = type;
               out.value = m.number(key, 0.0, hi);
             });
  }
  t.custom({"why", "string", "required", "one line: why the tolerance is what it is"}, [](const ConfigNode& m,
                                                                                          Tolerance& out) {
     out.why = m.str("why");
     if (out.why.empty()) m.fail_key("why", "say in one line why the tolerance is what it is");
   }).required();
  t.rule([](const ConfigNode& m, Tolerance&) {
    int given = 0;
    for (const char* key : {"rel", "abs", "abs_pp"}) given += m.has(key) ? 1 : 0;
    if (given != 1) m.fail("give exactly one of rel, abs, abs_pp");
  });
  return t;
}

// --- the case ----------------------------------------------------------------------------------

// The metric against the reproduction: what the evaluator can compute, and its kind.
void check_metric(const ConfigNode& n, ValidationCase& c) {
  if (c.sweep && !sweep_metric(c.metric)) n.fail_key("metric", "a sweep cannot read " + c.metric);
  if (c.serving && sweep_metric(c.metric) && c.metric != "total_tokens_per_dollar" && c.metric != "total_tput_per_gpu")
    n.fail_key("metric", c.metric + " is read off a sweep's frontiers: give reproduce.sweep");
  const auto kind = metric_kind(c.metric, c.level);
  if (!kind) n.fail_key("metric", "the evaluator cannot compute " + c.metric + " at level " + to_string(c.level));
  c.kind = *kind;
}

// An unsupported case is not evaluated: no tolerance, no miss, no range.
void check_unsupported(const ConfigNode& n, const Case& in) {
  if (in.c.unsupported.empty()) n.fail_key("unsupported", "say why the case cannot be reproduced");
  if (n.has("tolerance")) n.fail_key("tolerance", "an unsupported case has no tolerance");
  if (n.has("known_miss")) n.fail_key("known_miss", "an unsupported case is not evaluated, so cannot miss");
  if (in.published_range) n.child("published").fail_key("range", "an unsupported case is not evaluated");
}

// An evaluated case's tolerance (its kind's unless it states a narrower one, of the same type, so
// that no case is held to less than its kind is) and known-miss reason.
void check_gate(const ConfigNode& n, Case& in) {
  ValidationCase& c = in.c;
  check_metric(n, c);
  c.tolerance = kind_tolerance(c.kind);
  if (in.published_range) {
    if (n.has("tolerance")) n.fail_key("tolerance", "the published range is the tolerance");
    c.tolerance = in.published_range;
  }
  if (in.tolerance) {
    const Tolerance k = kind_tolerance(c.kind);
    if (in.tolerance->type != k.type || in.tolerance->value > k.value)
      n.child("tolerance")
          .fail("a case's tolerance may only be narrower than its metric kind's (" + std::string(to_string(c.kind)) +
                ": " + k.describe() + "); a case outside it is a known_miss with its reason");
    c.tolerance = in.tolerance;
  }
  if (n.has("known_miss") && c.known_miss.size() < 20)
    n.fail_key("known_miss", "say in a sentence what puts the case outside its tolerance");
}

void check_case(const ConfigNode& n, Case& in) {
  const bool has_reproduce = n.has("reproduce");
  if (has_reproduce == n.has("unsupported")) n.fail("give exactly one of reproduce and unsupported");
  if (has_reproduce)
    check_gate(n, in);
  else
    check_unsupported(n, in);
}

void add_record_keys(FieldTable<Case>& t) {
  t.any_text(
       "id", [](auto& in) -> auto& { return in.c.id; }, "unique in the file")
      .required();
  t.choice(
       "level", [](auto& in) -> auto& { return in.c.level; }, kCaseLevelNames.choices(),
       "what is reproduced: one step, a serving run, or a replica's HBM footprint")
      .required();
  t.custom({"metric", "string", "required", "the published quantity (validation_case.hpp: metrics and units)"},
           [](const ConfigNode& m, Case& in) {
             in.c.metric = m.str("metric");
             in.c.unit = metric_unit(in.c.metric);
           })
      .required();
  t.section("published", published_schema(), "").required();
  t.custom({"also_published", "list (free-form)", "none", "neighbouring published numbers, recorded, not evaluated"},
           [](const ConfigNode& m, Case&) { m.ignore("also_published"); });
  t.section("source", source_schema(), "").required();
  t.custom({"config", "map", "required",
            "the source's setup as it states it, not interpreted; `model`, `gpu` (for the coverage report) and "
            "`same_as` (a case whose setup this one shares) are read"},
           [](const ConfigNode& m, Case& in) {
             const ConfigNode cfg = m.child("config");
             if (!cfg.is_map()) cfg.fail("expected a map");
             for (const std::string& k : cfg.keys()) {
               if (k == "model") in.c.model = cfg.str("model");
               if (k == "gpu") in.c.gpu = cfg.str("gpu");
               if (k == "same_as") in.c.config_same_as = cfg.str("same_as");
             }
           })
      .required();
  t.choice(
       "representable", [](auto& in) -> auto& { return in.c.representable; },
       {{"full", "full"}, {"partial", "partial"}, {"no", "no"}}, "whether engramsim can model the setup as published")
      .required();
  t.any_text(
      "notes", [](auto& in) -> auto& { return in.c.notes; }, "free text");
  t.section("suggested_tolerance", &Case::suggested, suggested_schema(),
            "the source's suggestion, checked for shape only");
}

}  // namespace

const FieldTable<CaseInput>& case_schema() {
  static const FieldTable<Case> table = [] {
    FieldTable<Case> t("validation case");
    add_record_keys(t);
    t.section("reproduce", reproduce_schema(), "");
    t.any_text(
        "unsupported", [](auto& in) -> auto& { return in.c.unsupported; },
        "instead of `reproduce`: why engramsim cannot represent the measurement");
    t.section("tolerance", &Case::tolerance, tolerance_schema(),
              "narrower than the metric kind's (never wider), with its reason");
    t.any_text(
        "known_miss", [](auto& in) -> auto& { return in.c.known_miss; },
        "the case lies outside its tolerance, and in a sentence why");
    t.rule(check_case);
    return t;
  }();
  return table;
}

}  // namespace engramsim::validation
