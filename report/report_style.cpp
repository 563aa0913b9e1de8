#include "report/report_style.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "core/json_text.hpp"

namespace engramsim::report {
namespace {

enum class Part { gpu, layout, tier, fetch, other };

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string last_component(const std::string& key) {
  const auto dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

Part part_of(const std::string& key) {
  const std::string k = lower(key);
  const std::string last = last_component(k);
  if (last == "node" || last == "gpu") return Part::gpu;
  if (last == "tp" || last == "ep" || last == "pp" || last == "dp") return Part::layout;
  if (last == "engram_tier" || (last == "tier" && k.find("engram") != std::string::npos)) return Part::tier;
  if (last == "fetch") return Part::fetch;
  return Part::other;
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : json_text(v, -1); }

std::string tier_text(const std::string& v) {
  const std::string t = lower(v);
  if (t == "hbm") return "Engram in HBM";
  if (t == "dram") return "Engram in DRAM";
  if (t == "ssd") return "Engram on SSD";
  if (t == "nvme") return "Engram on NVMe";
  if (t == "none" || t == "off") return "no Engram";
  return "Engram tier " + v;
}

std::string fetch_text(const std::string& v) {
  if (v == "zero_copy") return "zero-copy fetch";
  return v + " fetch";
}

std::string part_text(Part part, const std::string& key, const std::string& value, bool full_key) {
  switch (part) {
    case Part::gpu:
      return planner::gpu_display_name(value);
    case Part::layout: {
      std::string name = last_component(key);
      for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      return name + value;
    }
    case Part::tier:
      return tier_text(value);
    case Part::fetch:
      return fetch_text(value);
    case Part::other:
      break;
  }
  return (full_key ? key : last_component(key)) + "=" + value;
}

// The axes of a configuration's name in reading order: GPU, layout, tier, fetch, the rest.
std::vector<std::string> name_axes(const nlohmann::json& assignments, const std::vector<std::string>& axes,
                                   const std::string& curve_axis) {
  std::vector<std::string> keys = axes;
  if (keys.empty() && assignments.is_object())
    for (const auto& [k, v] : assignments.items()) keys.push_back(k);
  std::vector<std::string> out;
  for (Part part : {Part::gpu, Part::layout, Part::tier, Part::fetch, Part::other})
    for (const auto& k : keys)
      if (k != curve_axis && part_of(k) == part && assignments.is_object() && assignments.contains(k)) out.push_back(k);
  return out;
}

// The value of the first assignment of `part`, or "".
std::string part_value(const planner::ReportPoint& p, const std::vector<std::string>& axes,
                       const std::string& curve_axis, Part part) {
  std::string out;
  for (const auto& k : name_axes(p.assignments, axes, curve_axis))
    if (part_of(k) == part) out += (out.empty() ? "" : " ") + value_text(p.assignments.at(k));
  return out;
}

bool label_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '='; }

// The colour of member k of n configurations on GPU group g (of several): shades of the group's hue.
std::string group_shade(std::size_t g, std::size_t k, std::size_t n) {
  static const double hues[] = {207, 358, 122, 28, 272, 185, 322, 52};
  constexpr std::size_t nh = sizeof hues / sizeof hues[0];
  const double hue = g < nh ? hues[g] : static_cast<double>(g - nh) * 137.508 + 15.0;
  const double light = n <= 1 ? 0.42 : 0.26 + 0.38 * static_cast<double>(k) / static_cast<double>(n - 1);
  const double shift = n <= 1 ? 0.0 : 9.0 * (static_cast<double>(k % 3) - 1.0);
  return hsl_color(hue + shift, 0.72, light);
}

MarkerShape tier_marker(const std::string& tier) {
  const std::string t = lower(tier);
  if (t.empty() || t == "hbm") return MarkerShape::circle;
  if (t == "dram") return MarkerShape::square;
  if (t == "ssd" || t == "nvme") return MarkerShape::triangle;
  return MarkerShape::diamond;
}

}  // namespace

std::string human_config_name(const nlohmann::json& assignments, const std::vector<std::string>& axes,
                              const std::string& curve_axis) {
  const auto keys = name_axes(assignments, axes, curve_axis);
  std::map<std::string, int> short_count;
  for (const auto& k : keys) ++short_count[last_component(k)];
  std::string out;
  for (const auto& k : keys) {
    const std::string text =
        part_text(part_of(k), k, value_text(assignments.at(k)), short_count[last_component(k)] > 1);
    out += (out.empty() ? "" : " \u00b7 ") + text;
  }
  return out.empty() ? "base" : out;
}

namespace {

// The layout of a run as engines name it, from its result (extra.tp, ep, attention): "TP4" (plain
// tensor parallel), "TP4 + EP4" (experts spread too), "DP4 attention + EP4" (data-parallel
// attention, vLLM's -dp N -tp 1 --enable-expert-parallel); empty when the result does not say.
std::string engine_layout(const planner::ReportPoint& p) {
  const auto& x = p.metrics.extra;
  if (!x.contains("tp") || !x.contains("ep") || !x.contains("attention")) return "";
  if (!x.at("tp").is_number_integer() || !x.at("ep").is_number_integer() || !x.at("attention").is_string()) return "";
  const std::string tp = std::to_string(x.at("tp").get<int>());
  const std::string ep = std::to_string(x.at("ep").get<int>());
  if (x.at("attention") == "data") return "DP" + tp + " attention + EP" + ep;
  return x.at("ep").get<int>() > 1 ? "TP" + tp + " + EP" + ep : "TP" + tp;
}

// `name` with its "TPn" part read as the run's engine layout (the first ok point's).
std::string with_engine_layout(std::string name, const planner::ReportData& d, const std::string& config) {
  for (const auto& p : d.points) {
    if (p.config != config || p.status != planner::PointStatus::ok) continue;
    const std::string layout = engine_layout(p);
    const std::string tp = layout.empty() ? "" : "TP" + std::to_string(p.metrics.extra.at("tp").get<int>());
    const std::size_t at = tp.empty() ? std::string::npos : name.find(tp);
    const bool whole = at != std::string::npos && (at + tp.size() == name.size() || name[at + tp.size()] == ' ');
    if (whole) name.replace(at, tp.size(), layout);
    break;
  }
  return name;
}

}  // namespace

std::map<std::string, std::string> display_names(const planner::ReportData& d) {
  std::map<std::string, std::string> names;
  std::map<std::string, int> uses;
  for (const auto& p : d.points) {
    if (names.count(p.config)) continue;
    names[p.config] = with_engine_layout(human_config_name(p.assignments, d.axes, d.context.curve_axis), d, p.config);
    ++uses[names[p.config]];
  }
  for (auto& [label, name] : names)
    if (uses[name] > 1) name = label;
  return names;
}

std::string with_display_names(const std::string& text, const std::map<std::string, std::string>& names) {
  std::vector<std::pair<std::string, std::string>> by_length(names.begin(), names.end());
  std::stable_sort(by_length.begin(), by_length.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (i == 0 || !label_char(text[i - 1])) {
      for (const auto& [label, name] : by_length) {
        const std::size_t end = i + label.size();
        if (label.empty() || text.compare(i, label.size(), label) != 0) continue;
        if (end < text.size() && label_char(text[end])) continue;
        out += name;
        i = end;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += text[i++];
  }
  return out;
}

std::map<std::string, SeriesStyle> series_styles(const planner::ReportData& d) {
  std::vector<const planner::ReportPoint*> first;  // one point per configuration, in order of first appearance
  std::map<std::string, std::string> gpu;
  for (const auto& p : d.points) {
    if (!gpu.count(p.config)) first.push_back(&p);
    std::string g = part_value(p, d.axes, d.context.curve_axis, Part::gpu);
    if (g.empty() && p.status == planner::PointStatus::ok)
      if (const auto it = p.metrics.extra.find("gpu"); it != p.metrics.extra.end() && it->is_string())
        g = it->get<std::string>();
    if (!gpu.count(p.config) || (gpu[p.config].empty() && !g.empty())) gpu[p.config] = g;
  }
  std::vector<std::string> groups, layouts;
  std::map<std::string, std::vector<std::string>> members;
  for (const auto* p : first) {
    const std::string& g = gpu[p->config];
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
    members[g].push_back(p->config);
    const std::string l = part_value(*p, d.axes, d.context.curve_axis, Part::layout);
    if (std::find(layouts.begin(), layouts.end(), l) == layouts.end()) layouts.push_back(l);
  }
  static const char* dashes[] = {"", "7 4", "2 3", "10 3 2 3", "4 2 1 2", "12 4"};
  std::map<std::string, SeriesStyle> out;
  std::set<std::string> used;
  for (std::size_t i = 0; i < first.size(); ++i) {
    const planner::ReportPoint& p = *first[i];
    SeriesStyle s;
    const std::string& g = gpu[p.config];
    const auto gi = static_cast<std::size_t>(std::find(groups.begin(), groups.end(), g) - groups.begin());
    const auto& m = members[g];
    const auto k = static_cast<std::size_t>(std::find(m.begin(), m.end(), p.config) - m.begin());
    s.color = groups.size() <= 1 ? palette_color(i) : group_shade(gi, k, m.size());
    for (std::size_t n = 0; used.count(s.color); ++n) s.color = palette_color(first.size() + n);
    used.insert(s.color);
    const std::string l = part_value(p, d.axes, d.context.curve_axis, Part::layout);
    const auto li = static_cast<std::size_t>(std::find(layouts.begin(), layouts.end(), l) - layouts.begin());
    s.dash = layouts.size() <= 1 ? "" : dashes[li % (sizeof dashes / sizeof dashes[0])];
    s.marker = tier_marker(part_value(p, d.axes, d.context.curve_axis, Part::tier));
    out[p.config] = s;
  }
  return out;
}

}  // namespace engramsim::report
