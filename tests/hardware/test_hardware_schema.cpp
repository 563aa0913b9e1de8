// GPU and node presets: one declaration each (gpu_schema, node_schema) reads every preset and is the
// key table of docs/hardware.md.
#include <gtest/gtest.h>

#include "hardware/hardware_loader.hpp"
#include "tests/support/docs_table.hpp"

namespace engramsim {
namespace {

TEST(HardwareSchema, DocsTablesAreTheSchemas) {
  test::check_docs_table("docs/hardware.md", "## GPU file (`hardware/gpus/NAME.yaml`)", gpu_schema().markdown());
  test::check_docs_table("docs/hardware.md", "## Node file (`hardware/nodes/NAME.yaml`)", node_schema().markdown());
}

TEST(HardwareSchema, EveryShippedPresetWritesWhatItRead) {
  for (const CatalogEntry& e : list_catalog("hardware/nodes")) {
    const NodeSpec n = load_node(e.path);
    const nlohmann::json j = node_schema().write(n);
    EXPECT_EQ(j.at("name"), n.name);
    EXPECT_EQ(j.at("gpu"), n.gpu.name);
    EXPECT_EQ(j.at("gpu_count"), n.gpu_count);
    EXPECT_DOUBLE_EQ(gpu_schema().write(n.gpu).at("dense_flops").at("bf16").get<double>(),
                     n.gpu.dense_flops.at(Precision::bf16).value());
  }
}

}  // namespace
}  // namespace engramsim
