#include "report/report_writer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "core/cost_metrics.hpp"
#include "core/json_text.hpp"
#include "core/paths.hpp"
#include "report/report_style.hpp"
#include "report/svg_chart.hpp"

namespace engramsim::report {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMaxCdfSeries = 10;

// Never an exponent: a figure %g would write as 6.829e+05 is written whole.
std::string fmt(double v, const char* f = "%.6g") {
  if (!std::isfinite(v)) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, f, v);
  if (std::string(buf).find('e') != std::string::npos) return planner::plain_number(v, 6);
  return buf;
}

// How the report shows its configurations: human names, one style each, and the validation band of
// the recommended one.
struct Look {
  std::map<std::string, std::string> names;
  std::map<std::string, SeriesStyle> styles;
  std::string banded;           // machine label of the configuration drawn with its band
  std::optional<double> error;  // its validation error (a fraction)

  const std::string& name(const std::string& config) const {
    const auto it = names.find(config);
    return it == names.end() ? config : it->second;
  }
  Series series(const std::string& config, bool markers = true) const {
    Series s{name(config), {}, true, markers, false, "", {}};
    if (const auto it = styles.find(config); it != styles.end()) {
      s.color = it->second.color;
      s.dash = it->second.dash;
      s.marker = it->second.marker;
    }
    return s;
  }
};

Look look_of(const planner::ReportData& d, const planner::Recommendation& rec) {
  Look l{display_names(d), series_styles(d), "", std::nullopt};
  if (rec.found) {
    l.banded = rec.config;
    l.error = config_error(d, rec.config);
  }
  return l;
}

const char* status_name(planner::PointStatus s) { return to_string(s); }

// The ok points of each configuration, configurations in order of first appearance, points by
// ascending concurrency.
std::vector<std::pair<std::string, std::vector<const planner::ReportPoint*>>> ok_points_by_config(
    const planner::ReportData& d) {
  std::vector<std::pair<std::string, std::vector<const planner::ReportPoint*>>> out;
  std::map<std::string, std::size_t> where;
  for (const auto& p : d.points) {
    if (p.status != planner::PointStatus::ok) continue;
    auto [it, inserted] = where.emplace(p.config, out.size());
    if (inserted) out.push_back({p.config, {}});
    out[it->second].second.push_back(&p);
  }
  for (auto& [c, pts] : out)
    std::stable_sort(pts.begin(), pts.end(), [](const planner::ReportPoint* a, const planner::ReportPoint* b) {
      return a->concurrency < b->concurrency;
    });
  return out;
}

// The point of a configuration whose latency distribution stands for it: closest to the target
// interactivity when one is set, else the middle of its concurrency range.
const planner::ReportPoint* representative(const std::vector<const planner::ReportPoint*>& pts,
                                           const planner::ReportContext& ctx,
                                           bool (*has)(const planner::ReportPoint*)) {
  std::vector<const planner::ReportPoint*> with;
  for (const auto* p : pts)
    if (has(p)) with.push_back(p);
  if (with.empty()) return nullptr;
  if (ctx.target_interactivity) {
    const double x = *ctx.target_interactivity;
    const planner::ReportPoint* best = with.front();
    for (const auto* p : with)
      if (std::abs(p->metrics.interactivity - x) < std::abs(best->metrics.interactivity - x)) best = p;
    return best;
  }
  return with[with.size() / 2];
}

Series cdf_series(const std::string& name, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  Series s;
  s.name = name;
  s.markers = false;
  for (std::size_t i = 0; i < v.size(); ++i)
    s.points.emplace_back(v[i], static_cast<double>(i + 1) / static_cast<double>(v.size()));
  return s;
}

bool wide_positive(const std::vector<double>& v, double ratio) {
  double lo = INFINITY;
  double hi = 0.0;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    if (x <= 0.0) return false;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  return hi > 0.0 && hi / lo >= ratio;
}

Chart latency_cdf(const planner::ReportData& d, const Look& look, const std::string& id, const std::string& what,
                  bool ttft) {
  std::vector<double> all;
  std::vector<Series> series;
  for (const auto& [config, pts] : ok_points_by_config(d)) {
    if (series.size() >= kMaxCdfSeries) break;
    auto has = ttft ? +[](const planner::ReportPoint* p) { return !p->metrics.ttft_samples_ms.empty(); }
                    : +[](const planner::ReportPoint* p) { return !p->metrics.tpot_samples_ms.empty(); };
    const planner::ReportPoint* p = representative(pts, d.context, has);
    if (p == nullptr) continue;
    const auto& samples = ttft ? p->metrics.ttft_samples_ms : p->metrics.tpot_samples_ms;
    all.insert(all.end(), samples.begin(), samples.end());
    const auto dot = d.context.curve_axis.rfind('.');
    const std::string axis = dot == std::string::npos ? d.context.curve_axis : d.context.curve_axis.substr(dot + 1);
    Series s = cdf_series(look.name(config) + ", " + axis + "=" + fmt(p->concurrency), samples);
    const Series styled = look.series(config, false);
    s.color = styled.color;
    s.dash = styled.dash;
    series.push_back(std::move(s));
  }
  // Latency tails span decades under load; a log axis keeps the body of the distribution readable.
  const bool log = wide_positive(all, 50.0);
  XYChart chart(id, what + " CDF", AxisSpec{what + " (ms)", log, std::nullopt, std::nullopt},
                AxisSpec{"Fraction of requests", false, 0.0, 1.0});
  for (auto& s : series) chart.add(std::move(s));
  std::string caption = "Cumulative distribution of " + what + " per configuration, at the point ";
  caption +=
      d.context.target_interactivity ? "closest to the target interactivity" : "in the middle of its concurrency range";
  caption += ". Sampled by the simulator; may be a quantile summary.";
  return {id, what + " CDF", caption, chart.svg()};
}

