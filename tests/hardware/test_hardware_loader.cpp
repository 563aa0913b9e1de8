// The strict loader on hand-written bad files: each error must name the file, the line and the
// field, so a user can fix a preset without reading the loader. Files go to a fresh temp folder.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "hardware/hardware_loader.hpp"
#include "tests/support/config_error.hpp"
#include "tests/support/temp_dir.hpp"

using namespace engramsim;
namespace fs = std::filesystem;

namespace {

// A valid GPU file, one entry per line, so tests can swap or drop a line and know its number.
std::vector<std::string> good_gpu_lines() {
  return {
      "name: test-gpu",
      "description: \"a test GPU\"",
      "vendor: nvidia",
      "hbm_capacity: \"288GiB\"",
      "hbm_usable: \"270GiB\"",
      "hbm_bandwidth: \"8TB/s\"",
      "dense_flops:",
      "  bf16: \"2.25PFLOPS\"",
      "  fp8: \"4.5PFLOPS\"",
      "scale_up_bandwidth: \"1.8TB/s\"",
      "host_link: pcie_gen5_x16",
      "host_link_bandwidth: \"64GB/s\"",
      "power_kw: 2.17",
  };
}

std::vector<std::string> good_node_lines() {
  return {
      "name: test-node",
      "description: \"a test node\"",
      "gpu: ./test-gpu.yaml",
      "gpu_count: 4",
      "scale_up_domain_gpus: 8",
      "host_dram_capacity: \"2TB\"",
      "host_dram_bandwidth: \"600GB/s\"",
      "host_link_latency: \"1.5us\"",
      "topology:",
      "  cpu_sockets: 2",
      "  gpu_groups: [[0, 1], [2, 3]]",
      "  switch_uplink_bandwidth: \"64GB/s\"",
      "  drive_groups: [[0], [1]]",
      "nvme:",
      "  count: 2",
      "  capacity_per_drive: \"3.84TB\"",
      "  seq_read_per_drive: \"13GB/s\"",
      "  random_read_iops_4k_per_drive: 2500000",
      "  read_latency: \"70us\"",
      "prices:",
      "  gpu_hour:",
      "    hyperscaler: \"2.34USD/h\"",
      "    neocloud: \"2.808USD/h\"",
      "    rental: \"3.48USD/h\"",
      "  dram_capital: \"5USD/GB\"",
      "  ssd_capital: \"0.15USD/GB\"",
      "  amortization_life: \"35064h\"",
  };
}

// 1-based line number of the first line starting with `prefix` (after indentation).
int line_of(const std::vector<std::string>& lines, const std::string& prefix) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const auto start = l.find_first_not_of(' ');
    if (start != std::string::npos && l.compare(start, prefix.size(), prefix) == 0) return static_cast<int>(i) + 1;
  }
  ADD_FAILURE() << "no line starts with " << prefix;
  return 0;
}

// The good GPU file with `entry` added before its scale_up_bandwidth line.
std::vector<std::string> gpu_lines_with(const std::string& entry) {
  auto lines = good_gpu_lines();
  lines.insert(lines.begin() + line_of(lines, "scale_up_bandwidth:") - 1, entry);
  return lines;
}

void replace_line(std::vector<std::string>& lines, const std::string& prefix, const std::string& with) {
  lines[static_cast<std::size_t>(line_of(lines, prefix) - 1)] = with;
}

void drop_line(std::vector<std::string>& lines, const std::string& prefix) {
  lines.erase(lines.begin() + (line_of(lines, prefix) - 1));
}

std::string error_of(const std::function<void()>& f) { return test::config_error_of(f, "(no ConfigError thrown)"); }

