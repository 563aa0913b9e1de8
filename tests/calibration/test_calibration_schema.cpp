// The calibration profile's schema, declared once (hardware/calibration_schema.cpp): it is the key
// table of docs/calibration.md, names the sections, and writes the shipped profile as it was written.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "hardware/calibration_profile.hpp"
#include "hardware/calibration_schema.hpp"
#include "tests/support/docs_table.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

TEST(CalibrationSchema, DocsTableIsTheSchema) {
  test::check_docs_table("docs/calibration.md", "### Profile keys", calibration_profile_schema().markdown());
}

TEST(CalibrationSchema, SectionsInFileOrder) {
  const std::vector<std::string> expected = {
      "memcpy",    "dram_gather", "ssd_random_read", "ssd_mmap", "ssd_sequential",   "hbm",           "hbm_gather",
      "host_link", "uva_gather",  "staged_gather",   "gemm",     "attention_decode", "kernel_launch", "collectives"};
  EXPECT_EQ(calibration_section_names(), expected);
  for (const std::string& n : expected) {
    EXPECT_EQ(is_gpu_section(n), n != "memcpy" && n != "dram_gather" && n.rfind("ssd_", 0) != 0) << n;
    EXPECT_EQ(calibration_profile_schema().at(n).doc.dflt, "absent") << n;
  }
}

TEST(CalibrationSchema, ShippedProfileRendersToItsOwnText) {
  const std::string path = test::source_root() + "/hardware/calibrations/dev-vm-epyc-2c.yaml";
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  const CalibrationProfile p = load_calibration_profile(path);
  EXPECT_EQ(render_calibration_profile(p), text.str());
  const nlohmann::json j = calibration_profile_schema().write(p);
  EXPECT_EQ(j.at("schema"), kCalibrationSchema);
  EXPECT_EQ(j.at("ssd_random_read").at("points").size(), p.ssd_random_read->points.size());
  EXPECT_FALSE(j.contains("hbm"));
}

}  // namespace
}  // namespace engramsim