std::string csv_cell(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

nlohmann::json json_cell(const std::string& s) {
  if (s.empty()) return nullptr;
  try {
    std::size_t used = 0;
    const double v = std::stod(s, &used);
    if (used == s.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return s;
}

std::string html_escape(const std::string& s) { return xml_escape(s); }

// The last component of a dotted key ("workload.concurrency" -> "concurrency").
std::string last_key(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

}  // namespace
std::string table_to_csv(const planner::Table& t);
namespace {

// Percent-encoding for a data: URI.
std::string uri_escape(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// A table's file name in tables/ without its extension: [a-z0-9_] only, so no name can leave tables/.
std::string table_file_stem(const std::string& name) {
  std::string stem = name.empty() ? "table" : name;
  for (char& ch : stem)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_')) ch = '_';
  return stem;
}

// A table longer or wider than this does not print: pages of rows would bury the report, and a
// table wider than the page is unreadable on paper. Its CSV file stands in for it.
constexpr std::size_t kPrintMaxRows = 20;
constexpr std::size_t kPrintMaxColumns = 12;

bool prints_in_full(const planner::Table& t) {
  return t.rows.size() <= kPrintMaxRows && t.columns.size() <= kPrintMaxColumns;
}

// The class of a table's wrapper: "table-wrap", and "no-print" when the table does not print.
std::string table_wrap_class(const planner::Table& t) {
  return prints_in_full(t) ? "table-wrap" : "table-wrap no-print";
}

// What a table that does not print leaves on paper: a line naming its files beside the report.
std::string print_stand_in(const planner::Table& t) {
  if (prints_in_full(t)) return "";
  const std::string stem = table_file_stem(t.name);
  return "<p class=\"print-only table-file\">Not printed (" + std::to_string(t.rows.size()) + " rows of " +
         std::to_string(t.columns.size()) + " columns): the full table is tables/" + stem + ".csv (and " + stem +
         ".json) beside this report.</p>";
}

// The table with a CSV download link carrying its data (no file or network needed); in print, a
// long or wide table is a line naming its CSV file.
std::string html_table(const planner::Table& t, const char* cls = "data") {
  std::ostringstream o;
  o << "<div class=\"table-tools\"><a class=\"csv\" download=\"" << html_escape(t.name)
    << ".csv\" href=\"data:text/csv;charset=utf-8," << uri_escape(table_to_csv(t)) << "\">CSV</a></div>";
  o << print_stand_in(t) << "<div class=\"" << table_wrap_class(t) << "\"><table class=\"" << cls << "\" id=\"table-"
    << html_escape(t.name) << "\"><thead><tr>";
  for (const auto& c : t.columns) o << "<th>" << html_escape(c) << "</th>";
  o << "</tr></thead><tbody>";
  for (const auto& r : t.rows) {
    o << "<tr>";
    for (const auto& cell : r) {
      const bool numeric = json_cell(cell).is_number();
      o << (numeric ? "<td class=\"num\">" : "<td>") << html_escape(cell) << "</td>";
    }
    o << "</tr>";
  }
  o << "</tbody></table></div>";
  return o.str();
}

std::string md_table(const planner::Table& t) {
  std::ostringstream o;
  o << "|";
  for (const auto& c : t.columns) o << " " << md_escape(c) << " |";
  o << "\n|";
  for (std::size_t i = 0; i < t.columns.size(); ++i) o << " --- |";
  o << "\n";
  for (const auto& r : t.rows) {
    o << "|";
    for (const auto& cell : r) o << " " << md_escape(cell) << " |";
    o << "\n";
  }
  return o.str();
}

const planner::Table* find_table(const std::vector<planner::Table>& ts, const std::string& name) {
  for (const auto& t : ts)
    if (t.name == name) return &t;
  return nullptr;
}

std::string slo_text(const planner::Slo& s) {
  std::string out;
  auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (s.min_interactivity) add("interactivity >= " + fmt(*s.min_interactivity) + " tok/s/user");
  if (s.max_ttft_p99_ms) add("TTFT p99 <= " + fmt(*s.max_ttft_p99_ms) + " ms");
  if (s.max_tpot_p99_ms) add("TPOT p99 <= " + fmt(*s.max_tpot_p99_ms) + " ms");
  return out.empty() ? "none given" : out;
}

std::string or_unknown(const std::string& s) { return s.empty() ? "not recorded" : s; }

std::string points_summary(const planner::ReportData& d) {
  std::size_t ok = 0, inf = 0, err = 0;
  for (const auto& p : d.points) {
    if (p.status == planner::PointStatus::ok) ++ok;
    if (p.status == planner::PointStatus::infeasible) ++inf;
    if (p.status == planner::PointStatus::error) ++err;
  }
  std::string s = std::to_string(d.points.size()) + " of " + std::to_string(d.total_points) +
                  " points: " + std::to_string(ok) + " evaluated, " + std::to_string(inf) + " infeasible, " +
                  std::to_string(err) + " failed";
  if (d.points.size() < d.total_points) s += " (the sweep is incomplete)";
  return s;
}

const char* kCss = R"CSS(
body{font-family:Helvetica,Arial,sans-serif;margin:24px auto;max-width:1180px;color:#222;line-height:1.45;padding:0 16px}
h1{font-size:26px;margin-bottom:4px}h2{font-size:20px;border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:34px}
.meta{color:#666;font-size:13px}.rec{background:#eef6ee;border-left:4px solid #2ca02c;padding:10px 14px}
.question{background:#f3f6fb;border-left:4px solid #1f77b4;padding:10px 14px}
figure{margin:12px 0 22px 0}figcaption{font-size:13px;color:#555;max-width:760px}
.table-wrap{overflow-x:auto;margin:4px 0 18px 0}table{border-collapse:collapse;font-size:12px;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;overflow-wrap:anywhere}th{background:#f2f2f2}
table.points{font-size:10.5px}.table-tools{text-align:right;font-size:12px}.csv{color:#1f77b4}
.verdict{background:#eef6ee;border-left:5px solid #2ca02c;padding:10px 16px;margin:14px 0}
.verdict .headline{font-size:19px;font-weight:bold;margin:4px 0 8px 0}.verdict .reasoning{font-size:14px;margin:4px 0}
.as-run-title{font-size:15px;font-weight:normal;color:#a05a00}
table.facts{font-size:13px;margin:6px 0 10px 0}table.facts th{width:210px;background:#f7f7f7}
.overrides{background:#fff6e5;border-left:4px solid #ff7f0e;padding:8px 14px}
.axis-toggle{font-size:12px;margin:4px 0}.axis-toggle button{margin-right:6px}
svg.chart{max-width:100%;height:auto}
td.num{text-align:right;font-variant-numeric:tabular-nums}tbody tr:nth-child(even){background:#fafafa}
.kind-measured{color:#2ca02c;font-weight:bold}.kind-datasheet{color:#1f77b4}.kind-assumed{color:#d62728}
.print-only{display:none}
)CSS";

// Paper: A4 with 12 mm margins (186 mm, 703 CSS px, of width). Charts span the width (their
// smallest text, 11 of 800 units, draws at 7.3 pt); no chart, row or verdict splits across a page
// edge; buttons and CSV links are gone; a long or wide table is a line naming its CSV file.
const char* kPrintCss = R"CSS(
@media print{
@page{size:A4;margin:12mm}
body{max-width:none;margin:0;padding:0;font-size:10pt;line-height:1.3}
h1{font-size:16pt}h2{font-size:13pt;margin-top:14pt;break-after:avoid}h3{font-size:11pt;margin:10pt 0 4pt 0;break-after:avoid}
.no-print,.table-tools,.axis-toggle{display:none!important}.print-only{display:block}
.table-file{font-style:italic;color:#444}
.table-wrap{overflow:visible;margin:2pt 0 8pt 0}table{font-size:8pt}table.facts{font-size:8.5pt}th,td{padding:1pt 4pt}
table.facts th{width:150px}thead{display:table-header-group}
tr,figure,.verdict,.question,.overrides{break-inside:avoid}
figure{margin:4pt 0 10pt 0}svg.chart{width:100%;height:auto}figcaption{font-size:8pt;max-width:none}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
)CSS";

// The hover text of a point: its configuration and every figure the charts and tables show.
std::string point_tip(const planner::ReportData& d, const Look& look, const planner::KvWallAnalysis& walls,
                      const planner::CurvePoint& c) {
  for (const auto& p : d.points) {
    if (p.index != c.index) continue;
    const auto cm = cost_metrics_of(p.metrics);
    std::string wall;
    if (const planner::KvWallMark* m = walls.mark(p.index); m != nullptr && m->past_wall)
      wall = "\npast the KV wall" + (m->causes ? " (" + planner::kv_wall_causes_text(m->causes) + ")" : std::string());
    return look.name(p.config) + "\n" + d.context.curve_axis + " " + fmt(p.concurrency) + wall + "\ninteractivity " +
           fmt(p.metrics.interactivity, "%.1f") + " tok/s/user\nthroughput " +
           fmt(p.metrics.throughput_per_gpu, "%.0f") + " tok/s/GPU\n" + format_mtok_per_usd(p.tokens_per_dollar / 1e6) +
           ", " + format_usd_per_mtok(cm.usd_per_m_total_tokens) + "\nTTFT p99 " + fmt(p.metrics.ttft_ms.p99, "%.0f") +
           " ms, TPOT p99 " + fmt(p.metrics.tpot_ms.p99, "%.1f") + " ms\n" +
           format_joules_per_token(cm.joules_per_token);
  }
  return c.config;
}

// A chart over interactivity: one curve per configuration (every point with its tooltip), the
// Pareto frontier dashed, the target interactivity marked; x linear or logarithmic.
std::string interactivity_chart(const planner::ReportData& d, const Look& look, const std::string& id,
                                const std::string& title, const std::string& y_label,
                                const std::vector<planner::CurvePoint>& pts, bool log_x) {
  XYChart c(id, title, AxisSpec{"Interactivity (tok/s/user)", log_x, std::nullopt, std::nullopt},
            AxisSpec{y_label, false, 0.0, std::nullopt});
  const planner::KvWallAnalysis walls = kv_walls(d);
  const std::string axis = last_key(d.context.curve_axis);
  for (const auto& cv : build_curves(pts)) {
    Series s = look.series(cv.config);
    for (const auto& p : cv.points) {
      s.points.emplace_back(p.x, p.y);
      s.tips.push_back(point_tip(d, look, walls, p));
      // The configuration's KV wall: its last point before the first point past it.
      const planner::ConfigKvWall* w = walls.wall(cv.config);
      if (w != nullptr && w->wall_index == p.index)
        c.add_ring(p.x, p.y,
                   "KV wall of " + s.name + ": " +
                       kv_wall_text(*w, axis, w->first_past_index ? walls.mark(*w->first_past_index) : nullptr),
                   "KV wall: the last point before it (ringed)");
    }
    // The recommended configuration's curve +/- its validation error: where the model's own error
    // leaves its figures.
    if (cv.config == look.banded && look.error && *look.error > 0.0) {
      Band b{"\u00b1" + fmt(100.0 * *look.error, "%.1f") + " % validation error of " + s.name, {}, {}, {}, s.color};
      for (const auto& p : cv.points) {
        b.x.push_back(p.x);
        b.lo.push_back(p.y * (1.0 - *look.error));
        b.hi.push_back(p.y * (1.0 + *look.error));
      }
      c.add_band(std::move(b));
    }
    c.add(std::move(s));
  }
  Series f{"Pareto frontier", {}, true, false, true, "#000000", {}};
  for (const auto& p : pareto_frontier(pts)) f.points.emplace_back(p.x, p.y);
  if (!f.points.empty()) c.add(std::move(f));
  if (d.context.target_interactivity)
    c.add_vertical_marker(*d.context.target_interactivity,
                          "target " + fmt(*d.context.target_interactivity) + " tok/s/user");
  return c.svg();
}

// How far to trust a configuration's figures: its own GPU-with-engine validation cases
// (own_validation_text).
std::string validation_clause(const planner::ReportData& d, const std::string& config) {
  return own_validation_text(d, config);
}

// The first line of the report: what to buy, by how much, and how far to trust it; a
// recommendation past its configuration's KV wall says so in the line itself.
std::string verdict_headline(const planner::ReportData& d, const planner::Recommendation& rec, const Look& look) {
  if (!rec.found) return "No configuration can be recommended from this run.";
  const std::string best = look.name(rec.config);
  const std::string money = planner::plain_number(rec.tokens_per_dollar / 1e6, 3) + " M tokens/$, $" +
                            planner::plain_number(1e6 / rec.tokens_per_dollar, 3) + "/M tokens";
  const std::string trust = validation_clause(d, rec.config) + ".";
  std::string better;  // configurations that read more only past their wall
  for (const auto& c : rec.past_wall_better) better += (better.empty() ? "" : ", ") + look.name(c);
  const std::string better_clause =
      better.empty()
          ? ""
          : " (" + better + (rec.past_wall_better.size() > 1 ? " read" : " reads") + " more only past the KV wall)";
  if (!rec.point_index) {
    const std::string at = planner::plain_number(rec.interactivity, 4) + " tok/s/user";
    const std::string past =
        rec.past_wall ? " only past its KV wall (no configuration reaches " + at + " within its wall)" : "";
    if (!rec.tied.empty()) {
      std::string others;
      for (const auto& c : rec.tied) others += (others.empty() ? "" : ", ") + look.name(c);
      return "A tie at " + at + (rec.past_wall ? ", all past their KV walls" : "") + ": " + best + " leads " + others +
             " by " + planner::plain_number(100.0 * rec.margin.value_or(0.0), 2) + " %, inside the \u00b1" +
             planner::plain_number(100.0 * rec.error_bound.value_or(0.0), 3) + " % validation error (" + best + ": " +
             money + ")" + better_clause + ".";
    }
    if (rec.margin && !rec.runner_up.empty())
      return "Run " + best + past + ": " + fmt(1.0 + *rec.margin, "%.2f") + "x the tokens per dollar of " +
             look.name(rec.runner_up) + " at " + at + " (" + money + ")" + better_clause + "; " + trust;
    return "Run " + best + past + ": the only configuration compared at " + at +
           (rec.past_wall || better.empty() ? "" : " within its KV wall") + " (" + money + ")" + better_clause + "; " +
           trust;
  }
  for (const auto& p : d.points) {
    if (p.index != *rec.point_index) continue;
    if (rec.past_wall)
      return "Run " + best + " at " + d.context.curve_axis + " " + fmt(p.concurrency) +
             " only past its KV wall: no point meeting the SLO lies within a wall, and this one gives the most tokens "
             "per dollar (" +
             money + " at " + planner::plain_number(rec.interactivity, 4) + " tok/s/user); " + trust;
    const planner::KvWallAnalysis walls = kv_walls(d);
    const bool any_past =
        std::any_of(walls.marks.begin(), walls.marks.end(), [](const planner::KvWallMark& m) { return m.past_wall; });
    return "Run " + best + " at " + d.context.curve_axis + " " + fmt(p.concurrency) +
           ": the most tokens per dollar among the points meeting the SLO" + (any_past ? " within their KV wall" : "") +
           " (" + money + " at " + planner::plain_number(rec.interactivity, 4) + " tok/s/user)" + better_clause + "; " +
           trust;
  }
  return "Run " + best + (rec.past_wall ? " only past its KV wall" : "") + " (" + money + "); " + trust;
}

// What the run actually was: the scenario, its overrides, the tool and the inputs it resolved.
std::vector<std::pair<std::string, std::string>> as_run_facts(const planner::ReportData& d) {
  const auto& c = d.context;
  std::string overrides;
  for (const auto& o : c.overrides) overrides += (overrides.empty() ? "" : ", ") + o;
  std::string presets;
  for (const auto& p : c.presets) presets += (presets.empty() ? "" : ", ") + p;
  double lo = INFINITY, hi = 0.0;
  for (const auto& p : d.points)
    if (p.status == planner::PointStatus::ok && std::isfinite(p.usd_per_gpu_hour)) {
      lo = std::min(lo, p.usd_per_gpu_hour);
      hi = std::max(hi, p.usd_per_gpu_hour);
    }
  std::string prices = c.price_tier.empty() ? "price tier not recorded" : c.price_tier + " price tier";
  if (hi > 0.0)
    prices += ", $" + planner::plain_number(lo, 3) + (hi > lo ? "\u2013" + planner::plain_number(hi, 3) : "") +
              " per GPU-hour all-in";
  std::string validation;
  for (const auto& [g, e] : c.validation.by_gpu)
    validation += (validation.empty() ? "" : ", ") + planner::gpu_display_name(g) + " " + fmt(100.0 * e, "%.1f") + " %";
  if (c.validation.serving_throughput)
    validation += (validation.empty() ? "" : "; ") + std::string("serving throughput overall ") +
                  fmt(100.0 * *c.validation.serving_throughput, "%.1f") + " %";
  return {{"Scenario", c.scenario.empty() ? "not recorded" : c.scenario},
          {"Overrides", overrides.empty() ? "none" : overrides},
          {"Tool", c.tool.empty() ? "engramsim " + engramsim_version() : c.tool},
          {"Model", or_unknown(c.model_card)},
          {"Hardware (catalog presets)", presets.empty() ? "not recorded" : presets},
          {"Prices", prices},
          {"Calibration", calibration_text(d)},
          {"Validation MAPE", validation.empty() ? "not recorded" : validation}};
}

// The scenario's title, marked when the command line changed the scenario it describes.
std::string title_as_run(const planner::ReportContext& c) {
  if (c.overrides.empty()) return c.title;
  std::string o;
  for (const auto& x : c.overrides) o += (o.empty() ? "" : ", ") + x;
  return c.title + " (as run with " + o + ")";
}

// The report's only script: the linear/log toggle of the interactivity charts, and a layout
// self-check written to <body data-checks> after load (horizontal overflow of the page and of each
// table, series colours repeated within a chart, legends reaching past their chart, target markers
// drawn; and for the print layout: the smallest text shown, in CSS px as drawn (SVG text scaled
// with its chart), tables and charts reaching past the page width, buttons and CSV links shown),
// which the headless-Chromium test reads.
const char* kScript = R"JS(
function axis(b,m){var f=b.closest('figure');f.querySelector('.lin').style.display=m==='lin'?'':'none';
f.querySelector('.log').style.display=m==='log'?'':'none';}
window.addEventListener('load',function(){var r={},e=document.documentElement,w=0,rep=[],cut=[];
r.page_overflow=e.scrollWidth-e.clientWidth;
document.querySelectorAll('.table-wrap').forEach(function(t){w=Math.max(w,t.scrollWidth-t.clientWidth);});
r.table_overflow=w;
document.querySelectorAll('svg.chart').forEach(function(svg){var seen={},id=svg.getAttribute('data-chart');
svg.querySelectorAll('g.series').forEach(function(g){var c=g.getAttribute('data-color');if(!c||c==='#000000')return;
if(seen[c])rep.push(id+' '+c);seen[c]=1;});
var l=svg.querySelector('g.legend'),v=svg.viewBox.baseVal;if(!l)return;var b=l.getBBox();
if(b.width>0&&(b.x+b.width>v.width+0.5||b.y+b.height>v.height+0.5))cut.push(id);});
r.repeated_colours=rep;r.legend_cut=cut;r.target_markers=document.querySelectorAll('.lin .target-marker').length;
print_checks(r);document.body.setAttribute('data-checks',JSON.stringify(r));});
function shown(el){return el.getClientRects().length>0;}
function own_text(el){for(var n=el.firstChild;n;n=n.nextSibling)if(n.nodeType===3&&n.textContent.trim())return true;
return false;}
function drawn_px(el){var px=parseFloat(getComputedStyle(el).fontSize),svg=el.closest('svg');if(!svg)return px;
var v=svg.viewBox.baseVal,w=svg.getBoundingClientRect().width;return v&&v.width>0&&w>0?px*w/v.width:px;}
function print_checks(r){var min=1e9,at='',wide=[],ui=0,cw=document.documentElement.clientWidth;
document.querySelectorAll('body *').forEach(function(el){if(/^(SCRIPT|STYLE|title)$/.test(el.tagName))return;
if(!own_text(el)||!shown(el))return;var px=drawn_px(el);if(px<min){min=px;
at=el.tagName.toLowerCase()+' '+el.textContent.trim().slice(0,40);}});
document.querySelectorAll('table,svg.chart').forEach(function(el){if(!shown(el))return;var b=el.getBoundingClientRect();
if(b.left<-0.5||b.right>cw+0.5)wide.push((el.id||el.getAttribute('data-chart'))+' '+Math.round(b.width)+'px');});
document.querySelectorAll('button,a.csv').forEach(function(el){if(shown(el))ui++;});
r.min_text_px=min;r.min_text_at=at;r.too_wide=wide;r.interactive_shown=ui;
r.charts_shown=Array.prototype.filter.call(document.querySelectorAll('svg.chart'),shown).length;}
)JS";

}  // namespace

std::vector<Chart> report_charts(const planner::ReportData& d) {
  std::vector<Chart> charts;
  const Look look = look_of(d, recommend(d));
  const std::string key =
      "Colour: the GPU (shades of one hue per GPU, each configuration its own); line dash: the "
      "parallel layout; marker: the Engram tier (HBM circle, DRAM square, SSD triangle).";
  const std::string band = look.error ? " The shaded band is the recommended configuration's curve \u00b1 its "
                                        "validation error (the MAPE of the validation cases on its GPU and engine)."
                                      : "";
  {
    const auto pts = throughput_points(d);
    charts.push_back(
        {"pareto", "Throughput per GPU vs interactivity",
         "Each line is one configuration as concurrency grows (right to left: more users, slower "
         "each). The dashed line is the upper-right Pareto frontier across configurations; the dotted "
         "vertical line is the target interactivity; a black ring marks a configuration's KV wall, its last point "
         "before the load where preemptions, prefix loss or a throughput fold set in (past it to the left). Hover a "
         "point for its figures; switch the x axis to log "
         "to spread the low-interactivity end. " +
             key + band,
         interactivity_chart(d, look, "pareto", "Throughput per GPU vs interactivity",
                             "Throughput per GPU (tok/s/GPU, input + output)", pts, false),
         interactivity_chart(d, look, "pareto", "Throughput per GPU vs interactivity",
                             "Throughput per GPU (tok/s/GPU, input + output)", pts, true)});
  }
  {
    const auto pts = tokens_per_dollar_points(d);
    std::string tier = d.context.price_tier.empty() ? "" : " at the " + d.context.price_tier + " price tier";
    charts.push_back({"tokens_per_dollar", "Tokens per dollar vs interactivity",
                      "tokens/$ = tok/s/GPU x 3600 / ($/GPU-hour, all-in incl. amortised Engram DRAM/SSD)" + tier +
                          ". A black ring marks a configuration's KV wall. " + key + band,
                      interactivity_chart(d, look, "tokens_per_dollar", "Tokens per dollar vs interactivity",
                                          "Tokens per dollar (tok/$)", pts, false),
                      interactivity_chart(d, look, "tokens_per_dollar", "Tokens per dollar vs interactivity",
                                          "Tokens per dollar (tok/$)", pts, true)});
  }
  {
    StackedBarChart c("hbm_footprint", "HBM footprint per GPU", "HBM per GPU (GiB)");
    for (const auto& [config, pts] : ok_points_by_config(d)) {
      for (const auto* p : pts) {
        if (p->metrics.hbm_footprint.empty()) continue;
        std::vector<BarSegment> segs;
        for (const auto& t : p->metrics.hbm_footprint) segs.push_back({t.term, t.gib});
        c.add_bar(look.name(config), std::move(segs));
        break;
      }
    }
    charts.push_back({"hbm_footprint", "HBM footprint per GPU",
                      "Per-GPU HBM by term for each configuration; the KV pool is what remains at the memory "
                      "utilisation target.",
                      c.svg()});
  }
  charts.push_back(latency_cdf(d, look, "ttft_cdf", "TTFT", true));
  charts.push_back(latency_cdf(d, look, "tpot_cdf", "TPOT", false));
  {
    std::vector<double> xs;
    for (const auto& p : d.points)
      if (p.status == planner::PointStatus::ok) xs.push_back(p.concurrency);
    XYChart c("engram_stall", "Engram stall share vs concurrency",
              AxisSpec{d.context.curve_axis, wide_positive(xs, 8.0), std::nullopt, std::nullopt},
              AxisSpec{"Exposed Engram stall (% of step time)", false, 0.0, std::nullopt});
    for (const auto& [config, pts] : ok_points_by_config(d)) {
      Series s = look.series(config);
      for (const auto* p : pts) s.points.emplace_back(p->concurrency, 100.0 * p->metrics.engram_stall_share);
      c.add(std::move(s));
    }
    charts.push_back({"engram_stall", "Engram stall share vs concurrency",
                      "Share of step time spent waiting for Engram rows that the compute of the preceding layers "
                      "did not hide (0 for the HBM tier).",
                      c.svg()});
  }
  return charts;
}

namespace {

using NameFn = std::function<std::string(const std::string&)>;

// One row per point: its configuration, status and every headline metric.
planner::Table points_table(const planner::ReportData& d, const NameFn& name) {
  planner::Table t{"points",
                   "Every point",
                   {"index",
                    "id",
                    "configuration",
                    d.context.curve_axis,
                    "status",
                    "interactivity (tok/s/user)",
                    "throughput (tok/s/GPU)",
                    "output (tok/s/GPU)",
                    "$/GPU-hour",
                    "$/M tokens",
                    "M tokens/$",
                    "M tok/s per all-in MW",
                    "J/token",
                    "TTFT p50 (ms)",
                    "TTFT p99 (ms)",
                    "TPOT p50 (ms)",
                    "TPOT p99 (ms)",
                    "queue p50 (ms)",
                    "KV use mean (%)",
                    "KV use peak (%)",
                    "preemptions",
                    "recomputed tokens (preemption)",
                    "recomputed prefix tokens (evicted)",
                    "recompute share (%)",
                    "prefix hit rate",
                    "ideal prefix hit rate",
                    "KV evictions",
                    "past KV wall",
                    "Engram stall (%)",
                    "engram tier",
                    "reason"},
                   {}};
  const planner::KvWallAnalysis walls = kv_walls(d);
  for (const auto& p : d.points) {
    const auto& m = p.metrics;
    const bool ok = p.status == planner::PointStatus::ok;
    const auto x = [&](const char* key) {
      const auto it = m.extra.find(key);
      return ok && it != m.extra.end() && it->is_number() ? it->get<double>() : NAN;
    };
    double queue_p50 = NAN;
    if (const auto it = m.extra.find("queue_ms"); ok && it != m.extra.end() && it->is_object())
      if (const auto q = it->find("p50"); q != it->end() && q->is_number()) queue_p50 = q->get<double>();
    const planner::KvWallMark* wm = walls.mark(p.index);
    std::string past;
    if (ok && wm != nullptr)
      past = !wm->past_wall ? "no" : wm->causes ? "yes: " + planner::kv_wall_causes_text(wm->causes) : "yes";
    // Cost cells are plain numbers: the unit is in the column title (CSV and JSON read them as numbers).
    t.rows.push_back({std::to_string(p.index),
                      p.id,
                      name(p.config),
                      fmt(p.concurrency),
                      status_name(p.status),
                      ok ? fmt(m.interactivity) : "",
                      ok ? fmt(m.throughput_per_gpu) : "",
                      ok ? fmt(m.output_throughput_per_gpu) : "",
                      ok ? fmt(p.usd_per_gpu_hour) : "",
                      ok ? fmt(cost_metrics_of(m).usd_per_m_total_tokens, "%.3g") : "",
                      ok ? fmt(cost_metrics_of(m).m_tokens_per_usd, "%.3g") : "",
                      ok ? fmt(cost_metrics_of(m).tokens_per_s_per_mw / 1e6, "%.3g") : "",
                      ok ? fmt(cost_metrics_of(m).joules_per_token, "%.3g") : "",
                      ok ? fmt(m.ttft_ms.p50) : "",
                      ok ? fmt(m.ttft_ms.p99) : "",
                      ok ? fmt(m.tpot_ms.p50) : "",
                      ok ? fmt(m.tpot_ms.p99) : "",
                      fmt(queue_p50),
                      fmt(100.0 * x("mean_kv_usage"), "%.3g"),
                      fmt(100.0 * x("peak_kv_usage"), "%.3g"),
                      fmt(x("preemptions"), "%.0f"),
                      fmt(x("recomputed_tokens"), "%.0f"),
                      fmt(x("recomputed_prefix_tokens"), "%.0f"),
                      wm ? fmt(100.0 * wm->recompute_share, "%.3g") : "",
                      fmt(x("prefix_cache_hit_rate"), "%.3f"),
                      fmt(x("ideal_prefix_hit_rate"), "%.3f"),
                      fmt(x("kv_evictions"), "%.0f"),
                      past,
                      ok ? fmt(100.0 * m.engram_stall_share, "%.3g") : "",
                      m.engram_tier,
                      p.reason});
  }
  return t;
}

// The two Pareto frontiers: throughput per GPU, and tokens per dollar (written as M tokens/$ and
// $/M tokens: they run to tens of millions).
void add_frontier_tables(const planner::ReportData& d, const NameFn& name, std::vector<planner::Table>& ts) {
  const planner::KvWallAnalysis walls = kv_walls(d);
  const auto past = [&](const planner::CurvePoint& p) { return walls.past_wall(p.index) ? "yes" : "no"; };
  ts.push_back(planner::Table{"frontier_throughput",
                              "Pareto frontier: throughput per GPU",
                              {"interactivity (tok/s/user)", "throughput (tok/s/GPU)", "configuration",
                               d.context.curve_axis, "index", "past KV wall"},
                              {}});
  for (const auto& p : pareto_frontier(throughput_points(d)))
    ts.back().rows.push_back(
        {fmt(p.x), fmt(p.y), name(p.config), fmt(p.concurrency), std::to_string(p.index), past(p)});
  ts.push_back(planner::Table{"frontier_tokens_per_dollar",
                              "Pareto frontier: tokens per dollar",
                              {"interactivity (tok/s/user)", "M tokens/$", "$/M tokens", "configuration",
                               d.context.curve_axis, "index", "past KV wall"},
                              {}});
  for (const auto& p : pareto_frontier(tokens_per_dollar_points(d)))
    ts.back().rows.push_back({fmt(p.x), fmt(p.y / 1e6, "%.4g"), fmt(1e6 / p.y, "%.4g"), name(p.config),
                              fmt(p.concurrency), std::to_string(p.index), past(p)});
}

// Each configuration's KV wall: its load, the first load past it and why (docs/planning.md).
planner::Table kv_walls_table(const planner::ReportData& d, const NameFn& name) {
  const std::string axis = d.context.curve_axis;
  planner::Table t{"kv_walls",
                   "KV wall per configuration (the last point before the first point past it)",
                   {"configuration", "KV wall (" + axis + ")", "past it from (" + axis + ")", "why"},
                   {}};
  const planner::KvWallAnalysis walls = kv_walls(d);
  for (const auto& w : walls.walls) {
    const planner::KvWallMark* first = w.first_past_index ? walls.mark(*w.first_past_index) : nullptr;
    const std::string why = w.reached() ? kv_wall_why(w, first) : "not reached in the swept range";
    t.rows.push_back({name(w.config), w.wall_index ? fmt(w.wall_load) : (w.reached() ? "below the swept range" : "-"),
                      w.reached() ? fmt(w.first_past_load) : "-", why});
  }
  return t;
}

// The configurations side by side at the target interactivity (Steffen interpolation).
planner::Table comparison_table(const planner::ReportData& d, const NameFn& name, double target) {
  planner::Table t{"comparison",
                   "Configurations at " + fmt(target) + " tok/s/user (Steffen interpolation)",
                   {"configuration", "throughput (tok/s/GPU)", "M tokens/$", "$/M tokens", "relative to best",
                    "past KV wall", "sweep label"},
                   {}};
  for (const auto& c : compare_at(d, target)) {
    const bool tpd = c.tokens_per_dollar && *c.tokens_per_dollar > 0.0;
    t.rows.push_back({name(c.config), c.throughput_per_gpu ? fmt(*c.throughput_per_gpu) : "out of range",
                      tpd ? fmt(*c.tokens_per_dollar / 1e6, "%.4g") : "out of range",
                      tpd ? fmt(1e6 / *c.tokens_per_dollar, "%.4g") : "",
                      c.ratio_to_best ? fmt(*c.ratio_to_best, "%.3f") : "",
                      c.past_wall ? "yes" : (c.tokens_per_dollar || c.throughput_per_gpu ? "no" : ""), c.config});
  }
  return t;
}

// One row per configuration (its first point with a footprint): HBM per GPU by term and in total.
planner::Table footprint_table(const planner::ReportData& d, const NameFn& name) {
  std::vector<std::string> terms;
  for (const auto& p : d.points)
    for (const auto& f : p.metrics.hbm_footprint)
      if (std::find(terms.begin(), terms.end(), f.term) == terms.end()) terms.push_back(f.term);
  planner::Table t{"footprint", "HBM footprint per GPU (GiB)", {"configuration"}, {}};
  for (const auto& term : terms) t.columns.push_back(term);
  t.columns.push_back("total");
  for (const auto& [config, pts] : ok_points_by_config(d)) {
    for (const auto* p : pts) {
      if (p->metrics.hbm_footprint.empty()) continue;
      std::vector<std::string> row{name(config)};
      double total = 0.0;
      for (const auto& term : terms) {
        std::string cell;
        for (const auto& f : p->metrics.hbm_footprint)
          if (f.term == term) {
            cell = fmt(f.gib, "%.4g");
            if (std::isfinite(f.gib)) total += f.gib;
          }
        row.push_back(cell);
      }
      row.push_back(fmt(total, "%.4g"));
      t.rows.push_back(std::move(row));
      break;
    }
  }
  return t;
}

}  // namespace

std::vector<planner::Table> report_tables(const planner::ReportData& d) {
  std::vector<planner::Table> ts;
  const auto names = display_names(d);
  const NameFn name = [&](const std::string& config) {
    const auto it = names.find(config);
    return it == names.end() ? config : it->second;
  };
  ts.push_back(points_table(d, name));
  add_frontier_tables(d, name, ts);
  ts.push_back(kv_walls_table(d, name));
  if (d.context.target_interactivity) ts.push_back(comparison_table(d, name, *d.context.target_interactivity));
  ts.push_back(footprint_table(d, name));
  planner::Table assumptions{
      "assumptions", "Figures and where they come from", {"figure", "value", "kind", "source"}, {}};
  for (const auto& a : d.context.assumptions) assumptions.rows.push_back({a.figure, a.value, a.kind, a.source});
  ts.push_back(std::move(assumptions));
  // Tables written by others (fleet plans, host memory) name configurations by their labels too.
  for (planner::Table x : d.context.extra_tables) {
    for (auto& r : x.rows)
      for (auto& cell : r) cell = with_display_names(cell, names);
    ts.push_back(std::move(x));
  }
  return ts;
}

std::string table_to_csv(const planner::Table& t) {
  std::string out;
  auto row = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out += ',';
      out += csv_cell(cells[i]);
    }
    out += '\n';
  };
  row(t.columns);
  for (const auto& r : t.rows) row(r);
  return out;
}

std::string json_key(const std::string& title) {
  std::string words;
  for (const char c : title) {
    if (c == '/')
      words += " per ";
    else if (c == '$')
      words += " usd ";
    else if (c == '%')
      words += " pct ";
    else
      words += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : ' ';
  }
  std::string key;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == ' ') continue;
    if (!key.empty() && words[i - 1] == ' ') key += '_';
    key += words[i];
  }
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0]))) key = "c_" + key;
  return key;
}

nlohmann::json table_to_json(const planner::Table& t) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : t.rows) {
    nlohmann::json o = nlohmann::json::object();
    for (std::size_t i = 0; i < t.columns.size() && i < r.size(); ++i) o[json_key(t.columns[i])] = json_cell(r[i]);
    rows.push_back(std::move(o));
  }
  return rows;
}

namespace {

// The first screen: the title as run, the answer in one sentence and its reasoning, then the
// question as it was run and the run's inputs.
void html_first_screen(std::ostringstream& o, const planner::ReportData& d, const planner::Recommendation& rec,
                       const Look& look) {
  const auto& ctx = d.context;
  o << "<header><h1 id=\"title\">" << html_escape(ctx.title);
  if (!ctx.overrides.empty())
    o << " <span class=\"as-run-title\">" << html_escape(title_as_run(ctx).substr(ctx.title.size() + 1)) << "</span>";
  o << "</h1><p class=\"meta\">" << html_escape(ctx.tool.empty() ? "engramsim " + engramsim_version() : ctx.tool)
    << (ctx.scenario.empty() ? "" : " &middot; scenario " + html_escape(ctx.scenario)) << " &middot; "
    << html_escape(points_summary(d)) << "</p></header>\n";
  o << "<div class=\"verdict\" id=\"verdict\"><p class=\"headline\" id=\"verdict-headline\">"
    << html_escape(verdict_headline(d, rec, look)) << "</p><p class=\"reasoning\">"
    << html_escape(with_display_names(rec.text, look.names)) << "</p></div>\n";
  o << "<section id=\"question\"><h2>Question</h2><p class=\"question\">"
    << html_escape(ctx.question.empty() ? "No question was recorded with this sweep." : ctx.question) << "</p>";
  if (!ctx.overrides.empty()) {
    o << "<p class=\"overrides\" id=\"overrides\">Run with overrides of the scenario file (its title and question "
         "above "
         "are as written there; the figures are the run's): ";
    for (std::size_t i = 0; i < ctx.overrides.size(); ++i)
      o << (i ? ", " : "") << "<code>" << html_escape(ctx.overrides[i]) << "</code>";
    o << ".</p>";
  }
  o << "<p>SLO: " << html_escape(slo_text(ctx.slo))
    << (ctx.target_interactivity ? "; compared at " + html_escape(fmt(*ctx.target_interactivity)) + " tok/s/user" : "")
    << ".</p><table class=\"facts\" id=\"as-run\"><tbody>";
  for (const auto& [k, v] : as_run_facts(d))
    o << "<tr><th>" << html_escape(k) << "</th><td>" << html_escape(v) << "</td></tr>";
  o << "</tbody></table></section>\n";
}

}  // namespace

namespace {

// The recommendation: the comparison at the target, what could not be compared, notes, the
// context's extra tables (they close report_tables' list, with configuration names made human).
void html_recommendation(std::ostringstream& o, const planner::ReportData& d, const std::vector<planner::Table>& tables,
                         const planner::Recommendation& rec, const Look& look) {
  o << "<section id=\"recommendation\"><h2>Recommendation</h2>";
  if (const planner::Table* t = find_table(tables, "comparison"))
    o << "<h3>" << html_escape(t->title) << "</h3>" << html_table(*t);
  if (!rec.out_of_range.empty()) {
    o << "<h3>Not compared at the target</h3><ul id=\"out-of-range\">";
    for (const auto& r : rec.out_of_range)
      o << "<li>" << html_escape(look.name(r.config)) << ": " << html_escape(r.why) << "</li>";
    o << "</ul>";
  }
  for (const auto& n : d.context.notes) o << "<p>" << html_escape(with_display_names(n, look.names)) << "</p>";
  for (std::size_t i = tables.size() - d.context.extra_tables.size(); i < tables.size(); ++i)
    o << "<h3>" << html_escape(tables[i].title) << "</h3>" << html_table(tables[i]);
  o << "</section>\n";
}

// The chart `id` as a figure (with a linear/log toggle where it has a log version).
void html_figure(std::ostringstream& o, const std::vector<Chart>& charts, const std::string& id) {
  for (const auto& c : charts) {
    if (c.id != id) continue;
    o << "<figure id=\"chart-" << c.id << "\">";
    if (!c.svg_log.empty())
      o << "<div class=\"axis-toggle\">Interactivity axis: <button type=\"button\" "
           "onclick=\"axis(this,'lin')\">linear</button>"
           "<button type=\"button\" onclick=\"axis(this,'log')\">log</button></div><div class=\"lin\">"
        << c.svg << "</div><div class=\"log\" style=\"display:none\">" << c.svg_log << "</div>";
    else
      o << c.svg;
    o << "<figcaption>" << html_escape(c.caption) << "</figcaption></figure>\n";
  }
}

// The chart sections: frontiers, footprint, latency, Engram stall and every point.
void html_chart_sections(std::ostringstream& o, const planner::ReportData& d, const std::vector<Chart>& charts,
                         const std::vector<planner::Table>& tables) {
  o << "<section id=\"pareto\"><h2>Throughput per GPU vs interactivity</h2>";
  html_figure(o, charts, "pareto");
  if (const planner::Table* t = find_table(tables, "frontier_throughput"))
    o << "<h3>" << html_escape(t->title) << "</h3>" << html_table(*t);
  if (const planner::Table* t = find_table(tables, "kv_walls"))
    o << "<h3 id=\"kv-walls\">" << html_escape(t->title) << "</h3>" << html_table(*t);
  o << "</section>\n<section id=\"tokens-per-dollar\"><h2>Tokens per dollar</h2>";
  html_figure(o, charts, "tokens_per_dollar");
  if (const planner::Table* t = find_table(tables, "frontier_tokens_per_dollar"))
    o << "<h3>" << html_escape(t->title) << "</h3>" << html_table(*t);
  o << "</section>\n<section id=\"footprint\"><h2>HBM footprint</h2>";
  html_figure(o, charts, "hbm_footprint");
  if (const planner::Table* t = find_table(tables, "footprint")) o << html_table(*t);
  o << "</section>\n<section id=\"latency\"><h2>Latency distributions</h2>";
  html_figure(o, charts, "ttft_cdf");
  html_figure(o, charts, "tpot_cdf");
  o << "</section>\n<section id=\"engram-stall\"><h2>Engram stall share</h2>";
  html_figure(o, charts, "engram_stall");
  o << "</section>\n<section id=\"points\"><h2>Every point</h2><p>" << html_escape(points_summary(d)) << ".</p>";
  if (const planner::Table* t = find_table(tables, "points")) o << html_table(*t, "data points");
  o << "</section>\n";
}

// The assumptions: the inputs named, then every figure with its kind and source.
void html_assumptions(std::ostringstream& o, const planner::ReportData& d, const std::vector<planner::Table>& tables) {
  const auto& ctx = d.context;
  std::string presets;
  for (const auto& p : ctx.presets) presets += (presets.empty() ? "" : ", ") + p;
  o << "<section id=\"assumptions\"><h2>Assumptions</h2><ul>"
    << "<li>Model card: " << html_escape(or_unknown(ctx.model_card)) << "</li>"
    << "<li>Hardware presets: " << html_escape(ctx.presets.empty() ? "not recorded" : presets) << "</li>"
    << "<li>Calibration profile: " << html_escape(calibration_text(d))
    << "</li><li>Price tier: " << html_escape(or_unknown(ctx.price_tier)) << "</li>"
    << "<li>Curve axis: " << html_escape(ctx.curve_axis) << "</li></ul>";
  const planner::Table* t = find_table(tables, "assumptions");
  if (t != nullptr && t->rows.empty()) o << "<p>No per-figure provenance was recorded with this sweep.</p>";
  if (t != nullptr && !t->rows.empty()) {
    o << "<div class=\"table-tools\"><a class=\"csv\" download=\"assumptions.csv\" href=\"data:text/csv;charset=utf-8,"
      << uri_escape(table_to_csv(*t)) << "\">CSV</a></div>";
    o << print_stand_in(*t) << "<div class=\"" << table_wrap_class(*t)
      << "\"><table class=\"data\" id=\"table-assumptions\"><thead><tr>";
    for (const auto& c : t->columns) o << "<th>" << html_escape(c) << "</th>";
    o << "</tr></thead><tbody>";
    for (const auto& r : t->rows) {
      o << "<tr><td>" << html_escape(r[0]) << "</td><td>" << html_escape(r[1]) << "</td><td class=\"kind-"
        << html_escape(r[2]) << "\">" << html_escape(r[2]) << "</td><td>" << html_escape(r[3]) << "</td></tr>";
    }
    o << "</tbody></table></div>";
  }
  o << "<p class=\"meta\">Tables as CSV and JSON: tables/; charts as SVG: charts/.</p></section>\n";
}

}  // namespace

std::string render_html(const planner::ReportData& d) {
  const auto charts = report_charts(d);
  const auto tables = report_tables(d);
  const auto rec = recommend(d);
  const Look look = look_of(d, rec);
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
    << "<title>" << html_escape(title_as_run(d.context)) << "</title><style>" << kCss << kPrintCss
    << "</style></head><body>\n";
  html_first_screen(o, d, rec, look);
  html_recommendation(o, d, tables, rec, look);
  html_chart_sections(o, d, charts, tables);
  html_assumptions(o, d, tables);
  o << "<script>" << kScript << "</script>\n</body></html>\n";
  return o.str();
}

std::string render_markdown(const planner::ReportData& d) {
  const auto charts = report_charts(d);
  const auto tables = report_tables(d);
  const auto rec = recommend(d);
  const Look look = look_of(d, rec);
  const auto& ctx = d.context;
  std::ostringstream o;
  o << "# " << title_as_run(ctx) << "\n\n";
  o << "engramsim " << engramsim_version() << (ctx.scenario.empty() ? "" : ", scenario `" + ctx.scenario + "`") << "; "
    << points_summary(d) << ".\n\n";
  o << "**" << verdict_headline(d, rec, look) << "**\n\n";
  o << "## Question\n\n"
    << (ctx.question.empty() ? "No question was recorded with this sweep." : ctx.question)
    << "\n\nSLO: " << slo_text(ctx.slo)
    << (ctx.target_interactivity ? "; compared at " + fmt(*ctx.target_interactivity) + " tok/s/user" : "") << ".\n\n";
  planner::Table facts{"as_run", "As run", {"", ""}, {}};
  for (const auto& [k, v] : as_run_facts(d)) facts.rows.push_back({k, v});
  o << md_table(facts) << "\n";
  o << "## Recommendation\n\n" << with_display_names(rec.text, look.names) << "\n\n";
  if (const planner::Table* t = find_table(tables, "comparison"))
    o << "### " << t->title << "\n\n" << md_table(*t) << "\n";
  for (const auto& n : ctx.notes) o << with_display_names(n, look.names) << "\n\n";
  for (std::size_t i = tables.size() - ctx.extra_tables.size(); i < tables.size(); ++i)
    o << "### " << tables[i].title << "\n\n" << md_table(tables[i]) << "\n";
  for (const auto& c : charts) {
    o << "## " << c.title << "\n\n![" << c.title << "](charts/" << c.id << ".svg)\n\n" << c.caption << "\n\n";
    const std::string tname = c.id == "pareto"              ? "frontier_throughput"
                              : c.id == "tokens_per_dollar" ? "frontier_tokens_per_dollar"
                              : c.id == "hbm_footprint"     ? "footprint"
                                                            : "";
    if (const planner::Table* t = tname.empty() ? nullptr : find_table(tables, tname)) o << md_table(*t) << "\n";
    if (const planner::Table* t = c.id == "pareto" ? find_table(tables, "kv_walls") : nullptr)
      o << "### " << t->title << "\n\n" << md_table(*t) << "\n";
  }
  o << "## Every point\n\n";
  if (const planner::Table* t = find_table(tables, "points")) o << md_table(*t) << "\n";
  o << "## Assumptions\n\n- Model card: " << or_unknown(ctx.model_card) << "\n- Hardware presets: ";
  if (ctx.presets.empty()) o << "not recorded";
  for (std::size_t i = 0; i < ctx.presets.size(); ++i) o << (i ? ", " : "") << ctx.presets[i];
  o << "\n- Calibration profile: " << calibration_text(d) << "\n- Price tier: " << or_unknown(ctx.price_tier)
    << "\n- Curve axis: " << ctx.curve_axis << "\n\n";
  if (const planner::Table* t = find_table(tables, "assumptions"); t && !t->rows.empty()) o << md_table(*t) << "\n";
  return o.str();
}

std::vector<fs::path> write_report(const planner::ReportData& d, const fs::path& dir) {
  fs::create_directories(dir / "charts");
  fs::create_directories(dir / "tables");
  std::vector<fs::path> written;
  auto put = [&](const fs::path& p, const std::string& text) {
    planner::write_file_atomically(p, text);
    written.push_back(p);
  };
  put(dir / "report.html", render_html(d));
  put(dir / "report.md", render_markdown(d));
  for (const auto& c : report_charts(d)) put(dir / "charts" / (c.id + ".svg"), c.svg + "\n");
  for (const auto& t : report_tables(d)) {
    const std::string stem = table_file_stem(t.name);
    put(dir / "tables" / (stem + ".csv"), table_to_csv(t));
    put(dir / "tables" / (stem + ".json"), json_text(table_to_json(t)) + "\n");
  }
  return written;
}

std::vector<fs::path> remove_report(const fs::path& dir) {
  std::vector<fs::path> removed;
  for (const char* name : {"report.html", "report.md", "charts", "tables", "serve-command.sh"}) {
    const fs::path p = dir / name;
    if (fs::exists(p)) {
      fs::remove_all(p);
      removed.push_back(p);
    }
  }
  return removed;
}

}  // namespace engramsim::report