class HardwareLoaderTest : public ::testing::Test {
 protected:
  std::string write(const std::string& file, const std::vector<std::string>& lines) {
    const std::string path = dir_.file(file);
    std::ofstream out(path);
    for (const auto& l : lines) out << l << "\n";
    return path;
  }
  std::string write_gpu(const std::vector<std::string>& lines) { return write("test-gpu.yaml", lines); }
  std::string write_node(const std::vector<std::string>& lines) {
    write_gpu(good_gpu_lines());
    return write("test-node.yaml", lines);
  }

  // Expects "path:line:col: field: ..." with the message fragment somewhere after it.
  static void expect_located(const std::string& msg, const std::string& path, int line, const std::string& field,
                             const std::string& fragment) {
    const std::string head = path + ":" + std::to_string(line) + ":";
    EXPECT_EQ(msg.rfind(head, 0), 0u) << "want prefix " << head << "\ngot " << msg;
    EXPECT_NE(msg.find(": " + field + ": "), std::string::npos) << "want field " << field << "\ngot " << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << "want '" << fragment << "'\ngot " << msg;
  }

  const test::TempDir dir_;
};

}  // namespace

TEST_F(HardwareLoaderTest, GoodFilesLoad) {
  const std::string node_path = write_node(good_node_lines());
  const NodeSpec n = load_node(node_path);
  EXPECT_EQ(n.name, "test-node");
  EXPECT_EQ(n.gpu.name, "test-gpu");  // the relative `gpu:` path resolves beside the node file
  EXPECT_DOUBLE_EQ(n.gpu.hbm_usable.value(), Bytes::gib(270).value());
  EXPECT_EQ(n.topology.drive_groups, (std::vector<std::vector<int>>{{0}, {1}}));
  EXPECT_EQ(n.host_link_latency, Time::ns(1500));
  EXPECT_DOUBLE_EQ(n.nvme.random_read_iops_4k_per_drive, 2.5e6);
  EXPECT_DOUBLE_EQ(n.gpu_hour.neocloud.value(), 2.808);
}

TEST_F(HardwareLoaderTest, NodeNamesCatalogGpu) {
  auto lines = good_node_lines();
  replace_line(lines, "gpu:", "gpu: b300");
  const NodeSpec n = load_node(write("n.yaml", lines));
  EXPECT_EQ(n.gpu.name, "b300");
  EXPECT_DOUBLE_EQ(n.gpu.hbm_capacity.value(), Bytes::gib(288).value());
}

TEST_F(HardwareLoaderTest, BadYamlNamesFileAndLine) {
  auto lines = good_gpu_lines();
  replace_line(lines, "hbm_bandwidth:", "hbm_bandwidth: [\"8TB/s\"");
  const std::string path = write_gpu(lines);
  const std::string msg = error_of([&] { load_gpu(path); });
  EXPECT_EQ(msg.rfind(path + ":", 0), 0u) << msg;
  EXPECT_NE(msg.find("invalid YAML"), std::string::npos) << msg;
  // yaml-cpp reports the line where the unclosed list is noticed: at or after the bad line.
  const int bad = line_of(lines, "hbm_bandwidth:");
  const int reported = std::stoi(msg.substr(path.size() + 1));
  EXPECT_GE(reported, bad) << msg;
}

TEST_F(HardwareLoaderTest, UnknownKey) {
  auto lines = good_gpu_lines();
  lines.insert(lines.begin() + 6, "hbm_speed: \"8TB/s\"");
  const std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, 7, "hbm_speed", "unknown field");
}

TEST_F(HardwareLoaderTest, UnknownNestedKey) {
  auto lines = good_node_lines();
  lines.insert(lines.begin() + line_of(lines, "rental:"), "    spot: \"1USD/h\"");
  const std::string path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "spot:"), "prices.gpu_hour.spot",
                 "unknown field");
}

TEST_F(HardwareLoaderTest, BareNumberWhereUnitRequired) {
  auto lines = good_gpu_lines();
  replace_line(lines, "hbm_bandwidth:", "hbm_bandwidth: 8");
  const std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "hbm_bandwidth:"), "hbm_bandwidth",
                 "bare number");
}

