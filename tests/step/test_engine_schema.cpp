// Engine presets: one declaration (engine_schema) reads every preset and is the docs' key table.
#include <gtest/gtest.h>

#include <string>

#include "models/engine_loader.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/docs_table.hpp"

namespace engramsim {
namespace {

std::string error_of(const std::string& yaml) {
  return test::config_error_of([&] { engine_from_yaml(yaml, "e.yaml"); });
}

TEST(EngineSchema, DocsTableIsTheSchemas) {
  test::check_docs_table("docs/cost-model.md", "#### Engine preset keys", engine_schema().markdown());
}

TEST(EngineSchema, EveryShippedPresetReadsAndWritesItsName) {
  for (const std::string& name : known_engines()) {
    const HostOverhead h = load_engine(name);
    EXPECT_EQ(engine_schema().write(h).at("name"), name);
    EXPECT_GE(h.kernel_time_scale, 1.0) << name;
  }
}

TEST(EngineSchema, ConditionalKeysAreRequiredOrRefused) {
  const std::string base = "name: x\nper_step: 1us\nper_sequence: 1ns\n";
  EXPECT_EQ(error_of(base), "");
  EXPECT_NE(error_of(base + "engram_lookup_per_step: 1us\n").find("applies only with engram_lookup_on_host_thread"),
            std::string::npos);
  EXPECT_NE(error_of(base + "engram_lookup_on_host_thread: true\nengram_lookup_per_step: 1us\n")
                .find("engram_lookup_per_position: missing required field"),
            std::string::npos);
  EXPECT_NE(error_of(base + "engram_host_round_trip: 1us\n").find("applies only with engram_ssd_path: page_cache"),
            std::string::npos);
  EXPECT_NE(error_of(base + "engram_ssd_path: page_cache\n").find("engram_host_round_trip: missing required field"),
            std::string::npos);
  EXPECT_NE(error_of(base + "kernel_time_scale: 0.5\n").find("e.yaml:4:20: kernel_time_scale: value"),
            std::string::npos);
  EXPECT_NE(error_of("name: x\nper_step: 2s\nper_sequence: 1ns\n").find("e.yaml:2:11: per_step: must be a time in"),
            std::string::npos);
  EXPECT_NE(error_of("per_step: 1us\nper_sequence: 1ns\n").find("name: missing required field"), std::string::npos);
}

TEST(EngineSchema, MoeSharesAreMapsOfPrecisionToShare) {
  const std::string base = "name: x\nper_step: 1us\nper_sequence: 1ns\n";
  const HostOverhead h =
      engine_from_yaml(base + "moe_bandwidth_share: {fp4: 0.41}\nmoe_compute_share: {fp8: 0.39}\n", "e.yaml");
  EXPECT_DOUBLE_EQ(h.moe.bandwidth[static_cast<std::size_t>(Precision::fp4)], 0.41);
  EXPECT_DOUBLE_EQ(h.moe.bandwidth[static_cast<std::size_t>(Precision::fp8)], 1.0);
  EXPECT_DOUBLE_EQ(h.moe.compute[static_cast<std::size_t>(Precision::fp8)], 0.39);
  EXPECT_EQ(engine_schema().write(h).at("moe_bandwidth_share").dump(), "{\"fp4\":0.41}");
  EXPECT_NE(error_of(base + "moe_bandwidth_share: {fp5: 0.5}\n")
                .find("e.yaml:4:28: moe_bandwidth_share.fp5: unknown precision"),
            std::string::npos)
      << error_of(base + "moe_bandwidth_share: {fp5: 0.5}\n");
  EXPECT_NE(error_of(base + "moe_compute_share: {fp8: 1.5}\n").find("moe_compute_share.fp8: must be in (0, 1]"),
            std::string::npos)
      << error_of(base + "moe_compute_share: {fp8: 1.5}\n");
  EXPECT_NE(error_of(base + "moe_compute_share: 0.5\n").find("moe_compute_share: expected a map of precision"),
            std::string::npos)
      << error_of(base + "moe_compute_share: 0.5\n");
}

TEST(EngineSchema, AllReduceTableNamesAnEmbeddedTable) {
  const std::string base = "name: x\nper_step: 1us\nper_sequence: 1ns\n";
  EXPECT_EQ(engine_from_yaml(base, "e.yaml").all_reduce_table, "");
  const HostOverhead h = engine_from_yaml(base + "all_reduce_table: sglang-0.5.9\n", "e.yaml");
  EXPECT_EQ(h.all_reduce_table, "sglang-0.5.9");
  EXPECT_EQ(engine_schema().write(h).at("all_reduce_table").dump(), "\"sglang-0.5.9\"");
  const std::string unknown = error_of(base + "all_reduce_table: nccl-9\n");
  EXPECT_NE(unknown.find("e.yaml:4:"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("all_reduce_table: no table \"nccl-9\" (known: sglang-0.5.9)"), std::string::npos) << unknown;
}

TEST(EngineSchema, ActivationQuantFusionIsAListOfProducers) {
  const std::string base = "name: x\nper_step: 1us\nper_sequence: 1ns\n";
  const HostOverhead none = engine_from_yaml(base, "e.yaml");
  EXPECT_FALSE(none.quant_fusion.norm || none.quant_fusion.activation || none.quant_fusion.attention);
  const HostOverhead h = engine_from_yaml(base + "activation_quant_fused_into: [norm, activation]\n", "e.yaml");
  EXPECT_TRUE(h.quant_fusion.norm);
  EXPECT_TRUE(h.quant_fusion.activation);
  EXPECT_FALSE(h.quant_fusion.attention);
  EXPECT_EQ(engine_schema().write(h).at("activation_quant_fused_into").dump(), "[\"norm\",\"activation\"]");
  const std::string unknown = error_of(base + "activation_quant_fused_into: [norm, gemm]\n");
  EXPECT_NE(unknown.find("e.yaml:4:37: "), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("unknown producer \"gemm\""), std::string::npos) << unknown;
  EXPECT_NE(error_of(base + "activation_quant_fused_into: [norm, norm]\n").find("\"norm\" is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of(base + "activation_quant_fused_into: norm\n").find("expected a list"), std::string::npos);
}

TEST(EngineSchema, SparseAttentionHeadPadIsPerVendorAndAscending) {
  const std::string base = "name: x\nper_step: 1us\nper_sequence: 1ns\n";
  EXPECT_TRUE(engine_from_yaml(base, "e.yaml").sparse_attention_by_vendor.empty());
  const HostOverhead h = engine_from_yaml(base + "sparse_attention_head_pad: {nvidia: [64, 128]}\n", "e.yaml");
  ASSERT_EQ(h.sparse_attention_by_vendor.count("nvidia"), 1u);
  EXPECT_EQ(h.sparse_attention_by_vendor.at("nvidia").head_pad, (std::vector<int>{64, 128}));
  EXPECT_EQ(engine_schema().write(h).at("sparse_attention_head_pad").dump(), "{\"nvidia\":[64,128]}");
  const std::string descending = error_of(base + "sparse_attention_head_pad: {nvidia: [128, 64]}\n");
  EXPECT_NE(descending.find("e.yaml:4:"), std::string::npos) << descending;
  EXPECT_NE(descending.find("head counts must ascend"), std::string::npos) << descending;
  EXPECT_NE(error_of(base + "sparse_attention_head_pad: {intel: [64]}\n").find("expected a GPU vendor"),
            std::string::npos);
  EXPECT_NE(error_of(base + "sparse_attention_head_pad: {nvidia: [0]}\n").find("head count in [1, 4096]"),
            std::string::npos);
  EXPECT_NE(error_of(base + "sparse_attention_head_pad: [64]\n").find("expected a map"), std::string::npos);
}

TEST(EngineSchema, BlockFp8KStepIsATimeUpToAMillisecond) {
  const std::string base = "name: x\nper_step: 1us\nper_sequence: 1ns\n";
  EXPECT_DOUBLE_EQ(engine_from_yaml(base, "e.yaml").block_fp8_gemm_k_step.seconds(), 0.0);
  EXPECT_DOUBLE_EQ(engine_from_yaml(base + "block_fp8_gemm_k_step: 2.18us\n", "e.yaml").block_fp8_gemm_k_step.seconds(),
                   2.18e-6);
  EXPECT_NE(
      error_of(base + "block_fp8_gemm_k_step: 2ms\n").find("e.yaml:4:24: block_fp8_gemm_k_step: must be a time in"),
      std::string::npos)
      << error_of(base + "block_fp8_gemm_k_step: 2ms\n");
  EXPECT_NE(error_of(base + "block_fp8_gemm_k_step: 2\n").find("block_fp8_gemm_k_step"), std::string::npos)
      << error_of(base + "block_fp8_gemm_k_step: 2\n");
}

}  // namespace
}  // namespace engramsim
