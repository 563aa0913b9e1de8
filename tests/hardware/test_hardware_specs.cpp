// The small helpers declared beside GpuSpec and NodeSpec: name round trips and price tiers.
#include <gtest/gtest.h>

#include "hardware/gpu_spec.hpp"
#include "hardware/node_spec.hpp"

using namespace engramsim;

TEST(HardwareSpecs, PrecisionNamesRoundTripAndWidths) {
  for (Precision p : {Precision::fp4, Precision::fp8, Precision::bf16, Precision::fp16, Precision::fp32}) {
    const auto back = precision_from_string(to_string(p));
    ASSERT_TRUE(back.has_value()) << to_string(p);
    EXPECT_EQ(*back, p);
  }
  EXPECT_FALSE(precision_from_string("FP8").has_value());  // names are lower case, exactly
  EXPECT_FALSE(precision_from_string("int8").has_value());
  EXPECT_FALSE(precision_from_string("").has_value());
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::fp4), 0.5);
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::fp8), 1.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::bf16), 2.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::fp16), 2.0);
  EXPECT_DOUBLE_EQ(bytes_per_element(Precision::fp32), 4.0);
}

TEST(HardwareSpecs, HostLinkNamesRoundTrip) {
  for (HostLinkKind k : {HostLinkKind::pcie_gen4_x16, HostLinkKind::pcie_gen5_x16, HostLinkKind::pcie_gen6_x16,
                         HostLinkKind::nvlink_c2c, HostLinkKind::infinity_fabric}) {
    const auto back = host_link_kind_from_string(to_string(k));
    ASSERT_TRUE(back.has_value()) << to_string(k);
    EXPECT_EQ(*back, k);
  }
  EXPECT_FALSE(host_link_kind_from_string("pcie").has_value());
}

TEST(HardwareSpecs, PriceTiersSelectTheRightRate) {
  PriceTiers p{MoneyRate(1.0), MoneyRate(2.0), MoneyRate(3.0)};
  EXPECT_DOUBLE_EQ(gpu_hour_price(p, PriceTier::hyperscaler).value(), 1.0);
  EXPECT_DOUBLE_EQ(gpu_hour_price(p, PriceTier::neocloud).value(), 2.0);
  EXPECT_DOUBLE_EQ(gpu_hour_price(p, PriceTier::rental).value(), 3.0);
  for (PriceTier t : {PriceTier::hyperscaler, PriceTier::neocloud, PriceTier::rental}) {
    EXPECT_EQ(price_tier_from_string(to_string(t)), t);
  }
  EXPECT_FALSE(price_tier_from_string("costh").has_value());
  EXPECT_FALSE(price_tier_from_string("spot").has_value());
}