TEST_F(HardwareLoaderTest, WrongUnit) {
  auto lines = good_gpu_lines();
  replace_line(lines, "hbm_capacity:", "hbm_capacity: \"288GB/s\"");
  const std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "hbm_capacity:"), "hbm_capacity",
                 "unknown unit");

  lines = good_node_lines();
  replace_line(lines, "hyperscaler:", "    hyperscaler: \"2.34USD\"");
  const std::string node = write_node(lines);
  expect_located(error_of([&] { load_node(node); }), node, line_of(lines, "hyperscaler:"),
                 "prices.gpu_hour.hyperscaler", "unknown unit");
}

TEST_F(HardwareLoaderTest, ScaleOutBandwidthIsOptionalAndPositive) {
  auto lines = good_node_lines();
  EXPECT_EQ(load_node(write_node(lines)).scale_out_bandwidth.value(), 0.0);
  replace_line(lines, "scale_up_domain_gpus:", "scale_up_domain_gpus: 8\nscale_out_bandwidth: \"50GB/s\"");
  EXPECT_DOUBLE_EQ(load_node(write_node(lines)).scale_out_bandwidth.value(), 50e9);
  lines = good_node_lines();
  replace_line(lines, "scale_up_domain_gpus:", "scale_up_domain_gpus: 8\nscale_out_bandwidth: \"0GB/s\"");
  std::string path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "scale_up_domain_gpus:") + 1,
                 "scale_out_bandwidth", "");
  lines = good_node_lines();
  replace_line(lines, "scale_up_domain_gpus:", "scale_up_domain_gpus: 8\nscale_out_bandwidth: \"50GB\"");
  path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "scale_up_domain_gpus:") + 1,
                 "scale_out_bandwidth", "unknown unit");
}

TEST_F(HardwareLoaderTest, HostReadFieldsAreOptionalAndGoTogether) {
  auto lines = good_node_lines();
  EXPECT_EQ(load_node(write_node(lines)).host_max_outstanding_reads, 0);
  replace_line(lines, "host_link_latency:",
               "host_link_latency: \"1.5us\"\nhost_read_request: \"128B\"\nhost_max_outstanding_reads: 768");
  const NodeSpec n = load_node(write_node(lines));
  EXPECT_DOUBLE_EQ(n.host_read_request.value(), 128.0);
  EXPECT_EQ(n.host_max_outstanding_reads, 768);
  lines = good_node_lines();
  replace_line(lines, "host_link_latency:", "host_link_latency: \"1.5us\"\nhost_read_request: \"128B\"");
  const std::string path = write_node(lines);
  EXPECT_NE(error_of([&] { load_node(path); }).find("go together"), std::string::npos);
}

TEST_F(HardwareLoaderTest, NegativeAndZeroSizes) {
  auto lines = good_gpu_lines();
  replace_line(lines, "hbm_usable:", "hbm_usable: \"-1GiB\"");
  std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "hbm_usable:"), "hbm_usable", "negative");

  lines = good_node_lines();
  replace_line(lines, "capacity_per_drive:", "  capacity_per_drive: \"0TB\"");
  path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "capacity_per_drive:"),
                 "nvme.capacity_per_drive", "greater than zero");
}

