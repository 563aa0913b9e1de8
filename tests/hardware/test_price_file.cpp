// The user's price file: every refusal names file:line:col and the field, exactly.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <string>

#include "core/error.hpp"
#include "hardware/hardware_loader.hpp"
#include "hardware/price_file.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/temp_dir.hpp"

using namespace engramsim;

namespace {

std::string error_of(const std::function<void()>& f) { return test::config_error_of(f, "(no ConfigError thrown)"); }

class PriceFileTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    const std::string path = dir_.file("my-prices.yaml");
    std::ofstream(path) << text;
    return path;
  }
  const test::TempDir dir_;
};

TEST_F(PriceFileTest, ReplacesTheListedTiersOnly) {
  const std::string path = write("prices:\n  b200: {hyperscaler: \"1.50USD/h\", rental: \"3.10USD/h\"}\n");
  const PriceFile f = load_price_file(path);
  const NodeSpec catalog = load_node("hgx-b200");
  const NodeSpec n = apply_price_file(f, catalog, PriceTier::hyperscaler);
  EXPECT_DOUBLE_EQ(n.gpu_hour.hyperscaler.value(), 1.50);
  EXPECT_DOUBLE_EQ(n.gpu_hour.rental.value(), 3.10);
  EXPECT_DOUBLE_EQ(n.gpu_hour.neocloud.value(), catalog.gpu_hour.neocloud.value());
}

TEST_F(PriceFileTest, MissingSkuTheRunNeeds) {
  const std::string path = write("# quotes\nprices:\n  h200-sxm:\n    hyperscaler: \"1.20USD/h\"\n");
  const PriceFile f = load_price_file(path);
  EXPECT_EQ(error_of([&] { apply_price_file(f, load_node("hgx-b200"), PriceTier::hyperscaler); }),
            path + ":2:1: prices: no price for GPU 'b200', which node hgx-b200 needs (listed: h200-sxm)");
}

TEST_F(PriceFileTest, MissingTierTheRunNeeds) {
  const std::string path = write("prices:\n  b200:\n    hyperscaler: \"1.20USD/h\"\n");
  const PriceFile f = load_price_file(path);
  EXPECT_EQ(error_of([&] { apply_price_file(f, load_node("hgx-b200"), PriceTier::rental); }),
            path + ":2:3: prices.b200: no rental price for GPU 'b200', the run's price tier");
}

TEST_F(PriceFileTest, NegativePrice) {
  const std::string path = write("prices:\n  b200:\n    neocloud: \"-1.5USD/h\"\n");
  EXPECT_EQ(
      error_of([&] { load_price_file(path); }),
      path + ":3:15: prices.b200.neocloud: expected a price like \"1.41USD/h\", got a negative value \"-1.5USD/h\"");
}

TEST_F(PriceFileTest, NonFinitePrice) {
  const std::string path = write("prices:\n  b200:\n    neocloud: \"infUSD/h\"\n");
  const std::string msg = error_of([&] { load_price_file(path); });
  EXPECT_EQ(msg.rfind(path + ":3:15: prices.b200.neocloud: ", 0), 0u) << msg;
}

TEST_F(PriceFileTest, BareNumberNeedsAUnit) {
  const std::string path = write("prices:\n  b200:\n    neocloud: 1.5\n");
  const std::string msg = error_of([&] { load_price_file(path); });
  EXPECT_EQ(msg.rfind(path + ":3:15: prices.b200.neocloud: ", 0), 0u) << msg;
}

TEST_F(PriceFileTest, UnknownTier) {
  const std::string path = write("prices:\n  b200:\n    spot: \"1USD/h\"\n");
  EXPECT_EQ(error_of([&] { load_price_file(path); }),
            path + ":3:5: prices.b200.spot: unknown price tier 'spot' (known: hyperscaler, neocloud, rental)");
}

TEST_F(PriceFileTest, UnknownSku) {
  const std::string path = write("prices:\n  b200: {rental: \"3USD/h\"}\n  b900: {rental: \"3USD/h\"}\n");
  const std::string msg = error_of([&] { load_price_file(path); });
  EXPECT_EQ(msg.rfind(path + ":3:3: prices.b900: unknown GPU 'b900' (known: a100-80gb, b200, ", 0), 0u) << msg;
}

TEST_F(PriceFileTest, UnknownTopLevelKey) {
  const std::string path = write("prices:\n  b200: {rental: \"3USD/h\"}\nprice:\n  b300: {}\n");
  EXPECT_EQ(error_of([&] { load_price_file(path); }), path + ":3:1: price: unknown field; did you mean 'prices'?");
}

}  // namespace
