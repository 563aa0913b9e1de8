#include "validation/validation_case.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/config_node.hpp"
#include "core/paths.hpp"
#include "core/unit_parse.hpp"
#include "models/engine_loader.hpp"

namespace engramsim::validation {
namespace {

namespace fs = std::filesystem;

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

Precision precision_at(const ConfigNode& n, const std::string& key) {
  const std::string s = n.one_of(key, {"fp4", "fp8", "bf16", "fp16", "fp32"});
  return *precision_from_string(s);
}

PrecisionOverrides parse_precision(const ConfigNode& n) {
  PrecisionOverrides p;
  const auto opt = [&](const char* key, std::optional<Precision>& out) {
    if (n.has(key)) out = precision_at(n, key);
  };
  opt("attention", p.attention);
  opt("dense_ffn", p.dense_ffn);
  opt("experts", p.experts);
  opt("embedding", p.embedding);
  opt("lm_head", p.lm_head);
  opt("kv_cache", p.kv_cache);
  const auto scale = [&](const char* key, std::optional<double>& out) {
    if (n.has(key)) out = n.number(key, 0.0, 1.0);
  };
  scale("attention_scale_bytes_per_element", p.attention_scale_bytes_per_element);
  scale("dense_ffn_scale_bytes_per_element", p.dense_ffn_scale_bytes_per_element);
  scale("experts_scale_bytes_per_element", p.experts_scale_bytes_per_element);
  n.finish();
  if (!p.any()) n.fail("give at least one precision to replace");
  return p;
}

StepReproduction parse_step(const ConfigNode& n, const std::string& base_dir) {
  StepReproduction s;
  s.model = resolve_ref(n.str("model"), base_dir);
  s.node = resolve_ref(n.str("node"), base_dir);
  s.tp = static_cast<int>(n.integer_or("tp", 1, 1, 1024));
  s.ep = static_cast<int>(n.integer_or("ep", 1, 1, 1024));
  s.dp_attention = n.one_of_or("attention", {"tensor", "data"}, "tensor") == "data";
  s.expert_balance.placement = *placement_from_name(n.one_of_or("expert_placement", placement_names(), "static"));
  s.expert_balance.redundant_experts = static_cast<int>(n.integer_or("redundant_experts", 0, 0, 1 << 16));
  if (s.expert_balance.redundant_experts > 0 && s.expert_balance.placement != ExpertPlacement::eplb)
    n.fail_key("redundant_experts", "redundant expert replicas need expert_placement: eplb");
  // An engine preset: a catalog name, or a file relative to the cases file. A missing one is an
  // error here; a bad one is located in the preset.
  s.engine = resolve_ref(n.str_or("engine", "vllm"), base_dir);
  if (const std::string why = ConfigNode::file_problem(resolve_catalog_path("models/engines", s.engine));
      !why.empty()) {
    std::string known;
    for (const auto& name : known_engines()) known += (known.empty() ? "" : ", ") + name;
    n.fail_key("engine", "no engine preset '" + s.engine + "' (" + why + "; known: " + known + ")");
  }
  load_engine(s.engine);
  if (auto p = n.optional_child("precision")) s.precision = parse_precision(*p);
  s.spec_decode = n.boolean_or("spec_decode", false);
  if (auto d = n.optional_child("decode")) {
    s.decode_seqs = static_cast<int>(d->integer("seqs", 1, 100'000'000));
    s.decode_context = static_cast<int>(d->integer("context", 0, 100'000'000));
    d->finish();
  }
  if (auto p = n.optional_child("prefill")) {
    s.prefill_chunks = static_cast<int>(p->integer_or("chunks", 1, 1, 10'000'000));
    s.prefill_tokens = static_cast<int>(p->integer("tokens", 1, 100'000'000));
    s.prefill_cached = static_cast<int>(p->integer_or("cached", 0, 0, 100'000'000));
    p->finish();
  }
  if (s.decode_seqs == 0 && s.prefill_chunks == 0) n.fail("give a decode and/or a prefill batch");
  if (n.has("ops")) {
    s.ops = n.strings("ops");
    if (s.ops.empty()) n.fail_key("ops", "list at least one op");
  }
  s.layer = static_cast<int>(n.integer_or("layer", 0, 0, 10'000));
  if (s.ops.empty() && n.has("layer")) n.fail_key("layer", "a layer is only read together with ops");
  n.finish();
  return s;
}

std::vector<sim::SetArgument> parse_set_map(const ConfigNode& n) {
  std::vector<sim::SetArgument> out;
  if (!n.is_map()) n.fail("expected a map of key.path: value");
  for (const std::string& key : n.keys()) {
    YAML::Emitter e;
    e << YAML::Flow << n.raw()[key];
    out.push_back({key, e.c_str()});
  }
  return out;
}

std::string scenario_ref(const ConfigNode& n, const std::string& base_dir) {
  const std::string scenario = n.str("scenario");
  return resolve_ref(
      scenario.find('/') == std::string::npos && !ends_with(scenario, ".yaml") ? scenario + ".yaml" : scenario,
      base_dir);
}

ServingReproduction parse_serving(const ConfigNode& n, const std::string& base_dir) {
  ServingReproduction s;
  s.scenario = scenario_ref(n, base_dir);
  s.variant = n.str_or("variant", "");
  s.baseline = n.str_or("baseline", "");
  if (auto set = n.optional_child("set")) s.set = parse_set_map(*set);
  if (auto p = n.optional_child("precision")) s.precision = parse_precision(*p);
  const std::string pool = n.one_of_or("pool", {"colocated", "prefill", "decode"}, "colocated");
  s.pool = pool == "prefill" ? Pool::prefill : pool == "decode" ? Pool::decode : Pool::colocated;
  s.cached_input_fraction = n.number_or("cached_input_fraction", 0.0, 0.0, 0.99);
  s.target_interactivity = n.number_or("target_interactivity", 0.0, 0.0, 1e6);
  n.finish();
  return s;
}

SweepReproduction parse_sweep(const ConfigNode& n, const std::string& base_dir, const std::string& metric) {
  SweepReproduction s;
  s.scenario = scenario_ref(n, base_dir);
  if (const std::string why = ConfigNode::file_problem(s.scenario); !why.empty())
    n.fail_key("scenario", s.scenario + ": " + why);
  if (auto set = n.optional_child("set")) s.set = parse_set_map(*set);
  s.config = n.str("config");
  const bool ratio = metric != "total_tokens_per_dollar" && metric != "total_tput_per_gpu";
  if (ratio)
    s.baseline = n.str("baseline");
  else if (n.has("baseline"))
    n.fail_key("baseline", metric + " reads one configuration");
  if (metric == "frontier_ratio_max") {
    if (n.has("at_interactivity")) n.fail_key("at_interactivity", "the maximum is taken over the frontiers' overlap");
  } else {
    s.at_interactivity = n.number("at_interactivity", 1e-3, 1e6);
  }
  n.finish();
  return s;
}

FootprintReproduction parse_footprint(const ConfigNode& n, const std::string& base_dir) {
  FootprintReproduction f;
  f.model = resolve_ref(n.str("model"), base_dir);
  f.node = resolve_ref(n.str("node"), base_dir);
  f.tp = static_cast<int>(n.integer_or("tp", 1, 1, 1024));
  f.ep = static_cast<int>(n.integer_or("ep", 1, 1, 1024));
  if (f.tp % f.ep != 0) n.fail_key("ep", "must divide tp");
  f.dp_attention = n.one_of_or("attention", {"tensor", "data"}, "tensor") == "data";
  f.tier = n.one_of_or("tier", {"hbm", "dram", "ssd", "none"}, "dram");
  f.max_num_batched_tokens = n.integer_or("max_num_batched_tokens", 8192, 1, 1 << 30);
  f.max_num_seqs = n.integer_or("max_num_seqs", 256, 1, 1 << 30);
  f.max_model_len = n.integer_or("max_model_len", 0, 0, 1LL << 40);
  f.gpu_memory_utilization = n.number_or("gpu_memory_utilization", 0.9, 1e-3, 1.0);
  f.block_size = static_cast<int>(n.integer_or("block_size", 16, 1, 1 << 20));
  n.finish();
  return f;
}

Tolerance parse_tolerance(const ConfigNode& n) {
  Tolerance t;
  int given = 0;
  if (n.has("rel")) {
    t.type = ToleranceType::rel;
    t.value = n.number("rel", 0.0, 10.0);
    ++given;
  }
  if (n.has("abs")) {
    t.type = ToleranceType::abs;
    t.value = n.number("abs", 0.0, 1e300);
    ++given;
  }
  if (n.has("abs_pp")) {
    t.type = ToleranceType::abs_pp;
    t.value = n.number("abs_pp", 0.0, 100.0);
    ++given;
  }
  if (given != 1) n.fail("give exactly one of rel, abs, abs_pp");
  t.why = n.str("why");
  if (t.why.empty()) n.fail_key("why", "say in one line why the tolerance is what it is");
  n.finish();
  return t;
}

// A case's own tolerance: the same type as its kind's and no wider, so no case is held to less
// than its kind is.
Tolerance narrower_tolerance(const ConfigNode& n, MetricKind kind) {
  const Tolerance t = parse_tolerance(n);
  const Tolerance k = kind_tolerance(kind);
  if (t.type != k.type || t.value > k.value)
    n.fail("a case's tolerance may only be narrower than its metric kind's (" + std::string(to_string(kind)) + ": " +
           k.describe() + "); a case outside it is a known_miss with its reason");
  return t;
}

// Only the published suggestion's shape is checked; the gate is `tolerance`.
void check_suggested_tolerance(const ConfigNode& n) {
  for (const std::string& k : n.keys()) {
    if (k != "rel" && k != "abs" && k != "abs_pp") n.fail_key(k, "expected rel, abs or abs_pp");
    n.number(k, 0.0, 1e300);
  }
  n.finish();
}

// An evaluated case's tolerance (its kind's unless it states a narrower one) and known-miss reason.
void parse_gate(const ConfigNode& n, ValidationCase& c, const std::optional<Tolerance>& published_range) {
  c.tolerance = kind_tolerance(c.kind);
  if (published_range) {
    if (n.has("tolerance")) n.fail_key("tolerance", "the published range is the tolerance");
    c.tolerance = published_range;
  }
  if (auto t = n.optional_child("tolerance")) c.tolerance = narrower_tolerance(*t, c.kind);
  c.known_miss = n.str_or("known_miss", "");
  if (n.has("known_miss") && c.known_miss.size() < 20)
    n.fail_key("known_miss", "say in a sentence what puts the case outside its tolerance");
}

void parse_unsupported(const ConfigNode& n, ValidationCase& c) {
  c.unsupported = n.str("unsupported");
  if (c.unsupported.empty()) n.fail_key("unsupported", "say why the case cannot be reproduced");
  if (n.has("tolerance")) n.fail_key("tolerance", "an unsupported case has no tolerance");
  if (n.has("known_miss")) n.fail_key("known_miss", "an unsupported case is not evaluated, so cannot miss");
}

// `published:`: the value (a plain number, or a time with its unit for time metrics) and an
// optional range, which is then the case's tolerance.
std::optional<Tolerance> parse_published(const ConfigNode& pub, ValidationCase& c) {
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
  std::optional<Tolerance> published_range;
  if (const auto range = pub.optional_child("range")) {
    // The source states a bound or a range; it is the case's tolerance (validation_case.hpp).
    if (!range->is_sequence()) range->fail("expected [lo, hi]");
    const auto els = range->elements();
    if (els.size() != 2) range->fail("expected [lo, hi]");
    Tolerance t{ToleranceType::range, 0.0, "the published range", els[0].as_number(), els[1].as_number()};
    if (!(t.lo <= c.published && c.published <= t.hi)) range->fail("the range must hold the published value");
    published_range = t;
  }
  if (pub.has("unit")) pub.str("unit");
  pub.one_of_or("basis", {"published", "derived"}, "published");
  pub.str_or("derivation", "");
  return published_range;
}

// `source:` and `config:` (the source's setup, recorded verbatim; model, gpu and same_as are read).
void parse_source_and_config(const ConfigNode& n, ValidationCase& c) {
  const ConfigNode src = n.child("source");
  c.source = src.str("name");
  c.source_url = src.str("url");
  src.str("where");
  src.str_or("date", "");
  src.str_or("retrieved_via", "");
  src.finish();
  const ConfigNode cfg = n.child("config");
  if (!cfg.is_map()) cfg.fail("expected a map");
  for (const std::string& k : cfg.keys()) {
    if (k == "model")
      c.model = cfg.str("model");
    else if (k == "gpu")
      c.gpu = cfg.str("gpu");
    else if (k == "same_as")
      c.config_same_as = cfg.str("same_as");
  }
}

// `reproduce:`: exactly one of step, serving, sweep, footprint or same_as.
void parse_reproduction(const ConfigNode& r, ValidationCase& c, const std::string& base_dir) {
  if (auto s = r.optional_child("step")) c.step = parse_step(*s, base_dir);
  if (auto s = r.optional_child("serving")) c.serving = parse_serving(*s, base_dir);
  if (auto s = r.optional_child("sweep")) c.sweep = parse_sweep(*s, base_dir, c.metric);
  if (auto s = r.optional_child("footprint")) c.footprint = parse_footprint(*s, base_dir);
  if (r.has("same_as")) c.same_as = r.str("same_as");
  r.finish();
  const int kinds =
      (c.step ? 1 : 0) + (c.serving ? 1 : 0) + (c.sweep ? 1 : 0) + (c.footprint ? 1 : 0) + (r.has("same_as") ? 1 : 0);
  if (kinds != 1) r.fail("give exactly one of step, serving, sweep, footprint, same_as");
  if (c.step && c.level != CaseLevel::step) r.fail_key("step", "a serving-level case needs a serving reproduction");
  if (c.serving && c.level != CaseLevel::serving) r.fail_key("serving", "a step-level case needs a step reproduction");
  if (c.sweep && c.level != CaseLevel::serving) r.fail_key("sweep", "a sweep reproduces a serving-level case");
  if (c.footprint && c.level != CaseLevel::footprint) r.fail_key("footprint", "a footprint case has level footprint");
}

// The metric against the reproduction: what the evaluator can compute, and its kind.
void check_metric(const ConfigNode& n, ValidationCase& c) {
  if (c.sweep && !sweep_metric(c.metric)) n.fail_key("metric", "a sweep cannot read " + c.metric);
  if (c.serving && sweep_metric(c.metric) && c.metric != "total_tokens_per_dollar" && c.metric != "total_tput_per_gpu")
    n.fail_key("metric", c.metric + " is read off a sweep's frontiers: give reproduce.sweep");
  const auto kind = metric_kind(c.metric, c.level);
  if (!kind) n.fail_key("metric", "the evaluator cannot compute " + c.metric + " at level " + to_string(c.level));
  c.kind = *kind;
}

ValidationCase parse_case(const ConfigNode& n, const std::string& base_dir) {
  ValidationCase c;
  c.where = n.location();
  c.id = n.str("id");
  const std::string level = n.one_of("level", {"step", "serving", "footprint"});
  c.level = level == "step" ? CaseLevel::step : level == "serving" ? CaseLevel::serving : CaseLevel::footprint;
  c.metric = n.str("metric");
  c.unit = metric_unit(c.metric);
  const ConfigNode pub = n.child("published");
  const std::optional<Tolerance> published_range = parse_published(pub, c);
  pub.finish();
  n.ignore("also_published");  // free-form record of neighbouring numbers, not evaluated
  parse_source_and_config(n, c);
  c.representable = n.one_of("representable", {"full", "partial", "no"});
  c.notes = n.str_or("notes", "");
  if (auto s = n.optional_child("suggested_tolerance")) check_suggested_tolerance(*s);
  const bool has_reproduce = n.has("reproduce");
  if (has_reproduce == n.has("unsupported")) n.fail("give exactly one of reproduce and unsupported");
  if (!has_reproduce) {
    parse_unsupported(n, c);
    if (published_range) pub.fail_key("range", "an unsupported case is not evaluated");
  } else {
    parse_reproduction(n.child("reproduce"), c, base_dir);
    check_metric(n, c);
    parse_gate(n, c, published_range);
  }
  n.finish();
  return c;
}

}  // namespace

const char* to_string(CaseLevel l) {
  return l == CaseLevel::step ? "step" : l == CaseLevel::serving ? "serving" : "footprint";
}

const char* to_string(MetricKind k) {
  switch (k) {
    case MetricKind::step:
      return "step-level";
    case MetricKind::serving_throughput:
      return "serving throughput";
    case MetricKind::latency:
      return "serving latency";
    case MetricKind::engram_penalty:
      return "Engram offload penalty";
    case MetricKind::ratio:
      return "ratio of two runs";
    case MetricKind::footprint:
      return "HBM footprint";
  }
  return "?";
}

const char* to_string(Pool p) {
  switch (p) {
    case Pool::colocated:
      return "colocated";
    case Pool::prefill:
      return "prefill";
    case Pool::decode:
      return "decode";
  }
  return "?";
}

Tolerance kind_tolerance(MetricKind k) {
  switch (k) {
    case MetricKind::step:
      return {ToleranceType::rel, 0.10, "step-level cases: +/-10 %"};
    case MetricKind::serving_throughput:
      return {ToleranceType::rel, 0.20, "serving throughput: +/-20 %"};
    case MetricKind::latency:
      return {ToleranceType::rel, 0.15, "serving latency: +/-15 %"};
    case MetricKind::engram_penalty:
      return {ToleranceType::abs_pp, 1.5, "Engram offload penalty: +/-1.5 pp"};
    case MetricKind::ratio:
      return {ToleranceType::abs, 0.05, "ratio of two runs: +/-0.05"};
    case MetricKind::footprint:
      return {ToleranceType::rel, 0.20, "HBM footprint: +/-20 %"};
  }
  return {};
}

double mape_target(MetricKind k) {
  if (k == MetricKind::step) return 0.10;
  if (k == MetricKind::serving_throughput || k == MetricKind::latency) return 0.15;
  return std::nan("");
}

bool Tolerance::holds(double predicted, double published) const {
  if (!std::isfinite(predicted)) return false;
  if (type == ToleranceType::range) return lo <= predicted && predicted <= hi;
  if (type == ToleranceType::rel) return std::abs(predicted - published) <= value * std::abs(published);
  return std::abs(predicted - published) <= value;
}

std::string Tolerance::describe() const {
  char buf[64];
  if (type == ToleranceType::rel)
    std::snprintf(buf, sizeof buf, "±%g%%", value * 100.0);
  else if (type == ToleranceType::abs_pp)
    std::snprintf(buf, sizeof buf, "±%g pp", value);
  else if (type == ToleranceType::range)
    std::snprintf(buf, sizeof buf, "[%g, %g]", lo, hi);
  else
    std::snprintf(buf, sizeof buf, "±%g", value);
  return buf;
}

bool PrecisionOverrides::any() const {
  return attention || dense_ffn || experts || embedding || lm_head || kv_cache || attention_scale_bytes_per_element ||
         dense_ffn_scale_bytes_per_element || experts_scale_bytes_per_element;
}

void PrecisionOverrides::apply(ModelCard& card) const {
  if (attention) card.precisions.attention = *attention;
  if (dense_ffn) card.precisions.dense_ffn = *dense_ffn;
  if (experts) card.precisions.experts = *experts;
  if (embedding) card.precisions.embedding = *embedding;
  if (lm_head) card.precisions.lm_head = *lm_head;
  if (kv_cache) card.kv.precision = *kv_cache;
  if (attention_scale_bytes_per_element)
    card.precisions.attention_scale_bytes_per_element = *attention_scale_bytes_per_element;
  if (dense_ffn_scale_bytes_per_element)
    card.precisions.dense_ffn_scale_bytes_per_element = *dense_ffn_scale_bytes_per_element;
  if (experts_scale_bytes_per_element)
    card.precisions.experts_scale_bytes_per_element = *experts_scale_bytes_per_element;
}

std::string PrecisionOverrides::describe() const {
  std::string s;
  const auto add = [&](const char* name, const std::optional<Precision>& p) {
    if (!p) return;
    if (!s.empty()) s += ", ";
    s += std::string(name) + " " + to_string(*p);
  };
  add("attention", attention);
  add("dense_ffn", dense_ffn);
  add("experts", experts);
  add("embedding", embedding);
  add("lm_head", lm_head);
  add("kv", kv_cache);
  return s;
}

const ValidationCase* ValidationSet::find(const std::string& id) const {
  for (const auto& c : cases)
    if (c.id == id) return &c;
  return nullptr;
}

std::optional<MetricKind> metric_kind(const std::string& m, CaseLevel level) {
  if (level == CaseLevel::footprint) {
    if (m == "kv_gib_per_gpu" || m == "weights_gib_per_gpu" || m == "fits") return MetricKind::footprint;
    return std::nullopt;
  }
  if (level == CaseLevel::step) {
    static const std::set<std::string> step = {"decode_step_time_s", "prefill_step_time_s", "layer_linear_ops_time_s",
                                               "input_tput_per_node", "output_tput_per_node"};
    if (step.count(m)) return MetricKind::step;
    return std::nullopt;
  }
  static const std::set<std::string> tput = {"output_tput_per_gpu", "input_tput_per_gpu",   "total_tput_per_gpu",
                                             "input_tput_per_node", "output_tput_per_node", "total_tokens_per_dollar"};
  if (tput.count(m)) return MetricKind::serving_throughput;
  if (m == "mean_ttft_ms" || m == "mean_tpot_ms") return MetricKind::latency;
  if (m == "throughput_penalty_pct") return MetricKind::engram_penalty;
  if (m == "tput_ratio_hbm_over_dram" || m == "tput_ratio_at_interactivity" || m == "tokens_per_dollar_ratio" ||
      m == "frontier_ratio_max")
    return MetricKind::ratio;
  return std::nullopt;
}

std::string metric_unit(const std::string& m) {
  if (ends_with(m, "_time_s")) return "s";
  if (ends_with(m, "_ms")) return "ms";
  if (ends_with(m, "_per_node")) return "tok/s/node";
  if (m.find("tput_per_gpu") != std::string::npos) return "tok/s/GPU";
  if (ends_with(m, "_pct")) return "%";
  if (m == "total_tokens_per_dollar") return "tok/$";
  if (ends_with(m, "_gib_per_gpu")) return "GiB";
  if (m == "fits") return "1 = fits";
  return "x";
}

ValidationSet validation_set_from_yaml(const std::string& text, const std::string& file_name,
                                       const std::string& base_dir) {
  const ConfigNode root = ConfigNode::load_string(text, file_name);
  if (!root.is_map()) root.fail("expected a map with schema_version and cases");
  const std::int64_t version = root.integer("schema_version", 1, 1);
  (void)version;
  ValidationSet set;
  set.file = file_name;
  std::map<std::string, std::size_t> index;
  for (const ConfigNode& e : root.child("cases").elements()) {
    ValidationCase c = parse_case(e, base_dir);
    if (index.count(c.id)) e.fail_key("id", "duplicate case id '" + c.id + "'");
    index[c.id] = set.cases.size();
    set.cases.push_back(std::move(c));
  }
  root.finish();
  if (set.cases.empty()) root.fail_key("cases", "the set is empty");
  for (auto& c : set.cases) {
    if (c.config_same_as.empty()) continue;
    const auto it = index.find(c.config_same_as);
    if (it == index.end()) throw ConfigError(c.where, c.id + ".config.same_as", "no case '" + c.config_same_as + "'");
    if (c.model.empty()) c.model = set.cases[it->second].model;
    if (c.gpu.empty()) c.gpu = set.cases[it->second].gpu;
  }
  // Resolve reproduce.same_as after every case is known (one level: a target reuses nothing).
  for (auto& c : set.cases) {
    if (!c.supported() || c.step || c.serving || c.sweep || c.footprint) continue;
    const auto it = index.find(c.same_as);
    if (it == index.end()) throw ConfigError(c.where, c.id + ".reproduce.same_as", "no case '" + c.same_as + "'");
    const ValidationCase& target = set.cases[it->second];
    if (!target.step && !target.serving && !target.sweep && !target.footprint)
      throw ConfigError(c.where, c.id + ".reproduce.same_as", "'" + c.same_as + "' has no reproduction of its own");
    if (target.level != c.level)
      throw ConfigError(c.where, c.id + ".reproduce.same_as", "'" + c.same_as + "' is at another level");
    c.step = target.step;
    c.serving = target.serving;
    c.sweep = target.sweep;
    c.footprint = target.footprint;
  }
  return set;
}

ValidationSet load_validation_set(const std::string& path) {
  return validation_set_from_yaml(ConfigNode::read_file(path), path, fs::path(path).parent_path().string());
}

std::string default_validation_set_path() {
  return (fs::path(data_root()) / "scenarios" / "validation" / "cases.yaml").string();
}

}  // namespace engramsim::validation