TEST_F(HardwareLoaderTest, UsableAboveCapacity) {
  auto lines = good_gpu_lines();
  replace_line(lines, "hbm_usable:", "hbm_usable: \"289GiB\"");
  const std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "hbm_usable:"), "hbm_usable",
                 "exceeds hbm_capacity");
  // A capacity in decimal GB is read as written (141 GB = 131.3 GiB); below a binary usable size the
  // slip is on the capacity's line, and both readings are shown.
  replace_line(lines, "hbm_usable:", "hbm_usable: \"135GiB\"");
  replace_line(lines, "hbm_capacity:", "hbm_capacity: \"141GB\"");
  const std::string decimal = error_of([&] { load_gpu(write_gpu(lines)); });
  EXPECT_NE(decimal.find(":" + std::to_string(line_of(lines, "hbm_capacity:")) + ":"), std::string::npos) << decimal;
  EXPECT_NE(decimal.find("hbm_capacity: is less than hbm_usable (135.00 GiB = 145.0 GB > 131.32 GiB = 141.0 GB)"),
            std::string::npos)
      << decimal;
  replace_line(lines, "hbm_capacity:", "hbm_capacity: \"288GiB\"");
  // The limit itself is allowed.
  replace_line(lines, "hbm_usable:", "hbm_usable: \"288GiB\"");
  EXPECT_NO_THROW(load_gpu(write_gpu(lines)));
}

TEST_F(HardwareLoaderTest, MissingFile) {
  const std::string path = dir_.file("nope.yaml");
  const std::string msg = error_of([&] { load_gpu(path); });
  EXPECT_EQ(msg.rfind(path + ":", 0), 0u) << msg;
  EXPECT_NE(msg.find("no such file"), std::string::npos) << msg;
  EXPECT_NE(error_of([] { load_node("no-such-node"); }).find("hardware/nodes/no-such-node.yaml"), std::string::npos);
}

TEST_F(HardwareLoaderTest, MissingRequiredField) {
  auto lines = good_gpu_lines();
  drop_line(lines, "hbm_bandwidth:");
  const std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, 1, "hbm_bandwidth", "missing required field");

  lines = good_node_lines();
  drop_line(lines, "read_latency:");
  const std::string node = write_node(lines);
  expect_located(error_of([&] { load_node(node); }), node, line_of(lines, "count:"), "nvme.read_latency",
                 "missing required field");
}

// `nvme: {count: 0}`: a node without drives loads with no drive figures; a drive figure beside
// count 0 is an unknown key there, located.
TEST_F(HardwareLoaderTest, NodeWithoutDrives) {
  auto lines = good_node_lines();
  drop_line(lines, "drive_groups:");
  for (const char* key :
       {"capacity_per_drive:", "seq_read_per_drive:", "random_read_iops_4k_per_drive:", "read_latency:"})
    drop_line(lines, key);
  replace_line(lines, "count:", "  count: 0");
  const NodeSpec n = load_node(write_node(lines));
  EXPECT_EQ(n.nvme.count, 0);
  EXPECT_TRUE(n.topology.drive_groups.empty());

  auto extra = lines;
  extra.insert(extra.begin() + line_of(extra, "count:"), "  read_latency: \"70us\"");
  const std::string node = write_node(extra);
  const std::string what = error_of([&] { load_node(node); });
  EXPECT_NE(what.find(node + ":" + std::to_string(line_of(extra, "read_latency:"))), std::string::npos) << what;
  EXPECT_NE(what.find("nvme.read_latency"), std::string::npos) << what;
}

TEST_F(HardwareLoaderTest, FlopRatesCheckedPerPrecision) {
  auto lines = good_gpu_lines();
  replace_line(lines, "fp8:", "  fp6: \"4.5PFLOPS\"");
  std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "fp6:"), "dense_flops.fp6",
                 "unknown precision");

  // A wider precision faster than a narrower one is a unit slip (TFLOPS written as PFLOPS).
  lines = good_gpu_lines();
  replace_line(lines, "bf16:", "  bf16: \"2250PFLOPS\"");
  path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "bf16:"), "dense_flops.bf16",
                 "exceeds the narrower fp8 rate");
  // Equal rates are fine.
  replace_line(lines, "bf16:", "  bf16: \"4.5PFLOPS\"");
  EXPECT_NO_THROW(load_gpu(write_gpu(lines)));
}

