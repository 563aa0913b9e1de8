#include "planner/report_data.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "planner/display_text.hpp"

namespace engramsim::planner {
namespace fs = std::filesystem;
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string last_component(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  return json_text(v, -1);
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::optional<double> read_opt(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

// Prose never shows an exponent: a figure %g would write as 6.829e+05 is written whole (682934).
std::string fmt(double v, const char* f = "%.4g") {
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  if (std::isfinite(v) && std::string(buf).find('e') != std::string::npos) return plain_number(v, 4);
  return buf;
}

}  // namespace

nlohmann::json ReportContext::to_json() const {
  nlohmann::json j;
  j["title"] = title;
  j["question"] = question;
  j["scenario"] = scenario;
  j["model_card"] = model_card;
  j["presets"] = presets;
  j["calibration_profile"] = calibration_profile;
  j["price_tier"] = price_tier;
  j["curve_axis"] = curve_axis;
  j["target_interactivity"] = opt(target_interactivity);
  j["slo"] = {{"min_interactivity", opt(slo.min_interactivity)},
              {"max_ttft_p99_ms", opt(slo.max_ttft_p99_ms)},
              {"max_tpot_p99_ms", opt(slo.max_tpot_p99_ms)}};
  nlohmann::json a = nlohmann::json::array();
  for (const auto& x : assumptions)
    a.push_back({{"figure", x.figure}, {"value", x.value}, {"source", x.source}, {"kind", x.kind}});
  j["assumptions"] = a;
  j["notes"] = notes;
  nlohmann::json t = nlohmann::json::array();
  for (const auto& x : extra_tables)
    t.push_back({{"name", x.name}, {"title", x.title}, {"columns", x.columns}, {"rows", x.rows}});
  j["extra_tables"] = t;
  nlohmann::json pairs = nlohmann::json::object();
  for (const auto& [k, g] : validation.by_gpu_engine)
    pairs[k] = {{"cases", g.cases}, {"mape", g.mape}, {"lean", g.lean}, {"known_misses", g.known_misses}};
  j["validation"] = {{"by_gpu", validation.by_gpu},
                     {"by_engine", validation.by_engine},
                     {"by_gpu_engine", pairs},
                     {"serving_throughput", opt(validation.serving_throughput)}};
  j["tool"] = tool;
  j["overrides"] = overrides;
  return j;
}

ReportContext ReportContext::from_json(const nlohmann::json& j) {
  ReportContext c;
  c.title = j.value("title", c.title);
  c.question = j.value("question", "");
  c.scenario = j.value("scenario", "");
  c.model_card = j.value("model_card", "");
  if (j.contains("presets")) c.presets = j.at("presets").get<std::vector<std::string>>();
  c.calibration_profile = j.value("calibration_profile", "");
  c.price_tier = j.value("price_tier", "");
  c.curve_axis = j.value("curve_axis", c.curve_axis);
  c.target_interactivity = read_opt(j, "target_interactivity");
  if (auto it = j.find("slo"); it != j.end() && it->is_object()) {
    c.slo.min_interactivity = read_opt(*it, "min_interactivity");
    c.slo.max_ttft_p99_ms = read_opt(*it, "max_ttft_p99_ms");
    c.slo.max_tpot_p99_ms = read_opt(*it, "max_tpot_p99_ms");
  }
  if (auto it = j.find("assumptions"); it != j.end() && it->is_array()) {
    for (const auto& a : *it)
      c.assumptions.push_back(
          {a.value("figure", ""), a.value("value", ""), a.value("source", ""), a.value("kind", "")});
  }
  if (j.contains("notes")) c.notes = j.at("notes").get<std::vector<std::string>>();
  if (auto it = j.find("extra_tables"); it != j.end() && it->is_array()) {
    for (const auto& t : *it) {
      Table tb;
      tb.name = t.value("name", "");
      tb.title = t.value("title", "");
      tb.columns = t.at("columns").get<std::vector<std::string>>();
      tb.rows = t.at("rows").get<std::vector<std::vector<std::string>>>();
      c.extra_tables.push_back(std::move(tb));
    }
  }
  if (auto it = j.find("validation"); it != j.end() && it->is_object()) {
    if (it->contains("by_gpu")) c.validation.by_gpu = it->at("by_gpu").get<std::map<std::string, double>>();
    if (it->contains("by_engine")) c.validation.by_engine = it->at("by_engine").get<std::map<std::string, double>>();
    if (it->contains("by_gpu_engine") && it->at("by_gpu_engine").is_object())
      for (const auto& [k, g] : it->at("by_gpu_engine").items())
        c.validation.by_gpu_engine[k] = {g.value("cases", 0), g.value("mape", 0.0), g.value("lean", 0.0),
                                         g.value("known_misses", std::vector<std::string>{})};
    c.validation.serving_throughput = read_opt(*it, "serving_throughput");
  }
  c.tool = j.value("tool", "");
  if (j.contains("overrides") && j.at("overrides").is_array())
    c.overrides = j.at("overrides").get<std::vector<std::string>>();
  return c;
}

std::string config_label(const nlohmann::json& assignments, const std::vector<std::string>& axes,
                         const std::string& curve_axis) {
  std::vector<std::string> keys = axes;
  if (keys.empty() && assignments.is_object())
    for (const auto& [k, v] : assignments.items()) keys.push_back(k);
  std::map<std::string, int> short_count;
  for (const auto& k : keys) ++short_count[last_component(k)];
  std::string out;
  for (const auto& k : keys) {
    if (k == curve_axis || !assignments.is_object() || !assignments.contains(k)) continue;
    const std::string name = short_count[last_component(k)] > 1 ? k : last_component(k);
    if (!out.empty()) out += ' ';
    out += name + "=" + value_text(assignments.at(k));
  }
  return out.empty() ? "base" : out;
}

ReportData make_report_data(ReportContext context, std::vector<ResultLine> lines, std::vector<std::string> axes,
                            std::optional<std::size_t> total_points) {
  ReportData d;
  d.context = std::move(context);
  lines = canonicalize(std::move(lines));
  if (axes.empty()) {
    // Without a manifest, the union of assignment keys (sorted by JSON) is the best order available.
    std::set<std::string> seen;
    for (const auto& l : lines)
      if (l.assignments.is_object())
        for (const auto& [k, v] : l.assignments.items())
          if (seen.insert(k).second) axes.push_back(k);
  }
  d.axes = axes;
  d.total_points = total_points.value_or(lines.empty() ? 0 : lines.back().index + 1);
  for (const auto& l : lines) {
    ReportPoint p;
    p.index = l.index;
    p.id = l.id;
    p.assignments = l.assignments;
    p.config = config_label(l.assignments, axes, d.context.curve_axis);
    p.status = l.status;
    p.reason = l.status == PointStatus::error ? l.error : l.reason;
    if (l.status == PointStatus::ok)
      p.metrics = metrics_from_json(l.result);
    else
      p.metrics = metrics_from_json(nlohmann::json());
    p.concurrency = kNaN;
    if (l.assignments.is_object() && l.assignments.contains(d.context.curve_axis) &&
        l.assignments[d.context.curve_axis].is_number()) {
      p.concurrency = l.assignments[d.context.curve_axis].get<double>();
    } else if (std::isfinite(p.metrics.concurrency)) {
      p.concurrency = p.metrics.concurrency;
    }
    const double allin = p.metrics.cost_per_gpu_hour_usd;
    const double gpu = p.metrics.gpu_hour_usd;
    p.usd_per_gpu_hour = allin > 0.0 ? allin : (gpu > 0.0 ? gpu : kNaN);
    p.tokens_per_dollar = std::isfinite(p.usd_per_gpu_hour) && std::isfinite(p.metrics.throughput_per_gpu)
                              ? tokens_per_dollar(p.metrics.throughput_per_gpu, p.usd_per_gpu_hour)
                              : kNaN;
    d.points.push_back(std::move(p));
  }
  return d;
}

void write_context(const fs::path& dir, const ReportContext& context) {
  fs::create_directories(dir);
  write_file_atomically(dir / "context.json", json_text(context.to_json()) + "\n");
}

std::optional<ReportContext> read_context(const fs::path& dir) {
  const fs::path p = dir / "context.json";
  std::ifstream in(p);
  if (!in) return std::nullopt;
  try {
    return ReportContext::from_json(nlohmann::json::parse(in));
  } catch (const std::exception& e) {
    throw ConfigError({p.string(), 0, 0}, "", std::string("not a report context (") + e.what() + ")");
  }
}

fs::path refine_round_dir(const fs::path& dir, int round) {
  return dir / "refine" / ("round-" + std::to_string(round));
}

ReportData load_results(const fs::path& dir) {
  return load_results_through_round(dir, std::numeric_limits<int>::max());
}

ReportData load_results_through_round(const fs::path& dir, int last_round) {
  const fs::path file = results_path(dir);
  if (!fs::exists(file)) {
    throw std::runtime_error(file.string() + " does not exist (run the sweep first, or merge shard files with merge)");
  }
  ReadResults r = read_results_file(file);
  auto manifest = read_manifest(dir);
  ReportContext ctx = read_context(dir).value_or(ReportContext{});
  std::vector<std::string> axes;
  std::optional<std::size_t> total;
  if (manifest) {
    axes = manifest->axes;
    total = manifest->total_points;
  }
  // Refinement rounds (planner/refine.hpp): their points follow the grid's, in round order.
  std::size_t next = total.value_or(r.lines.empty() ? 0 : r.lines.back().index + 1);
  for (int round = 1; round <= last_round; ++round) {
    const fs::path rdir = refine_round_dir(dir, round);
    if (!fs::exists(results_path(rdir))) break;
    ReadResults rr = read_results_file(results_path(rdir));
    const auto rm = read_manifest(rdir);
    const std::size_t n = rm ? rm->total_points : rr.lines.size();
    for (auto& l : rr.lines) {
      l.index += next;
      r.lines.push_back(std::move(l));
    }
    next += n;
    if (total) total = next;
  }
  ReportData d = make_report_data(std::move(ctx), std::move(r.lines), std::move(axes), total);
  // Derived from the results, so every way to a report (sweep, plan, merge, report) shows it.
  if (Table hm = host_memory_table(d); !hm.rows.empty()) {
    const bool present = std::any_of(d.context.extra_tables.begin(), d.context.extra_tables.end(),
                                     [](const Table& t) { return t.name == "host_memory"; });
    if (!present) d.context.extra_tables.push_back(std::move(hm));
  }
  return d;
}

std::vector<CurvePoint> throughput_points(const ReportData& d) {
  std::vector<CurvePoint> out;
  for (const auto& p : d.points) {
    if (p.status != PointStatus::ok) continue;
    out.push_back({p.metrics.interactivity, p.metrics.throughput_per_gpu, p.concurrency, p.config, p.index});
  }
  return out;
}

std::vector<CurvePoint> tokens_per_dollar_points(const ReportData& d) {
  std::vector<CurvePoint> out;
  for (const auto& p : d.points) {
    if (p.status != PointStatus::ok || !std::isfinite(p.tokens_per_dollar)) continue;
    out.push_back({p.metrics.interactivity, p.tokens_per_dollar, p.concurrency, p.config, p.index});
  }
  return out;
}

bool meets_slo(const ReportPoint& p, const Slo& slo) {
  if (p.status != PointStatus::ok) return false;
  // A NaN metric fails every bound: an unknown latency does not meet an SLO.
  if (slo.min_interactivity && !(p.metrics.interactivity >= *slo.min_interactivity)) return false;
  if (slo.max_ttft_p99_ms && !(p.metrics.ttft_ms.p99 <= *slo.max_ttft_p99_ms)) return false;
  if (slo.max_tpot_p99_ms && !(p.metrics.tpot_ms.p99 <= *slo.max_tpot_p99_ms)) return false;
  return true;
}

double extra_number(const ReportPoint& p, const char* key, double fallback) {
  const auto it = p.metrics.extra.find(key);
  return it != p.metrics.extra.end() && it->is_number() ? it->get<double>() : fallback;
}

KvWallPoint kv_wall_point(const ReportPoint& p) {
  KvWallPoint w;
  w.index = p.index;
  w.config = p.config;
  w.load = p.concurrency;
  w.throughput_per_gpu = p.metrics.throughput_per_gpu;
  w.recomputed_tokens = extra_number(p, "recomputed_tokens");
  w.computed_tokens = extra_number(p, "total_input_tokens") - extra_number(p, "cached_input_tokens") +
                      extra_number(p, "total_output_tokens") + w.recomputed_tokens;
  w.prefix_cache_hit_rate = extra_number(p, "prefix_cache_hit_rate");
  w.ideal_prefix_hit_rate = extra_number(p, "ideal_prefix_hit_rate");
  w.kv_evictions = extra_number(p, "kv_evictions");
  return w;
}

KvWallAnalysis kv_walls(const ReportData& d) {
  std::vector<KvWallPoint> pts;
  for (const auto& p : d.points)
    if (p.status == PointStatus::ok) pts.push_back(kv_wall_point(p));
  return find_kv_walls(pts);
}

std::vector<ConfigComparison> compare_at(const ReportData& d, double interactivity) {
  std::vector<ConfigComparison> out;
  const KvWallAnalysis walls = kv_walls(d);
  const auto tput = build_curves(throughput_points(d));
  const auto tpd = build_curves(tokens_per_dollar_points(d));
  // One configuration's readings at the target, from its points within its wall or from all of them.
  const auto read = [&](const std::string& config, bool within_only) {
    const auto at = [&](const std::vector<Curve>& curves) -> FrontierReading {
      for (const auto& c : curves) {
        if (c.config != config) continue;
        std::vector<CurvePoint> pts;
        for (const auto& p : c.points)
          if (!within_only || !walls.past_wall(p.index)) pts.push_back(p);
        return frontier_reading_at(pareto_frontier(pts), interactivity);
      }
      return {};
    };
    const FrontierReading t = at(tput);
    const FrontierReading m = at(tpd);
    ConfigComparison cc;
    cc.config = config;
    cc.throughput_per_gpu = t.value;
    cc.tokens_per_dollar = m.value;
    cc.at_least = m.value ? m.at_least : t.at_least;
    cc.interpolation_error = m.value ? m.interpolation_error : t.interpolation_error;
    return cc;
  };
  for (const auto& c : tput) {
    const bool priced = std::any_of(tpd.begin(), tpd.end(), [&](const Curve& t) { return t.config == c.config; });
    const auto reached = [&](const ConfigComparison& cc) {
      return priced ? cc.tokens_per_dollar.has_value() : cc.throughput_per_gpu.has_value();
    };
    ConfigComparison cc = read(c.config, true);
    if (!reached(cc)) {
      cc = read(c.config, false);
      cc.past_wall = reached(cc);
    } else if (cc.at_least) {
      const ConfigComparison all = read(c.config, false);
      if (!all.at_least && all.tokens_per_dollar && cc.tokens_per_dollar &&
          *all.tokens_per_dollar > *cc.tokens_per_dollar)
        cc.past_wall_tokens_per_dollar = all.tokens_per_dollar;
    }
    out.push_back(std::move(cc));
  }
  std::stable_sort(out.begin(), out.end(), [](const ConfigComparison& a, const ConfigComparison& b) {
    if (a.tokens_per_dollar.has_value() != b.tokens_per_dollar.has_value()) return a.tokens_per_dollar.has_value();
    if (a.past_wall != b.past_wall) return !a.past_wall;
    if (a.tokens_per_dollar && b.tokens_per_dollar) return *a.tokens_per_dollar > *b.tokens_per_dollar;
    return false;
  });
  if (!out.empty() && out.front().tokens_per_dollar && *out.front().tokens_per_dollar > 0.0) {
    const double best = *out.front().tokens_per_dollar;
    for (auto& cc : out)
      if (cc.tokens_per_dollar) cc.ratio_to_best = *cc.tokens_per_dollar / best;
  }
  return out;
}

namespace {

// The GPU and engine a configuration's ok points ran (from their results), empty when unknown.
std::pair<std::string, std::string> gpu_and_engine(const ReportData& d, const std::string& config) {
  const ReportPoint* p = nullptr;
  for (const auto& q : d.points)
    if (q.config == config && q.status == PointStatus::ok) p = &q;
  if (p == nullptr) return {};
  const auto name = [&](const char* key) {
    const auto it = p->metrics.extra.find(key);
    return it != p->metrics.extra.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  return {name("gpu"), name("engine")};
}

const ValidationGroup* own_group(const ReportData& d, const std::string& gpu, const std::string& engine) {
  const auto it = d.context.validation.by_gpu_engine.find(gpu + "/" + engine);
  return gpu.empty() || engine.empty() || it == d.context.validation.by_gpu_engine.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<double> validation_error(const ValidationErrors& v, const std::string& gpu, const std::string& engine) {
  if (const auto it = v.by_gpu_engine.find(gpu + "/" + engine);
      !gpu.empty() && !engine.empty() && it != v.by_gpu_engine.end())
    return it->second.mape;
  std::optional<double> err;
  const auto take = [&](const std::map<std::string, double>& by, const std::string& n) {
    if (const auto it = by.find(n); it != by.end()) err = std::max(err.value_or(0.0), it->second);
  };
  take(v.by_gpu, gpu);
  take(v.by_engine, engine);
  return err ? err : v.serving_throughput;
}

std::optional<double> config_error(const ReportData& d, const std::string& config) {
  const auto [gpu, engine] = gpu_and_engine(d, config);
  return validation_error(d.context.validation, gpu, engine);
}

std::string own_validation_text(const ReportData& d, const std::string& config) {
  const auto [gpu, engine] = gpu_and_engine(d, config);
  const std::string where = (gpu.empty() ? std::string("its GPU") : gpu_display_name(gpu)) + " with " +
                            (engine.empty() ? std::string("its engine") : engine);
  const auto pct = [](double f) { return fmt(100.0 * f, "%.1f") + " %"; };
  if (const ValidationGroup* g = own_group(d, gpu, engine)) {
    std::string t = "its own validation: " + std::to_string(g->cases) + " case" + (g->cases == 1 ? "" : "s") + " on " +
                    where + ", mean error " + pct(g->mape) + " (MAPE, not a bound)";
    if (std::abs(g->lean) >= 0.0005)
      t += ", predicting " + pct(std::abs(g->lean)) + (g->lean > 0 ? " faster" : " slower") +
           " than measured on average";
    if (!g->known_misses.empty()) {
      t += "; known miss" + std::string(g->known_misses.size() == 1 ? "" : "es") + " there: ";
      for (std::size_t i = 0; i < g->known_misses.size(); ++i) t += (i ? ", " : "") + g->known_misses[i];
    }
    return t;
  }
  std::string t = "no validation case on " + where;
  const auto& v = d.context.validation;
  if (const auto it = v.by_gpu.find(gpu); it != v.by_gpu.end())
    t += "; " + gpu_display_name(gpu) + " with other engines: mean error " + pct(it->second);
  if (const auto it = v.by_engine.find(engine); it != v.by_engine.end())
    t += "; " + engine + " on other GPUs: mean error " + pct(it->second);
  else if (v.by_gpu.find(gpu) == v.by_gpu.end() && v.serving_throughput)
    t += "; the whole set's serving throughput: mean error " + pct(*v.serving_throughput);
  return t + " (MAPE, not a bound)";
}

namespace {

// Each profile's applied sections over the ok points, in point order and distinct.
std::vector<std::pair<std::string, std::vector<std::string>>> applied_by_profile(const ReportData& d) {
  std::set<std::string> gpus;
  for (const auto& p : d.points)
    if (const auto it = p.metrics.extra.find("gpu"); it != p.metrics.extra.end() && it->is_string())
      gpus.insert(it->get<std::string>());
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  for (const auto& p : d.points) {
    const auto it = p.metrics.extra.find("calibration");
    if (p.status != PointStatus::ok || it == p.metrics.extra.end() || !it->is_object()) continue;
    const std::string profile = it->value("profile", "");
    auto entry = std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == profile; });
    if (entry == out.end()) entry = out.insert(out.end(), {profile, {}});
    const std::string gpu = gpus.size() > 1 ? p.metrics.extra.value("gpu", "") + ": " : "";
    for (const auto& line : it->value("applied", nlohmann::json::array()))
      if (line.is_string() &&
          std::find(entry->second.begin(), entry->second.end(), gpu + line.get<std::string>()) == entry->second.end())
        entry->second.push_back(gpu + line.get<std::string>());
  }
  return out;
}

}  // namespace

std::string calibration_text(const ReportData& d) {
  const auto applied = applied_by_profile(d);
  if (applied.empty())
    return d.context.calibration_profile.empty() ? "none (datasheet figures and default efficiencies)"
                                                 : d.context.calibration_profile;
  std::string out;
  for (const auto& [profile, lines] : applied) {
    out += (out.empty() ? "" : "; ") + profile + ": applied ";
    if (lines.empty()) out += "nothing (every section kept at its default)";
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? ", " : "") + lines[i];
  }
  return out;
}

Table host_memory_table(const ReportData& d) {
  static const std::vector<std::pair<const char*, const char*>> cols = {
      {"capacity", "capacity"},
      {"reserve", "reserve"},
      {"pinned_engram", "pinned Engram tables"},
      {"dram_row_caches", "DRAM row caches"},
      {"kv_offload", "KV offload pools"},
      {"page_cache_used", "Engram pages in page cache"},
      {"page_cache_capacity", "page cache may hold"},
      {"rest", "rest"}};
  Table t{"host_memory", "Host memory per node (GiB)", {"configuration"}, {}};
  for (const auto& [key, title] : cols) t.columns.push_back(title);
  std::map<std::string, const ReportPoint*> pick;
  std::vector<std::string> order;
  const auto target = d.context.target_interactivity;
  for (const auto& p : d.points) {
    if (p.status != PointStatus::ok || !p.metrics.extra.contains("host_memory_per_node_gib")) continue;
    auto [it, inserted] = pick.emplace(p.config, &p);
    if (inserted)
      order.push_back(p.config);
    else if (target &&
             std::abs(p.metrics.interactivity - *target) < std::abs(it->second->metrics.interactivity - *target))
      it->second = &p;
  }
  for (const auto& c : order) {
    const nlohmann::json& h = pick[c]->metrics.extra.at("host_memory_per_node_gib");
    std::vector<std::string> row = {c};
    for (const auto& [key, title] : cols)
      row.push_back(h.contains(key) && h.at(key).is_number() ? fmt(h.at(key).get<double>(), "%.1f") : "");
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::optional<std::string> nothing_fits(const ReportData& d) {
  if (d.points.empty()) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> why;  // configuration, its first reason
  for (const auto& p : d.points) {
    if (p.status != PointStatus::infeasible || p.reason.rfind(kSloMissReason, 0) == 0 ||
        p.reason.rfind(kBoundPrunedReason, 0) == 0)
      return std::nullopt;
    if (std::none_of(why.begin(), why.end(), [&](const auto& w) { return w.first == p.config; }))
      why.emplace_back(p.config, p.reason);
  }
  std::string t =
      "Nothing fits: every deployment asked for is infeasible, so there is no answer at any "
      "interactivity. ";
  constexpr std::size_t kShown = 6;
  for (std::size_t i = 0; i < why.size() && i < kShown; ++i) t += (i ? "; " : "") + why[i].first + ": " + why[i].second;
  if (why.size() > kShown) t += "; and " + std::to_string(why.size() - kShown) + " more in the report";
  return t + ".";
}

namespace {

// The lowest curve-axis value among a configuration's ok points.
double lowest_load(const ReportData& d, const std::string& config) {
  double lo = std::numeric_limits<double>::infinity();
  for (const auto& p : d.points)
    if (p.config == config && p.status == PointStatus::ok) lo = std::min(lo, p.concurrency);
  return lo;
}

}  // namespace

std::vector<OutOfRange> out_of_range_at(const ReportData& d, double interactivity) {
  std::vector<OutOfRange> out;
  std::vector<std::string> order;
  std::map<std::string, std::pair<double, double>> range;  // lowest, highest interactivity
  std::map<std::string, std::string> failed;               // configurations without an ok point
  for (const auto& p : d.points) {
    if (std::find(order.begin(), order.end(), p.config) == order.end()) order.push_back(p.config);
    if (p.status != PointStatus::ok || !std::isfinite(p.metrics.interactivity)) {
      if (!failed.count(p.config)) failed[p.config] = p.reason;
      continue;
    }
    auto [it, inserted] = range.emplace(p.config, std::make_pair(p.metrics.interactivity, p.metrics.interactivity));
    it->second.first = std::min(it->second.first, p.metrics.interactivity);
    it->second.second = std::max(it->second.second, p.metrics.interactivity);
  }
  for (const auto& c : order) {
    const auto r = range.find(c);
    if (r == range.end()) {
      const std::string& why = failed[c];
      out.push_back({c, why.rfind(kBoundPrunedReason, 0) == 0
                            ? why
                            : "no point ran (" + (why.empty() ? std::string("none evaluated") : why) + ")"});
      continue;
    }
    const auto [lo, hi] = r->second;
    const std::string span = "its points span " + fmt(lo, "%.1f") + ".." + fmt(hi, "%.1f") + " tok/s/user";
    if (hi < interactivity)
      out.push_back({c, span + ", all below the target (slower per user at every " +
                            last_component(d.context.curve_axis) +
                            (lowest_load(d, c) <= 1.0 ? ", 1 included: it cannot reach the target)" : ")")});
  }
  return out;
}

namespace {

// The curve axis as prose names it: its last key component ("concurrency").
std::string load_name(const ReportData& d) { return last_component(d.context.curve_axis); }

// "its KV wall is at concurrency 32 (past it from 64: ...)" for a configuration.
std::string wall_phrase(const ReportData& d, const KvWallAnalysis& walls, const std::string& config) {
  const ConfigKvWall* w = walls.wall(config);
  if (w == nullptr) return "no KV wall recorded";
  return kv_wall_text(*w, load_name(d), w->first_past_index ? walls.mark(*w->first_past_index) : nullptr);
}

// The comparison entry of a configuration.
const ConfigComparison* entry(const std::vector<ConfigComparison>& cmp, const std::string& config) {
  for (const auto& c : cmp)
    if (c.config == config) return &c;
  return nullptr;
}

// "At X tok/s/user, C serves the most ...": the winner's figures and its margin to the runner-up.
std::string winner_text(const Recommendation& r, const std::vector<ConfigComparison>& cmp, double x) {
  std::string t = "At " + fmt(x) + " tok/s/user, " + r.config +
                  " serves the most tokens per dollar: " + format_mtok_per_usd(r.tokens_per_dollar / 1e6) + " (" +
                  format_usd_per_mtok(1e6 / r.tokens_per_dollar) + ")";
  if (cmp.front().throughput_per_gpu) t += " (" + fmt(*cmp.front().throughput_per_gpu, "%.0f") + " tok/s/GPU)";
  if (r.margin) t += ", " + fmt(1.0 + *r.margin, "%.3f") + "x the next best, " + r.runner_up;
  t += ".";
  if (cmp.front().at_least)
    t += " It stays faster than the target at every load run, so it is read at its best point: at least that.";
  if (r.high > r.low)
    t += " With its validation error and the interpolation between measured points, " +
         format_mtok_per_usd(r.low / 1e6) + " to " + format_mtok_per_usd(r.high / 1e6) + ".";
  if (!r.tied.empty()) {
    std::string names;
    for (const auto& c : r.tied) names += (names.empty() ? "" : ", ") + c;
    t += " That margin is inside the validation error of the configurations compared (" +
         fmt(100.0 * r.error_bound.value_or(0.0), "%.1f") + " %, interpolation included): a tie with " + names +
         "; the model cannot rank them.";
  }
  std::string others;
  std::size_t shown = 0, more = 0;
  for (std::size_t i = 1; i < cmp.size(); ++i) {
    if (!cmp[i].ratio_to_best || cmp[i].config == r.runner_up) continue;
    if (shown < 3) {
      others += (others.empty() ? "" : "; ") + cmp[i].config + " " + fmt(*cmp[i].ratio_to_best, "%.3f") + "x" +
                (cmp[i].past_wall && !r.past_wall ? " (past its KV wall)" : "");
      ++shown;
    } else {
      ++more;
    }
  }
  if (more > 0) others += "; " + std::to_string(more) + " more in the comparison table";
  if (!others.empty()) t += " The others there, as a share of it: " + others + ".";
  return t;
}

// What the KV wall changes in the answer: the winner read past its wall, or others that would read
// more past theirs.
std::string wall_text(const ReportData& d, const KvWallAnalysis& walls, const Recommendation& r,
                      const std::vector<ConfigComparison>& cmp, const std::string& at) {
  std::string t;
  if (r.past_wall)
    t += " No configuration reaches " + at + " within its KV wall: " + r.config + " gets there only past it (" +
         wall_phrase(d, walls, r.config) + "), where preemptions, evicted prefixes and recompute set its figures.";
  for (const auto& c : r.past_wall_better) {
    const ConfigComparison* e = entry(cmp, c);
    const std::optional<double> v =
        e ? (e->past_wall_tokens_per_dollar ? e->past_wall_tokens_per_dollar : e->tokens_per_dollar) : std::nullopt;
    t += " " + c + " would read more, " + (v ? format_mtok_per_usd(*v / 1e6) + " " : std::string()) + "at " + at +
         ", but only past its KV wall (" + wall_phrase(d, walls, c) + "); it is not recommended there.";
  }
  return t;
}

// Up to three configurations the comparison leaves out, each with its reason; more as counts.
std::string out_of_range_text(const std::vector<OutOfRange>& out, double x) {
  if (out.empty()) return "";
  std::string t = " Not compared at " + fmt(x) + " tok/s/user: ";
  if (out.size() <= 3) {
    for (std::size_t i = 0; i < out.size(); ++i) t += (i ? "; " : "") + out[i].config + " (" + out[i].why + ")";
    return t + ".";
  }
  std::size_t none = 0, below = 0;
  for (const auto& o : out) {
    none += o.why.rfind("no point ran", 0) == 0;
    below += o.why.find("below the target") != std::string::npos;
  }
  return t + std::to_string(out.size()) + " configurations (" + std::to_string(none) + " with no point that ran, " +
         std::to_string(below) +
         " slower per user than the target at every point); the report lists each with its reason.";
}

// The relative half-width of a reading's interval: its configuration's validation error plus the
// interpolation error of the reading.
double half_width(const ReportData& d, const ConfigComparison& c) {
  return config_error(d, c.config).value_or(0.0) + c.interpolation_error;
}

// The comparison at the target: the winner within its wall if any configuration reaches the target
// there, margins and ties among configurations on the same side of their walls.
void recommend_at(const ReportData& d, const KvWallAnalysis& walls, const std::vector<ConfigComparison>& cmp, double x,
                  Recommendation& r) {
  r.found = true;
  r.config = cmp.front().config;
  r.past_wall = cmp.front().past_wall;
  r.tokens_per_dollar = *cmp.front().tokens_per_dollar;
  r.interactivity = x;
  const double half_best = half_width(d, cmp.front());
  r.low = r.tokens_per_dollar * (1.0 - half_best);
  r.high = r.tokens_per_dollar * (1.0 + half_best);
  for (std::size_t i = 1; i < cmp.size(); ++i) {
    if (!cmp[i].tokens_per_dollar || !(*cmp[i].tokens_per_dollar > 0.0)) continue;
    if (cmp[i].past_wall != r.past_wall) {
      if (*cmp[i].tokens_per_dollar > r.tokens_per_dollar) r.past_wall_better.push_back(cmp[i].config);
      continue;
    }
    if (cmp[i].past_wall_tokens_per_dollar && *cmp[i].past_wall_tokens_per_dollar > r.tokens_per_dollar)
      r.past_wall_better.push_back(cmp[i].config);
    const double margin = r.tokens_per_dollar / *cmp[i].tokens_per_dollar - 1.0;
    if (r.runner_up.empty()) {
      r.runner_up = cmp[i].config;
      r.margin = margin;
    }
    // A tie when the two intervals overlap.
    const double half_other = half_width(d, cmp[i]);
    if (half_best + half_other > 0.0 && r.low <= *cmp[i].tokens_per_dollar * (1.0 + half_other)) {
      r.tied.push_back(cmp[i].config);
      r.error_bound = std::max({r.error_bound.value_or(0.0), half_best, half_other});
    }
  }
  const std::string at = fmt(x) + " tok/s/user";
  r.text = winner_text(r, cmp, x) + wall_text(d, walls, r, cmp, at) + out_of_range_text(r.out_of_range, x);
  r.text += " Confidence: " + own_validation_text(d, r.config) + ".";
  r.text += " Values between measured points are Steffen-interpolated along each configuration's frontier.";
}

}  // namespace

Recommendation recommend(const ReportData& d) {
  Recommendation r;
  const KvWallAnalysis walls = kv_walls(d);
  if (d.context.target_interactivity) {
    const double x = *d.context.target_interactivity;
    const auto cmp = compare_at(d, x);
    r.out_of_range = out_of_range_at(d, x);
    if (!cmp.empty() && cmp.front().tokens_per_dollar) {
      recommend_at(d, walls, cmp, x, r);
      return r;
    }
    r.text = "No configuration's frontier reaches " + fmt(x) +
             " tok/s/user; falling back to the best point meeting the SLO. ";
  }
  const ReportPoint* best = nullptr;      // within its configuration's wall
  const ReportPoint* best_any = nullptr;  // wherever
  for (const auto& p : d.points) {
    if (!meets_slo(p, d.context.slo) || !std::isfinite(p.tokens_per_dollar)) continue;
    if (best_any == nullptr || p.tokens_per_dollar > best_any->tokens_per_dollar) best_any = &p;
    if (walls.past_wall(p.index)) continue;
    if (best == nullptr || p.tokens_per_dollar > best->tokens_per_dollar) best = &p;
  }
  if (best_any == nullptr) {
    r.text += "No evaluated point meets the SLO with a known price; no recommendation.";
    return r;
  }
  if (best == nullptr) {
    best = best_any;
    r.past_wall = true;
  }
  r.found = true;
  r.config = best->config;
  r.point_index = best->index;
  r.tokens_per_dollar = best->tokens_per_dollar;
  r.interactivity = best->metrics.interactivity;
  const bool any_past =
      std::any_of(walls.marks.begin(), walls.marks.end(), [](const KvWallMark& m) { return m.past_wall; });
  r.text += std::string(r.past_wall ? "No point meeting the SLO lies within its configuration's KV wall. " : "") +
            "Among points meeting the SLO" + (!r.past_wall && any_past ? " within their KV wall" : "") + ", " +
            best->config + " at " + d.context.curve_axis + "=" + fmt(best->concurrency) +
            " serves the most tokens per dollar: " + format_mtok_per_usd(best->tokens_per_dollar / 1e6) + " (" +
            format_usd_per_mtok(1e6 / best->tokens_per_dollar) + ", " +
            format_joules_per_token(cost_metrics_of(best->metrics).joules_per_token) + ") at " +
            fmt(best->metrics.interactivity) + " tok/s/user and " + fmt(best->metrics.throughput_per_gpu) +
            " tok/s/GPU.";
  if (r.past_wall) {
    r.text += " It lies past the KV wall: " + wall_phrase(d, walls, best->config) + ".";
  } else if (best_any != best) {
    r.past_wall_better.push_back(best_any->config);
    r.text += " " + best_any->config + " at " + d.context.curve_axis + "=" + fmt(best_any->concurrency) +
              " would read more, " + format_mtok_per_usd(best_any->tokens_per_dollar / 1e6) +
              ", but only past its KV wall (" + wall_phrase(d, walls, best_any->config) +
              "); it is not recommended there.";
  }
  return r;
}

}  // namespace engramsim::planner
