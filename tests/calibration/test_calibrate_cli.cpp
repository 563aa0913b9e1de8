// `engramsim calibrate` end to end: the acceptance run (--quick --only dram,ssd into a temp
// folder, profile loaded back, samples hash checked) and the exit codes for bad input.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "hardware/calibration_profile.hpp"
#include "tests/support/file_text.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

struct Result {
  int code = -1;
  std::string output;
};

Result run_cli(const std::string& args, const test::TempDir& dir) {
  const std::string log = dir.file("cli.log");
  const std::string cmd =
      std::string("'") + engramsim::test::cli_path() + "' calibrate " + args + " > '" + log + "' 2>&1";
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  return r;
}

TEST(CalibrateCli, QuickDramAndSsdWritesALoadableProfile) {
  test::TempDir dir;
  const std::string out = dir.file("p.yaml");
  const Result r = run_cli("--quick --only dram,ssd --ssd-path '" + dir.path().string() + "' --out '" + out + "'", dir);
  ASSERT_EQ(r.code, 0) << r.output;
  // A progress line per benchmark and the section table.
  EXPECT_NE(r.output.find("dram_gather: row 264 B, uniform"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("ssd:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("SECTION"), std::string::npos) << r.output;

  const CalibrationProfile p = load_calibration_profile(out);
  ASSERT_TRUE(p.dram_gather.has_value());
  bool has_264 = false;
  for (const auto& q : p.dram_gather->points) {
    EXPECT_GT(q.rows_per_s, 0.0);
    has_264 = has_264 || q.row_size.value() == 264.0;
  }
  EXPECT_TRUE(has_264);
  EXPECT_GT(p.dram_gather->table_size.value(), 0.0);
  // Every SSD section is either measured or says why not.
  for (const char* s : {"ssd_random_read", "ssd_mmap", "ssd_sequential"})
    EXPECT_TRUE(has_section_data(p, s) || p.not_measured.count(s) == 1) << s;
  // Nothing that was not asked for.
  EXPECT_FALSE(p.memcpy.has_value());
  EXPECT_FALSE(p.hbm.has_value());
  EXPECT_EQ(p.provenance.samples_file, "p.samples.csv");
  EXPECT_EQ(verify_samples_file(p, out), "");
  EXPECT_NE(p.provenance.options.find("--quick"), std::string::npos);
  // The scratch file is gone: only the profile, its samples and the log remain.
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"cli.log", "p.samples.csv", "p.yaml"}));
}

TEST(CalibrateCli, BadInputExitsWithTwo) {
  test::TempDir dir;
  const std::string out = " --out '" + dir.file("p.yaml") + "'";
  Result r = run_cli("--only dram,disk" + out, dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--only"), std::string::npos) << r.output;
  r = run_cli("--only ssd --ssd-path '" + dir.file("missing") + "'" + out, dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--ssd-path"), std::string::npos) << r.output;
  r = run_cli("--only ssd --ssd-size 12 --ssd-path '" + dir.path().string() + "'" + out, dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("--ssd-size"), std::string::npos) << r.output;
  r = run_cli("--only memcpy --out '" + dir.file("no/such/folder/p.yaml") + "'", dir);
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_cli("--only memcpy --node no-such-node" + out, dir);
  EXPECT_EQ(r.code, 2) << r.output;
  r = run_cli("--only gemm --gemm-shapes 1x2" + out, dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("p.yaml")));
  // --out onto a file that is not a profile, or onto a folder, is refused before measuring.
  { std::ofstream(dir.file("scenario.yaml")) << "name: keep\n"; }
  r = run_cli("--only memcpy --out '" + dir.file("scenario.yaml") + "'", dir);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_EQ(test::file_text(dir.file("scenario.yaml")), "name: keep\n");
  r = run_cli("--only memcpy --out '" + dir.path().string() + "'", dir);
  EXPECT_EQ(r.code, 2) << r.output;
}

}  // namespace
}  // namespace engramsim