// Unit slips that would otherwise become hours-long steps or free work are refused where they are
// written: a bandwidth in kB/s for TB/s, a node's DRAM in MB, a preset without a BF16 rate.
TEST_F(HardwareLoaderTest, ImplausibleValuesAndMissingBf16AreRefused) {
  // The good preset with the line starting `prefix` replaced; the error is located on that line.
  const auto gpu_line_fails = [&](const std::string& prefix, const std::string& with, const std::string& field,
                                  const std::string& fragment) {
    auto lines = good_gpu_lines();
    replace_line(lines, prefix, with);
    const std::string path = write_gpu(lines);
    expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, prefix), field, fragment);
  };
  gpu_line_fails("hbm_bandwidth:", "hbm_bandwidth: \"3.35kB/s\"", "hbm_bandwidth",
                 "outside the plausible range 10 GB/s to 1 PB/s");
  gpu_line_fails("fp8:", "  fp8: \"4.5GFLOPS\"", "dense_flops.fp8", "plausible range");
  auto lines = good_gpu_lines();
  lines.erase(lines.begin() + line_of(lines, "bf16:") - 1);
  std::string path = write_gpu(lines);
  // A map is located at its first entry.
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "fp8:"), "dense_flops", "must include bf16");
  auto node = good_node_lines();
  replace_line(node, "host_dram_capacity:", "host_dram_capacity: \"2MB\"");
  path = write_node(node);
  expect_located(error_of([&] { load_node(path); }), path, line_of(node, "host_dram_capacity:"), "host_dram_capacity",
                 "plausible range");
}

TEST_F(HardwareLoaderTest, GemmEfficiencyIsOptionalAndChecked) {
  // Absent: every precision reaches the default curves as they are.
  EXPECT_TRUE(load_gpu(write_gpu(good_gpu_lines())).gemm_efficiency.empty());
  const auto with = [&](const std::string& entry) {
    auto lines = good_gpu_lines();
    lines.insert(lines.begin() + line_of(lines, "scale_up_bandwidth:") - 1, "gemm_efficiency:");
    lines.insert(lines.begin() + line_of(lines, "scale_up_bandwidth:") - 1, entry);
    return lines;
  };
  auto lines = with("  fp8: 0.73");
  const GpuSpec g = load_gpu(write_gpu(lines));
  EXPECT_DOUBLE_EQ(g.gemm_efficiency.at(Precision::fp8), 0.73);
  EXPECT_FALSE(g.gemm_efficiency.count(Precision::bf16));

  lines = with("  fp8: 1.5");
  std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "fp8: 1.5"), "gemm_efficiency.fp8",
                 "must be in (0, 1]");
  lines = with("  fp8: 0");
  path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "fp8: 0"), "gemm_efficiency.fp8",
                 "must be in (0, 1]");
  // A precision the GPU has no rate for, and a name that is no precision.
  lines = with("  fp4: 0.5");
  path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "fp4: 0.5"), "gemm_efficiency.fp4",
                 "no dense_flops rate");
  lines = with("  int8: 0.5");
  path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "int8: 0.5"), "gemm_efficiency.int8",
                 "unknown precision");
}

TEST_F(HardwareLoaderTest, AttentionDecodeEfficiencyIsOptionalAndChecked) {
  EXPECT_DOUBLE_EQ(load_gpu(write_gpu(good_gpu_lines())).attention_decode_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(load_gpu(write_gpu(gpu_lines_with("attention_decode_efficiency: 0.45"))).attention_decode_efficiency,
                   0.45);
  for (const std::string bad : {"attention_decode_efficiency: 1.45", "attention_decode_efficiency: 0"}) {
    const auto lines = gpu_lines_with(bad);
    const std::string path = write_gpu(lines);
    expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, bad), "attention_decode_efficiency",
                   "must be a number in (0, 1]");
  }
}

