// A GPU's board power as it follows load, and what a node and a facility add on top: the energy a
// run spends per output token as the GPU driver would report it (board) and at the meter (facility).
// Curves are fits to public measured runs, each with its source (hardware/power/board-power.yaml,
// docs/cost-model.md "Energy"); the all-in nameplate kW of the GPU presets (`power_kw`, the TCO
// model's provisioned power) stays the figure tokens per provisioned MW are read from.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace engramsim {

struct BoardPowerCurve {
  double idle_w = 0.0;     // loaded, no step running
  double floor_w = 0.0;    // stepping at the lightest load
  double peak_w = 0.0;     // the curve's limit (at most the board cap)
  double half_rows = 1.0;  // decode rows per step at which half the rise from floor to peak is reached
};

struct FacilityPower {
  double host_share = 0.0;  // node power beside the GPUs, as a share of GPU board power
  double pue = 1.0;         // facility power / IT power
};

struct BoardPowerTable {
  std::map<std::string, BoardPowerCurve> gpus;  // by GPU preset name
  FacilityPower facility;
  const BoardPowerCurve* find(const std::string& gpu) const;
};

// Reads a board-power file (strict; errors name file:line:col and the key).
BoardPowerTable load_board_power(const std::string& path);
// <data root>/hardware/power/board-power.yaml
std::string default_board_power_path();

// Mean board watts of one GPU over a run: busy x (floor + (peak - floor) x rows / (rows + half_rows))
// + (1 - busy) x idle, busy clamped to [0, 1] and rows to >= 0. Pure.
double board_watts(const BoardPowerCurve& c, double busy_fraction, double rows_per_step);

// Joules per output token of a run on `gpus` GPUs at `board_w` each: board only, and with the
// node and facility on top. NaN without output.
struct EnergyPerToken {
  double board_j = 0.0;
  double facility_j = 0.0;
};
EnergyPerToken energy_per_output_token(double board_w, int gpus, double duration_s, double output_tokens,
                                       const FacilityPower& f);

}  // namespace engramsim
