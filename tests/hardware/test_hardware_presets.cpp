// The shipped presets: every one loads through the strict loader, names match file names, and the
// figures the footprint and cost models lean on hold the values the facts sheet gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "hardware/hardware_loader.hpp"

using namespace engramsim;

namespace {

std::set<std::string> names_of(const std::vector<CatalogEntry>& entries) {
  std::set<std::string> out;
  for (const auto& e : entries) out.insert(e.name);
  return out;
}

}  // namespace

TEST(HardwarePresets, EveryGpuLoadsAndIsNamedAfterItsFile) {
  const auto entries = list_catalog("hardware/gpus");
  const std::set<std::string> expected{"a100-80gb", "h100-sxm", "h200-sxm", "b200",   "b300",
                                       "gb200",     "gb300",    "mi300x",   "mi325x", "mi355x"};
  const auto names = names_of(entries);
  for (const auto& n : expected) EXPECT_EQ(names.count(n), 1u) << "missing GPU preset " << n;
  for (const auto& e : entries) {
    SCOPED_TRACE(e.path);
    EXPECT_EQ(std::filesystem::path(e.path).stem().string(), e.name);
    EXPECT_FALSE(e.description.empty());
    const GpuSpec g = load_gpu(e.name);
    EXPECT_EQ(g.name, e.name);
    EXPECT_LE(g.hbm_usable.value(), g.hbm_capacity.value());
    EXPECT_TRUE(g.dense_flops.count(Precision::bf16)) << "every preset states its BF16 rate";
  }
}

TEST(HardwarePresets, EveryNodeLoadsWithItsGpu) {
  const auto entries = list_catalog("hardware/nodes");
  const std::set<std::string> expected{"dgx-a100",    "hgx-h100",    "hgx-h200", "hgx-b200", "hgx-b300",
                                       "gb200-nvl72", "gb300-nvl72", "mi300x-8", "mi325x-8", "mi355x-8"};
  const auto names = names_of(entries);
  for (const auto& n : expected) EXPECT_EQ(names.count(n), 1u) << "missing node preset " << n;
  for (const auto& e : entries) {
    SCOPED_TRACE(e.path);
    EXPECT_EQ(std::filesystem::path(e.path).stem().string(), e.name);
    const NodeSpec n = load_node(e.name);
    EXPECT_EQ(n.name, e.name);
    EXPECT_FALSE(n.gpu.name.empty());
    std::size_t gpus = 0;
    for (const auto& g : n.topology.gpu_groups) gpus += g.size();
    EXPECT_EQ(gpus, static_cast<std::size_t>(n.gpu_count));
    // Owned tiers are never dearer than the neocloud tier in the InferenceX table.
    EXPECT_LE(n.gpu_hour.hyperscaler.value(), n.gpu_hour.neocloud.value());
  }
}

TEST(HardwarePresets, FootprintCriticalCapacities) {
  const GpuSpec b300 = load_gpu("b300");
  EXPECT_DOUBLE_EQ(b300.hbm_capacity.value(), Bytes::gib(288).value());
  EXPECT_DOUBLE_EQ(b300.hbm_usable.value(), Bytes::gib(270).value());
  EXPECT_DOUBLE_EQ(b300.hbm_bandwidth.value(), 8e12);
  EXPECT_DOUBLE_EQ(b300.dense_flops.at(Precision::fp8).value(), 4.5e15);

  EXPECT_DOUBLE_EQ(load_gpu("b200").hbm_usable.value(), Bytes::gib(180).value());
  EXPECT_DOUBLE_EQ(load_gpu("b200").hbm_capacity.value(), Bytes::gib(192).value());
  EXPECT_DOUBLE_EQ(load_gpu("gb200").hbm_usable.value(), Bytes::gib(186).value());
  EXPECT_DOUBLE_EQ(load_gpu("gb300").hbm_usable.value(), Bytes::gib(279).value());
  EXPECT_DOUBLE_EQ(load_gpu("h200-sxm").hbm_capacity.value(), Bytes::gib(141).value());
  EXPECT_DOUBLE_EQ(load_gpu("h100-sxm").hbm_capacity.value(), Bytes::gib(80).value());
  EXPECT_DOUBLE_EQ(load_gpu("mi300x").hbm_capacity.value(), Bytes::gib(192).value());
  EXPECT_DOUBLE_EQ(load_gpu("mi325x").hbm_capacity.value(), Bytes::gib(256).value());
  EXPECT_DOUBLE_EQ(load_gpu("mi355x").hbm_capacity.value(), Bytes::gib(288).value());

  // FP4 only where the part has it.
  EXPECT_FALSE(load_gpu("mi300x").dense_flops.count(Precision::fp4));
  EXPECT_FALSE(load_gpu("h100-sxm").dense_flops.count(Precision::fp4));
  EXPECT_FALSE(load_gpu("a100-80gb").dense_flops.count(Precision::fp8));
  EXPECT_TRUE(load_gpu("mi355x").dense_flops.count(Precision::fp4));
}

TEST(HardwarePresets, HgxB300PricesAndTopology) {
  const NodeSpec n = load_node("hgx-b300");
  EXPECT_EQ(n.gpu.name, "b300");
  EXPECT_EQ(n.gpu_count, 8);
  EXPECT_DOUBLE_EQ(gpu_hour_price(n.gpu_hour, PriceTier::hyperscaler).value(), 2.26);  // July-2026 InferenceX costh
  EXPECT_DOUBLE_EQ(gpu_hour_price(n.gpu_hour, PriceTier::neocloud).value(), 2.52);
  EXPECT_DOUBLE_EQ(gpu_hour_price(n.gpu_hour, PriceTier::rental).value(), 4.25);
  EXPECT_DOUBLE_EQ(n.gpu.power_kw, 1.90);
  EXPECT_DOUBLE_EQ(n.dram_price.value(), MoneyPerByte::per_gb(5).value());
  EXPECT_EQ(n.amortization_life, Time::from_seconds(4 * 8766.0 * 3600.0));
  ASSERT_EQ(n.topology.gpu_groups.size(), 4u);  // 2 GPUs per PCIe switch
  for (const auto& g : n.topology.gpu_groups) EXPECT_EQ(g.size(), 2u);
  EXPECT_EQ(n.gpu.host_link, HostLinkKind::pcie_gen5_x16);
}

TEST(HardwarePresets, GraceTraysUseC2cTwoGpusPerCpu) {
  for (const char* name : {"gb200-nvl72", "gb300-nvl72"}) {
    SCOPED_TRACE(name);
    const NodeSpec n = load_node(name);
    EXPECT_EQ(n.gpu_count, 4);
    EXPECT_EQ(n.scale_up_domain_gpus, 72);
    EXPECT_EQ(n.gpu.host_link, HostLinkKind::nvlink_c2c);
    EXPECT_DOUBLE_EQ(n.gpu.host_link_bandwidth.value(), 450e9);  // 900 GB/s bidirectional
    EXPECT_EQ(n.topology.cpu_sockets, 2);
    EXPECT_EQ(n.topology.gpu_groups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  }
}

TEST(HardwarePresets, ListCatalogIsSortedAndEmptyForMissingFolder) {
  const auto entries = list_catalog("hardware/nodes");
  ASSERT_GE(entries.size(), 2u);
  for (std::size_t i = 1; i < entries.size(); ++i) EXPECT_LT(entries[i - 1].name, entries[i].name);
  EXPECT_TRUE(list_catalog("hardware/no-such-folder").empty());
}