TEST_F(HardwareLoaderTest, GemmStreamAndOverlapAreOptionalAndChecked) {
  const GpuSpec plain = load_gpu(write_gpu(good_gpu_lines()));
  EXPECT_DOUBLE_EQ(plain.gemm_bandwidth_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(plain.gemm_overlap, 1.0);
  EXPECT_DOUBLE_EQ(load_gpu(write_gpu(gpu_lines_with("gemm_bandwidth_efficiency: 0.81"))).gemm_bandwidth_efficiency,
                   0.81);
  EXPECT_DOUBLE_EQ(load_gpu(write_gpu(gpu_lines_with("gemm_overlap: 0"))).gemm_overlap, 0.0);
  for (const std::string bad : {"gemm_bandwidth_efficiency: 0", "gemm_bandwidth_efficiency: 1.2"}) {
    const auto lines = gpu_lines_with(bad);
    const std::string path = write_gpu(lines);
    expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, bad), "gemm_bandwidth_efficiency",
                   "must be a number in (0, 1]");
  }
  for (const std::string bad : {"gemm_overlap: -0.1", "gemm_overlap: 1.5"}) {
    const auto lines = gpu_lines_with(bad);
    const std::string path = write_gpu(lines);
    expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, bad), "gemm_overlap", "gemm_overlap");
  }
  EXPECT_DOUBLE_EQ(plain.gemm_k_overhead, 0.0);
  EXPECT_DOUBLE_EQ(load_gpu(write_gpu(gpu_lines_with("gemm_k_overhead: 730"))).gemm_k_overhead, 730.0);
  for (const std::string bad : {"gemm_k_overhead: -1", "gemm_k_overhead: 1e6", "gemm_k_overhead: deep"}) {
    const auto lines = gpu_lines_with(bad);
    const std::string path = write_gpu(lines);
    expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, bad), "gemm_k_overhead", "gemm_k_overhead");
  }
}

TEST_F(HardwareLoaderTest, HbmEfficiencyIsOptionalAndChecked) {
  // Absent: the HBM reaches the default bandwidth curves as they are.
  EXPECT_DOUBLE_EQ(load_gpu(write_gpu(good_gpu_lines())).hbm_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(load_gpu(write_gpu(gpu_lines_with("hbm_efficiency: 0.88"))).hbm_efficiency, 0.88);
  for (const std::string bad : {"hbm_efficiency: 1.2", "hbm_efficiency: 0", "hbm_efficiency: -0.5"}) {
    const auto lines = gpu_lines_with(bad);
    const std::string path = write_gpu(lines);
    expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, bad), "hbm_efficiency",
                   "must be a number in (0, 1]");
  }
  // A bandwidth where a share belongs is a located error too.
  const auto lines = gpu_lines_with("hbm_efficiency: \"4TB/s\"");
  const std::string path = write_gpu(lines);
  const std::string msg = error_of([&] { load_gpu(path); });
  EXPECT_EQ(msg.rfind(path + ":" + std::to_string(line_of(lines, "hbm_efficiency")) + ":", 0), 0u) << msg;
  EXPECT_NE(msg.find("hbm_efficiency"), std::string::npos) << msg;
}

TEST_F(HardwareLoaderTest, BadEnumsNameTheChoices) {
  auto lines = good_gpu_lines();
  replace_line(lines, "host_link:", "host_link: pcie");
  const std::string path = write_gpu(lines);
  expect_located(error_of([&] { load_gpu(path); }), path, line_of(lines, "host_link:"), "host_link",
                 "expected one of pcie_gen4_x16");
}

TEST_F(HardwareLoaderTest, TopologyIndexOutOfRange) {
  auto lines = good_node_lines();
  replace_line(lines, "gpu_groups:", "  gpu_groups: [[0, 1], [2, 4]]");
  const std::string path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "gpu_groups:"), "topology.gpu_groups[1][1]",
                 "GPU index 4 out of range [0, 4)");
  // The last valid index is accepted.
  replace_line(lines, "gpu_groups:", "  gpu_groups: [[0, 1], [2, 3]]");
  EXPECT_NO_THROW(load_node(write_node(lines)));
}

