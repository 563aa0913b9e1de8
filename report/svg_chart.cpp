#include "report/svg_chart.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

namespace engramsim::report {
namespace {

constexpr int kLeft = 78;
constexpr int kTop = 40;
constexpr int kBottom = 58;
constexpr int kLegendWidth = 250;
constexpr int kLegendRow = 15;
// Characters per legend line at 11 px in the 222 units kLegendWidth leaves for text. DejaVu Sans,
// what Chromium draws Helvetica and Arial with on a Linux machine without them, is wider than both:
// about 0.65 em a character in configuration names, so 31 of its characters fill the line and 30
// leave a margin (36 did for Helvetica and ran past the chart in DejaVu Sans).
constexpr std::size_t kLegendChars = 30;
const char* kFont = "font-family=\"Helvetica, Arial, sans-serif\"";

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

struct Scale {
  bool log = false;
  double lo = 0.0;
  double hi = 1.0;
  double p0 = 0.0;  // pixel of lo
  double p1 = 1.0;  // pixel of hi
  double operator()(double v) const {
    const double f = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return p0 + f * (p1 - p0);
  }
};

bool drawable(double v, bool log) { return std::isfinite(v) && (!log || v > 0.0); }

// Ticks and the domain they span for one axis over the data values.
std::vector<double> axis_ticks(const AxisSpec& a, std::vector<double> values, double& lo, double& hi) {
  values.erase(std::remove_if(values.begin(), values.end(), [&](double v) { return !drawable(v, a.log); }),
               values.end());
  if (values.empty()) values = a.log ? std::vector<double>{1.0, 10.0} : std::vector<double>{0.0, 1.0};
  lo = a.min.value_or(*std::min_element(values.begin(), values.end()));
  hi = a.max.value_or(*std::max_element(values.begin(), values.end()));
  if (a.log) {
    if (!(lo > 0.0)) lo = hi > 0.0 ? hi / 10.0 : 1.0;
    std::vector<double> t = log_ticks(lo, hi);
    lo = std::min(lo, t.front());
    hi = std::max(hi, t.back());
    lo = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
    hi = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
    if (!(hi > lo)) hi = lo * 10.0;
    return log_ticks(lo, hi);
  }
  // The domain snaps out to the outer ticks unless a bound is forced.
  std::vector<double> t = nice_ticks(lo, hi);
  lo = a.min.value_or(t.front());
  hi = a.max.value_or(t.back());
  if (!(hi > lo)) hi = lo + 1.0;
  std::vector<double> kept;
  for (double v : t)
    if (v >= lo - 1e-9 * std::abs(hi - lo) && v <= hi + 1e-9 * std::abs(hi - lo)) kept.push_back(v);
  return kept;
}

// A legend name in lines of at most kLegendChars, broken at spaces (a longer word is cut).
std::vector<std::string> legend_lines(const std::string& name) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream words(name);
  for (std::string w; words >> w;) {
    while (w.size() > kLegendChars) {
      if (!line.empty()) out.push_back(std::move(line)), line.clear();
      out.push_back(w.substr(0, kLegendChars));
      w = w.substr(kLegendChars);
    }
    if (!line.empty() && line.size() + 1 + w.size() > kLegendChars) out.push_back(std::move(line)), line.clear();
    line += (line.empty() ? "" : " ") + w;
  }
  if (!line.empty() || out.empty()) out.push_back(line);
  return out;
}

int legend_rows(const std::vector<std::string>& names) {
  int rows = 0;
  for (const auto& n : names) rows += static_cast<int>(legend_lines(n).size());
  return rows;
}

struct LegendEntry {
  std::string name;
  std::string color;
  std::string dash;                   // stroke-dasharray of the sample line; empty: solid
  std::optional<MarkerShape> marker;  // drawn on the sample line
  bool band = false;                  // a shaded swatch instead of a line
  bool ring = false;                  // a black ring alone (point annotations)
};

// One marker of the given shape centred at (x, y), opened: the caller closes it (</circle> etc.).
std::string marker_open(MarkerShape m, double x, double y, const std::string& color, const char* cls) {
  std::ostringstream o;
  const std::string c = std::string(" class=\"") + cls + "\" fill=\"" + color + "\"";
  switch (m) {
    case MarkerShape::circle:
      o << "<circle" << c << " cx=\"" << num(x) << "\" cy=\"" << num(y) << "\" r=\"4\">";
      break;
    case MarkerShape::square:
      o << "<rect" << c << " x=\"" << num(x - 3.6) << "\" y=\"" << num(y - 3.6) << "\" width=\"7.2\" height=\"7.2\">";
      break;
    case MarkerShape::triangle:
      o << "<polygon" << c << " points=\"" << num(x) << "," << num(y - 4.8) << " " << num(x - 4.6) << ","
        << num(y + 3.4) << " " << num(x + 4.6) << "," << num(y + 3.4) << "\">";
      break;
    case MarkerShape::diamond:
      o << "<polygon" << c << " points=\"" << num(x) << "," << num(y - 5) << " " << num(x + 5) << "," << num(y) << " "
        << num(x) << "," << num(y + 5) << " " << num(x - 5) << "," << num(y) << "\">";
      break;
  }
  return o.str();
}

const char* marker_close(MarkerShape m) {
  return m == MarkerShape::circle ? "</circle>" : m == MarkerShape::square ? "</rect>" : "</polygon>";
}

// A band as one polygon: along its upper edge, back along its lower one.
void draw_band(std::ostringstream& o, const Band& b, const Scale& sx, const Scale& sy) {
  std::string upper, lower;
  for (std::size_t i = 0; i < b.x.size() && i < b.lo.size() && i < b.hi.size(); ++i) {
    if (!drawable(b.x[i], sx.log) || !drawable(b.lo[i], sy.log) || !drawable(b.hi[i], sy.log)) continue;
    upper += num(sx(b.x[i])) + "," + num(sy(b.hi[i])) + " ";
    lower = num(sx(b.x[i])) + "," + num(sy(b.lo[i])) + " " + lower;
  }
  if (upper.empty()) return;
  o << "<polygon class=\"uncertainty-band\" data-band=\"" << xml_escape(b.name) << "\" points=\"" << upper << lower
    << "\" fill=\"" << b.color << "\" fill-opacity=\"0.18\" stroke=\"none\"><title>" << xml_escape(b.name)
    << "</title></polygon>";
}

// One series: its line and its markers, each marker with its hover tooltip.
void draw_series(std::ostringstream& o, const Series& s, const std::string& dash, const Scale& sx, const Scale& sy) {
  o << "<g class=\"series\" data-series=\"" << xml_escape(s.name) << "\" data-color=\"" << s.color << "\">";
  std::string pts;
  std::size_t n = 0;
  for (const auto& [x, y] : s.points) {
    if (!drawable(x, sx.log) || !drawable(y, sy.log)) continue;
    pts += num(sx(x)) + "," + num(sy(y)) + " ";
    ++n;
  }
  if (s.line && n >= 2) {
    pts.pop_back();
    o << "<polyline class=\"series-line\" points=\"" << pts << "\" fill=\"none\" stroke=\"" << s.color
      << "\" stroke-width=\"2\"" << (dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\"") << "/>";
  }
  if (s.markers || n == 1) {
    for (std::size_t k = 0; k < s.points.size(); ++k) {
      const auto [x, y] = s.points[k];
      if (!drawable(x, sx.log) || !drawable(y, sy.log)) continue;
      // The hover tooltip: the point's every figure when given, else its coordinates.
      o << marker_open(s.marker, sx(x), sy(y), s.color, "marker") << "<title>"
        << xml_escape(k < s.tips.size() ? s.tips[k] : s.name + ": " + format_tick(x) + ", " + format_tick(y))
        << "</title>" << marker_close(s.marker);
    }
  }
  o << "</g>";
}

// Every name whole, wrapped over as many rows as it needs (never cut), its full text as a tooltip;
// the sample shows the series' colour, dash and marker.
void legend(std::ostringstream& o, int x, int y, const std::vector<LegendEntry>& entries) {
  o << "<g class=\"legend\">";
  int row = 0;
  for (const auto& e : entries) {
    const int yy = y + row * kLegendRow;
    o << "<g class=\"legend-entry\"><title>" << xml_escape(e.name) << "</title>";
    if (e.ring) {
      o << "<circle cx=\"" << x + 11 << "\" cy=\"" << yy << "\" r=\"6\" fill=\"none\" stroke=\"#000\" "
        << "stroke-width=\"1.5\"/>";
    } else if (e.band) {
      o << "<rect x=\"" << x << "\" y=\"" << yy - 5 << "\" width=\"22\" height=\"10\" fill=\"" << e.color
        << "\" fill-opacity=\"0.22\"/>";
    } else {
      o << "<line x1=\"" << x << "\" y1=\"" << yy << "\" x2=\"" << x + 22 << "\" y2=\"" << yy << "\" stroke=\""
        << e.color << "\" stroke-width=\"2.5\"" << (e.dash.empty() ? "" : " stroke-dasharray=\"" + e.dash + "\"")
        << "/>";
      if (e.marker) o << marker_open(*e.marker, x + 11, yy, e.color, "legend-marker") << marker_close(*e.marker);
    }
    for (const auto& line : legend_lines(e.name)) {
      o << "<text x=\"" << x + 28 << "\" y=\"" << y + row * kLegendRow + 4 << "\" font-size=\"11\" " << kFont << ">"
        << xml_escape(line) << "</text>";
      ++row;
    }
    o << "</g>";
  }
  o << "</g>";
}

void svg_open(std::ostringstream& o, const std::string& id, const std::string& title, int w, int h) {
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"" << xml_escape(id) << "\" width=\"" << w
    << "\" height=\"" << h << "\" viewBox=\"0 0 " << w << " " << h << "\" role=\"img\" aria-label=\""
    << xml_escape(title) << "\">";
  o << "<title>" << xml_escape(title) << "</title>";
  o << "<rect x=\"0\" y=\"0\" width=\"" << w << "\" height=\"" << h << "\" fill=\"#ffffff\"/>";
  o << "<text x=\"" << w / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" font-weight=\"bold\" " << kFont
    << ">" << xml_escape(title) << "</text>";
}

// The x axis of an XY chart for draw_axes: its ticks, scale and label (drawn at baseline label_y).
struct XAxisDraw {
  const std::vector<double>& ticks;
  const Scale& sx;
  std::string label;
  int label_y;
};

// Grid, tick labels, both axes and their labels. Without `x` (a bar chart), only the value axis
// has ticks and a label.
void draw_axes(std::ostringstream& o, const XAxisDraw* x, const std::vector<double>& y_ticks, const Scale& sy,
               int plot_right, int plot_bottom, const std::string& y_label) {
  o << "<g class=\"grid\" stroke=\"#e3e3e3\" stroke-width=\"1\">";
  if (x != nullptr)
    for (double t : x->ticks)
      o << "<line x1=\"" << num(x->sx(t)) << "\" y1=\"" << kTop << "\" x2=\"" << num(x->sx(t)) << "\" y2=\""
        << plot_bottom << "\"/>";
  for (double t : y_ticks)
    o << "<line x1=\"" << kLeft << "\" y1=\"" << num(sy(t)) << "\" x2=\"" << plot_right << "\" y2=\"" << num(sy(t))
      << "\"/>";
  o << "</g><g class=\"ticks\" font-size=\"11\" fill=\"#333\" " << kFont << ">";
  if (x != nullptr)
    for (double t : x->ticks)
      o << "<text x=\"" << num(x->sx(t)) << "\" y=\"" << plot_bottom + 16 << "\" text-anchor=\"middle\">"
        << format_tick(t) << "</text>";
  for (double t : y_ticks)
    o << "<text x=\"" << kLeft - 6 << "\" y=\"" << num(sy(t) + 4) << "\" text-anchor=\"end\">" << format_tick(t)
      << "</text>";
  o << "</g>";
  o << "<g class=\"axes\" stroke=\"#333\" stroke-width=\"1\"><line x1=\"" << kLeft << "\" y1=\"" << plot_bottom
    << "\" x2=\"" << plot_right << "\" y2=\"" << plot_bottom << "\"/><line x1=\"" << kLeft << "\" y1=\"" << kTop
    << "\" x2=\"" << kLeft << "\" y2=\"" << plot_bottom << "\"/></g>";
  if (x != nullptr)
    o << "<text class=\"axis-label\" x=\"" << (kLeft + plot_right) / 2 << "\" y=\"" << x->label_y
      << "\" text-anchor=\"middle\" font-size=\"12\" " << kFont << ">" << xml_escape(x->label) << "</text>";
  const int ymid = (kTop + plot_bottom) / 2;
  o << "<text class=\"axis-label\" x=\"16\" y=\"" << ymid << "\" transform=\"rotate(-90 16 " << ymid
    << ")\" text-anchor=\"middle\" font-size=\"12\" " << kFont << ">" << xml_escape(y_label) << "</text>";
}

// "no data" in the middle of an empty plot.
void draw_no_data(std::ostringstream& o, int plot_right, int plot_bottom) {
  o << "<text class=\"no-data\" x=\"" << (kLeft + plot_right) / 2 << "\" y=\"" << (kTop + plot_bottom) / 2
    << "\" text-anchor=\"middle\" font-size=\"14\" fill=\"#999\" " << kFont << ">no data</text>";
}

}  // namespace

