#include "hardware/board_power.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "core/config_node.hpp"
#include "core/paths.hpp"

namespace engramsim {

const BoardPowerCurve* BoardPowerTable::find(const std::string& gpu) const {
  const auto it = gpus.find(gpu);
  return it == gpus.end() ? nullptr : &it->second;
}

namespace {

BoardPowerCurve read_curve(const ConfigNode& n) {
  BoardPowerCurve c;
  c.idle_w = n.number("idle_w", 0.0, 1e5);
  c.floor_w = n.number("floor_w", 0.0, 1e5);
  c.peak_w = n.number("peak_w", 0.0, 1e5);
  c.half_rows = n.number("half_rows", 1e-6, 1e9);
  if (c.peak_w < c.floor_w) n.fail_key("peak_w", "below floor_w");
  n.finish();
  return c;
}

}  // namespace

BoardPowerTable load_board_power(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  root.ignore("description");
  BoardPowerTable t;
  const ConfigNode f = root.child("facility");
  t.facility.host_share = f.number("host_share", 0.0, 10.0);
  t.facility.pue = f.number("pue", 1.0, 10.0);
  f.finish();
  const ConfigNode g = root.child("gpus");
  if (!g.is_map()) g.fail("expected a map of GPU preset name: curve");
  for (const std::string& name : g.keys()) t.gpus[name] = read_curve(g.child(name));
  root.finish();
  return t;
}

std::string default_board_power_path() {
  return (std::filesystem::path(data_root()) / "hardware" / "power" / "board-power.yaml").string();
}

double board_watts(const BoardPowerCurve& c, double busy_fraction, double rows_per_step) {
  const double busy = std::clamp(busy_fraction, 0.0, 1.0);
  const double rows = std::max(rows_per_step, 0.0);
  const double stepping = c.floor_w + (c.peak_w - c.floor_w) * rows / (rows + c.half_rows);
  return busy * stepping + (1.0 - busy) * c.idle_w;
}

EnergyPerToken energy_per_output_token(double board_w, int gpus, double duration_s, double output_tokens,
                                       const FacilityPower& f) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (!(output_tokens > 0.0) || !(duration_s > 0.0) || gpus <= 0) return {kNaN, kNaN};
  const double board = board_w * gpus * duration_s / output_tokens;
  return {board, board * (1.0 + f.host_share) * f.pue};
}

}  // namespace engramsim