TEST_F(HardwareLoaderTest, TopologyEachGpuInExactlyOneGroup) {
  auto lines = good_node_lines();
  replace_line(lines, "gpu_groups:", "  gpu_groups: [[0, 1], [1, 2, 3]]");
  std::string path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "gpu_groups:"), "topology.gpu_groups[1][0]",
                 "GPU 1 is already in group 0");

  replace_line(lines, "gpu_groups:", "  gpu_groups: [[0, 1], [3]]");
  path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "gpu_groups:"), "topology.gpu_groups",
                 "GPU 2 is in no group");

  lines = good_node_lines();
  replace_line(lines, "drive_groups:", "  drive_groups: [[0], [1], [2]]");
  path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "drive_groups:"),
                 "topology.drive_groups[2][0]", "drive index 2 out of range [0, 2)");
}

TEST_F(HardwareLoaderTest, NodeCountsAndGpuReference) {
  auto lines = good_node_lines();
  replace_line(lines, "gpu_count:", "gpu_count: 0");
  std::string path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "gpu_count:"), "gpu_count", "out of range");

  lines = good_node_lines();
  replace_line(lines, "scale_up_domain_gpus:", "scale_up_domain_gpus: 3");
  path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "scale_up_domain_gpus:"),
                 "scale_up_domain_gpus", "smaller than gpu_count");

  lines = good_node_lines();
  replace_line(lines, "gpu:", "gpu: no-such-gpu");
  path = write_node(lines);
  expect_located(error_of([&] { load_node(path); }), path, line_of(lines, "gpu:"), "gpu",
                 "unknown GPU \"no-such-gpu\"");
}

TEST_F(HardwareLoaderTest, ErrorsInsideTheReferencedGpuNameTheGpuFile) {
  write("test-node.yaml", good_node_lines());
  auto gpu = good_gpu_lines();
  replace_line(gpu, "hbm_bandwidth:", "hbm_bandwidth: 8");
  const std::string gpu_path = write_gpu(gpu);
  const std::string node_path = dir_.file("test-node.yaml");
  expect_located(error_of([&] { load_node(node_path); }), gpu_path, line_of(gpu, "hbm_bandwidth:"), "hbm_bandwidth",
                 "bare number");
}

TEST_F(HardwareLoaderTest, ListCatalogReportsAFileWithoutName) {
  // list_catalog reads under the data root; point it at the temp folder for this test only.
  struct DataRootGuard {
    explicit DataRootGuard(const std::string& root) {
      if (const char* old = std::getenv("ENGRAMSIM_DATA_ROOT")) saved = old;
      had = std::getenv("ENGRAMSIM_DATA_ROOT") != nullptr;
      ::setenv("ENGRAMSIM_DATA_ROOT", root.c_str(), 1);
    }
    ~DataRootGuard() {
      if (had)
        ::setenv("ENGRAMSIM_DATA_ROOT", saved.c_str(), 1);
      else
        ::unsetenv("ENGRAMSIM_DATA_ROOT");
    }
    std::string saved;
    bool had = false;
  };
  fs::create_directories(dir_ / "hardware" / "gpus");
  write("hardware/gpus/b.yaml", {"name: b", "description: \"second\""});
  write("hardware/gpus/a.yaml", {"name: a"});
  write("hardware/gpus/ignored.txt", {"name: zzz"});
  const DataRootGuard guard(dir_.path());
  const auto entries = list_catalog("hardware/gpus");
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].name, "a");
  EXPECT_EQ(entries[0].description, "");
  EXPECT_EQ(entries[1].description, "second");
  write("hardware/gpus/c.yaml", {"description: \"no name\""});
  const std::string msg = error_of([] { list_catalog("hardware/gpus"); });
  EXPECT_NE(msg.find("c.yaml:1:1: name: missing required field"), std::string::npos) << msg;
}
