// The load-following GPU board power (hardware/board_power.hpp): the curve, the energy per output
// token, the strict loader, and the shipped file's curves.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "hardware/board_power.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

TEST(BoardPower, FollowsRowsAndBusyShare) {
  const BoardPowerCurve c{190.0, 453.0, 1000.0, 48.0};
  EXPECT_DOUBLE_EQ(board_watts(c, 0.0, 100.0), 190.0);             // never stepping: idle
  EXPECT_DOUBLE_EQ(board_watts(c, 1.0, 0.0), 453.0);               // stepping at the lightest load
  EXPECT_DOUBLE_EQ(board_watts(c, 1.0, 48.0), 453.0 + 547.0 / 2);  // half the rise at half_rows
  EXPECT_LT(board_watts(c, 1.0, 1e9), 1000.0 + 1e-9);
  EXPECT_DOUBLE_EQ(board_watts(c, 0.5, 48.0), 0.5 * (453.0 + 273.5) + 0.5 * 190.0);
  EXPECT_DOUBLE_EQ(board_watts(c, 2.0, -5.0), 453.0);  // clamped inputs
}

TEST(BoardPower, EnergyPerOutputTokenBoardAndFacility) {
  const FacilityPower f{0.25, 1.3};
  const EnergyPerToken e = energy_per_output_token(800.0, 4, 10.0, 16000.0, f);
  EXPECT_DOUBLE_EQ(e.board_j, 800.0 * 4 * 10.0 / 16000.0);
  EXPECT_DOUBLE_EQ(e.facility_j, e.board_j * 1.25 * 1.3);
  EXPECT_TRUE(std::isnan(energy_per_output_token(800.0, 4, 10.0, 0.0, f).board_j));
}

TEST(BoardPower, LoaderIsStrictAndLocatesErrors) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() / "board-power-test.yaml";
  std::ofstream(p) << "facility: {host_share: 0.25, pue: 1.3}\ngpus:\n  b200: {idle_w: 190, floor_w: 453, peak_w: 400, "
                      "half_rows: 48}\n";
  try {
    load_board_power(p.string());
    ADD_FAILURE() << "peak below floor was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("board-power-test.yaml:3:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("peak_w"), std::string::npos) << e.what();
  }
  std::ofstream(p) << "facility: {host_share: 0.25, pue: 1.3}\ngpus:\n  b200: {idle_w: 190, flor_w: 453}\n";
  EXPECT_THROW(load_board_power(p.string()), ConfigError);
  std::filesystem::remove(p);
}

// Every GPU preset with a board cap of its own has a curve; the shipped curves rise from idle.
TEST(BoardPower, ShippedCurvesCoverTheArticleGpus) {
  const BoardPowerTable t = load_board_power(default_board_power_path());
  for (const char* gpu : {"h100-sxm", "h200-sxm", "b200", "b300", "gb200", "gb300", "mi300x", "mi355x"}) {
    const BoardPowerCurve* c = t.find(gpu);
    ASSERT_NE(c, nullptr) << gpu;
    EXPECT_LT(c->idle_w, c->floor_w) << gpu;
    EXPECT_LE(c->floor_w, c->peak_w) << gpu;
  }
  EXPECT_GE(t.facility.pue, 1.0);
}

}  // namespace
}  // namespace engramsim