std::string hsl_color(double hue, double saturation, double lightness) {
  const double h = std::fmod(std::fmod(hue, 360.0) + 360.0, 360.0);
  const double c = (1.0 - std::abs(2.0 * lightness - 1.0)) * saturation;
  const double x = c * (1.0 - std::abs(std::fmod(h / 60.0, 2.0) - 1.0));
  const double m = lightness - c / 2.0;
  const int k = static_cast<int>(h / 60.0);
  const double r = k == 0 || k == 5 ? c : (k == 1 || k == 4 ? x : 0.0);
  const double g = k == 1 || k == 2 ? c : (k == 0 || k == 3 ? x : 0.0);
  const double b = k == 3 || k == 4 ? c : (k == 2 || k == 5 ? x : 0.0);
  const auto byte = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255)); };
  char buf[8];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", byte(r + m), byte(g + m), byte(b + m));
  return buf;
}

std::string palette_color(std::size_t i) {
  static const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                 "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
  constexpr std::size_t n = sizeof colors / sizeof colors[0];
  if (i < n) return colors[i];
  // Past the fixed ten: hues a golden angle apart, lightness in three bands, so no colour repeats.
  return hsl_color(static_cast<double>(i - n) * 137.508 + 20.0, 0.70, 0.32 + 0.14 * static_cast<double>((i - n) % 3));
}

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<double> nice_ticks(double lo, double hi, int max_ticks) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0.0, 1.0};
  if (hi < lo) std::swap(lo, hi);
  if (!(hi > lo)) {
    const double d = lo == 0.0 ? 1.0 : std::abs(lo) * 0.1;
    lo -= d;
    hi += d;
  }
  max_ticks = std::max(2, max_ticks);
  const double raw = (hi - lo) / max_ticks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double r = raw / mag;
  const double step = (r <= 1.0 ? 1.0 : r <= 2.0 ? 2.0 : r <= 5.0 ? 5.0 : 10.0) * mag;
  const double start = std::floor(lo / step + 1e-9);
  const double end = std::ceil(hi / step - 1e-9);
  std::vector<double> t;
  for (double k = start; k <= end + 0.5; k += 1.0) {
    double v = k * step;
    if (std::abs(v) < step * 1e-9) v = 0.0;
    t.push_back(v);
  }
  return t;
}

