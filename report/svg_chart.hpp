// Small, dependency-free SVG charts for the sizing report: XY charts (lines and/or markers, linear
// or log axes with "nice" ticks, legend) and stacked bar charts.
//
// Output is a standalone <svg> element (no scripts, no external fonts or links) that renders the
// same inline in HTML and as a .svg file. Every data mark carries a class (series-line, marker,
// bar) and the root carries data-chart="<id>", so tests can check a chart really holds data.
// Points that a log axis cannot show (<= 0) and non-finite points are dropped, never clamped.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace engramsim::report {

struct AxisSpec {
  std::string label;  // with units, e.g. "Interactivity (tok/s/user)"
  bool log = false;
  std::optional<double> min;  // forced bounds; otherwise from the data
  std::optional<double> max;
};

enum class MarkerShape { circle, square, triangle, diamond };

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // drawn in the given order
  bool line = true;
  bool markers = true;
  bool dashed = false;            // the "6 3" dash, unless `dash` names another
  std::string color;              // empty: the next palette colour
  std::vector<std::string> tips;  // hover text per point (every figure of it); empty: the coordinates
  std::string dash;               // stroke-dasharray of the line, e.g. "2 3"; empty: solid (or "6 3" when dashed)
  MarkerShape marker = MarkerShape::circle;
};

// A shaded band between lo(x) and hi(x) (class "uncertainty-band"), e.g. a curve +/- its validation
// error; drawn under the series, with its own legend entry.
struct Band {
  std::string name;
  std::vector<double> x;
  std::vector<double> lo;
  std::vector<double> hi;
  std::string color;
};

class XYChart {
 public:
  XYChart(std::string id, std::string title, AxisSpec x, AxisSpec y);
  void add(Series s);
  // A dashed vertical line at x with its label (class "target-marker"), e.g. the target interactivity.
  void add_vertical_marker(double x, std::string label);
  void add_band(Band b);
  // A black ring around the data point (x, y) with its hover text (class "wall-marker"), e.g. a
  // configuration's KV wall; any ring adds one legend entry, `legend`, the first ring's.
  void add_ring(double x, double y, std::string tip, std::string legend);
  std::string svg(int width = 800, int height = 440) const;
  // Number of points that will be drawn (after dropping what the axes cannot show).
  std::size_t drawable_points() const;

 private:
  std::string id_;
  std::string title_;
  AxisSpec x_;
  AxisSpec y_;
  std::vector<Series> series_;
  std::vector<std::pair<double, std::string>> markers_;
  std::vector<Band> bands_;
  struct Ring {
    double x, y;
    std::string tip, legend;
  };
  std::vector<Ring> rings_;
};

struct BarSegment {
  std::string name;  // legend entry; equal names share a colour across bars
  double value = 0.0;
};

class StackedBarChart {
 public:
  StackedBarChart(std::string id, std::string title, std::string y_label);
  void add_bar(std::string category, std::vector<BarSegment> segments);
  // A horizontal reference line (e.g. HBM capacity) with its label.
  void add_reference(double value, std::string label);
  std::string svg(int width = 800, int height = 440) const;
  std::size_t bar_count() const { return bars_.size(); }

 private:
  std::string id_;
  std::string title_;
  std::string y_label_;
  std::vector<std::pair<std::string, std::vector<BarSegment>>> bars_;
  std::vector<std::pair<double, std::string>> references_;
};

// Tick positions covering [lo, hi] with at most about max_ticks steps of 1, 2 or 5 x 10^k.
std::vector<double> nice_ticks(double lo, double hi, int max_ticks = 6);
// Decades (and 2 and 5 multiples when the range spans few decades) within [lo, hi], lo > 0.
std::vector<double> log_ticks(double lo, double hi);
// Compact tick label: 1500 -> "1.5k", 2e6 -> "2M", 0.25 -> "0.25".
std::string format_tick(double v);
// Escapes & < > " ' for XML text and attributes.
std::string xml_escape(const std::string& s);
// The i-th series colour: ten fixed ones, then generated ones; distinct for every i below 1000.
std::string palette_color(std::size_t i);
// "#rrggbb" of a hue (degrees), saturation and lightness (0..1).
std::string hsl_color(double hue, double saturation, double lightness);

}  // namespace engramsim::report