std::vector<double> log_ticks(double lo, double hi) {
  if (!(lo > 0.0) || !std::isfinite(lo) || !std::isfinite(hi)) return {1.0, 10.0};
  if (hi < lo) std::swap(lo, hi);
  int d0 = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int d1 = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (d1 <= d0) d1 = d0 + 1;
  const bool minor = d1 - d0 <= 2;
  std::vector<double> t;
  for (int d = d0; d <= d1; ++d) {
    const double base = std::pow(10.0, d);
    t.push_back(base);
    if (minor && d < d1) {
      t.push_back(2.0 * base);
      t.push_back(5.0 * base);
    }
  }
  return t;
}

std::string format_tick(double v) {
  if (v == 0.0) return "0";
  const double a = std::abs(v);
  const char* suffix = "";
  double s = v;
  if (a >= 1e12) {
    s = v / 1e12;
    suffix = "T";
  } else if (a >= 1e9) {
    s = v / 1e9;
    suffix = "G";
  } else if (a >= 1e6) {
    s = v / 1e6;
    suffix = "M";
  } else if (a >= 1e3) {
    s = v / 1e3;
    suffix = "k";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%s", s, suffix);
  return buf;
}

XYChart::XYChart(std::string id, std::string title, AxisSpec x, AxisSpec y)
    : id_(std::move(id)), title_(std::move(title)), x_(std::move(x)), y_(std::move(y)) {}

void XYChart::add_vertical_marker(double x, std::string label) { markers_.emplace_back(x, std::move(label)); }

void XYChart::add_band(Band b) { bands_.push_back(std::move(b)); }

void XYChart::add_ring(double x, double y, std::string tip, std::string legend) {
  rings_.push_back({x, y, std::move(tip), std::move(legend)});
}

void XYChart::add(Series s) {
  if (s.color.empty()) s.color = palette_color(series_.size());
  series_.push_back(std::move(s));
}

std::size_t XYChart::drawable_points() const {
  std::size_t n = 0;
  for (const auto& s : series_)
    for (const auto& [x, y] : s.points)
      if (drawable(x, x_.log) && drawable(y, y_.log)) ++n;
  return n;
}

std::string XYChart::svg(int width, int height) const {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto& s : series_)
    for (const auto& [x, y] : s.points)
      if (drawable(x, x_.log) && drawable(y, y_.log)) {
        xs.push_back(x);
        ys.push_back(y);
      }
  for (const auto& b : bands_)
    for (std::size_t i = 0; i < b.x.size() && i < b.lo.size() && i < b.hi.size(); ++i)
      if (drawable(b.x[i], x_.log) && drawable(b.lo[i], y_.log) && drawable(b.hi[i], y_.log)) ys.push_back(b.hi[i]);
  std::vector<std::string> names;
  for (const auto& b : bands_) names.push_back(b.name);
  for (const auto& s : series_) names.push_back(s.name);
  if (!rings_.empty()) names.push_back(rings_.front().legend);
  height = std::max(height, kTop + legend_rows(names) * kLegendRow + 30);
  const int plot_right = width - kLegendWidth;
  const int plot_bottom = height - kBottom;
  Scale sx{x_.log, 0, 1, static_cast<double>(kLeft), static_cast<double>(plot_right)};
  Scale sy{y_.log, 0, 1, static_cast<double>(plot_bottom), static_cast<double>(kTop)};
  const auto xt = axis_ticks(x_, xs, sx.lo, sx.hi);
  const auto yt = axis_ticks(y_, ys, sy.lo, sy.hi);

  std::ostringstream o;
  svg_open(o, id_, title_, width, height);
  const XAxisDraw x_axis{xt, sx, x_.label + (x_.log ? " (log scale)" : ""), height - 14};
  draw_axes(o, &x_axis, yt, sy, plot_right, plot_bottom, y_.label + (y_.log ? " (log scale)" : ""));
  if (xs.empty()) draw_no_data(o, plot_right, plot_bottom);
  std::vector<LegendEntry> entries;
  for (const auto& b : bands_) {
    entries.push_back({b.name, b.color, "", std::nullopt, true});
    draw_band(o, b, sx, sy);
  }
  for (const auto& s : series_) {
    const std::string dash = !s.dash.empty() ? s.dash : (s.dashed ? "6 3" : "");
    entries.push_back({s.name, s.color, dash, s.markers ? std::optional<MarkerShape>(s.marker) : std::nullopt, false});
    draw_series(o, s, dash, sx, sy);
  }
  bool ringed = false;
  for (const auto& r : rings_) {
    if (!drawable(r.x, x_.log) || !drawable(r.y, y_.log)) continue;
    o << "<g class=\"wall-marker\" data-x=\"" << num(r.x) << "\" data-y=\"" << num(r.y) << "\"><circle cx=\""
      << num(sx(r.x)) << "\" cy=\"" << num(sy(r.y)) << "\" r=\"9\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\">"
      << "<title>" << xml_escape(r.tip) << "</title></circle></g>";
    ringed = true;
  }
  if (ringed) entries.push_back({rings_.front().legend, "#000000", "", std::nullopt, false, true});
  for (const auto& [x, label] : markers_) {
    if (!drawable(x, x_.log) || x < sx.lo || x > sx.hi) continue;
    o << "<g class=\"target-marker\" data-x=\"" << num(x) << "\"><line x1=\"" << num(sx(x)) << "\" y1=\"" << kTop
      << "\" x2=\"" << num(sx(x)) << "\" y2=\"" << plot_bottom << "\" stroke=\"#000\" stroke-width=\"1.5\" "
      << "stroke-dasharray=\"2 3\"/><text x=\"" << num(sx(x) + 4) << "\" y=\"" << kTop + 12 << "\" font-size=\"11\" "
      << kFont << ">" << xml_escape(label) << "</text></g>";
  }
  legend(o, plot_right + 16, kTop + 8, entries);
  o << "</svg>";
  return o.str();
}

StackedBarChart::StackedBarChart(std::string id, std::string title, std::string y_label)
    : id_(std::move(id)), title_(std::move(title)), y_label_(std::move(y_label)) {}

void StackedBarChart::add_bar(std::string category, std::vector<BarSegment> segments) {
  bars_.emplace_back(std::move(category), std::move(segments));
}

void StackedBarChart::add_reference(double value, std::string label) {
  references_.emplace_back(value, std::move(label));
}

namespace {

using Bars = std::vector<std::pair<std::string, std::vector<BarSegment>>>;
using References = std::vector<std::pair<double, std::string>>;

// Colours by segment name (first seen first), the legend, and the tallest stack or reference line.
struct BarLegend {
  std::map<std::string, std::size_t> color_of;
  std::vector<LegendEntry> entries;
  double max_total = 0.0;
};

BarLegend bar_legend(const Bars& bars, const References& references) {
  BarLegend l;
  for (const auto& [cat, segs] : bars) {
    double total = 0.0;
    for (const auto& s : segs) {
      if (std::isfinite(s.value) && s.value > 0.0) total += s.value;
      if (l.color_of.emplace(s.name, l.color_of.size()).second)
        l.entries.push_back({s.name, palette_color(l.color_of[s.name])});
    }
    l.max_total = std::max(l.max_total, total);
  }
  for (const auto& [v, label] : references)
    if (std::isfinite(v)) l.max_total = std::max(l.max_total, v);
  for (const auto& [v, label] : references) l.entries.push_back({label, "#000000", "6 3"});
  return l;
}

// The bottom margin: category labels rotate when they do not fit their band, and rotated labels need
// their whole length at 35 degrees (about 6 px a character at 11 px).
std::pair<bool, int> label_layout(const Bars& bars) {
  bool rotate = false;
  std::size_t longest = 0;
  for (const auto& [cat, segs] : bars) {
    rotate = rotate || cat.size() * 7 > 600 / std::max<std::size_t>(1, bars.size());
    longest = std::max(longest, cat.size());
  }
  const int bottom =
      rotate ? kBottom + static_cast<int>(std::lround(static_cast<double>(longest) * 6.0 * 0.574)) : kBottom;
  return {rotate, bottom};
}

// One stacked bar with its category label under it.
void draw_bar(std::ostringstream& o, const std::string& cat, const std::vector<BarSegment>& segs, double cx, double bw,
              const Scale& sy, const BarLegend& legend, bool rotate, int plot_bottom) {
  double base = 0.0;
  o << "<g class=\"stack\" data-category=\"" << xml_escape(cat) << "\">";
  for (const auto& s : segs) {
    if (!std::isfinite(s.value) || s.value <= 0.0) continue;
    const double y_top = sy(base + s.value);
    const double y_bot = sy(base);
    o << "<rect class=\"bar\" x=\"" << num(cx - bw / 2) << "\" y=\"" << num(y_top) << "\" width=\"" << num(bw)
      << "\" height=\"" << num(y_bot - y_top) << "\" fill=\"" << palette_color(legend.color_of.at(s.name))
      << "\"><title>" << xml_escape(cat + ": " + s.name + " " + format_tick(s.value)) << "</title></rect>";
    base += s.value;
  }
  o << "</g>";
  if (rotate) {
    o << "<text x=\"" << num(cx) << "\" y=\"" << plot_bottom + 14 << "\" transform=\"rotate(-35 " << num(cx) << " "
      << plot_bottom + 14 << ")\" text-anchor=\"end\" font-size=\"11\" " << kFont << ">" << xml_escape(cat)
      << "</text>";
  } else {
    o << "<text x=\"" << num(cx) << "\" y=\"" << plot_bottom + 16 << "\" text-anchor=\"middle\" font-size=\"11\" "
      << kFont << ">" << xml_escape(cat) << "</text>";
  }
}

}  // namespace

std::string StackedBarChart::svg(int width, int height) const {
  const BarLegend legend_data = bar_legend(bars_, references_);
  const auto [rotate, bottom] = label_layout(bars_);
  std::vector<std::string> names;
  for (const auto& e : legend_data.entries) names.push_back(e.name);
  height = std::max(height, kTop + legend_rows(names) * kLegendRow + 30);
  height = std::max(height, bottom + 200);
  const int plot_right = width - kLegendWidth;
  const int plot_bottom = height - bottom;
  const auto ticks = nice_ticks(0.0, legend_data.max_total > 0.0 ? legend_data.max_total : 1.0);
  const Scale sy{false, 0.0, ticks.back(), static_cast<double>(plot_bottom), static_cast<double>(kTop)};

  std::ostringstream o;
  svg_open(o, id_, title_, width, height);
  draw_axes(o, nullptr, ticks, sy, plot_right, plot_bottom, y_label_);
  if (bars_.empty()) draw_no_data(o, plot_right, plot_bottom);
  const double band = static_cast<double>(plot_right - kLeft) / std::max<std::size_t>(1, bars_.size());
  const double bw = std::min(64.0, band * 0.6);
  for (std::size_t i = 0; i < bars_.size(); ++i)
    draw_bar(o, bars_[i].first, bars_[i].second, kLeft + band * (static_cast<double>(i) + 0.5), bw, sy, legend_data,
             rotate, plot_bottom);
  for (const auto& [v, label] : references_) {
    if (!std::isfinite(v)) continue;
    o << "<line class=\"reference\" x1=\"" << kLeft << "\" y1=\"" << num(sy(v)) << "\" x2=\"" << plot_right
      << "\" y2=\"" << num(sy(v)) << "\" stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>";
  }
  legend(o, plot_right + 16, kTop + 8, legend_data.entries);
  o << "</svg>";
  return o.str();
}

}  // namespace engramsim::report
