// The default efficiencies and collective fits against their data files (models/data/default-*):
// the build embeds the CSVs, and these tests read them again at run time and check the functions
// return exactly their numbers, every curve of every op class included, and that a curve name outside
// the known ones is an error.
#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/collectives.hpp"
#include "models/efficiency.hpp"
#include "tests/support/test_paths.hpp"

namespace engramsim {
namespace {

// A CSV of models/data: the header's column names and the rows' cells (no quoting in these files).
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;

  std::size_t column(const std::string& name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return i;
    throw std::out_of_range("no column " + name);
  }
};

std::vector<std::string> split(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> cells(1);
  for (char ch : line) {
    if (ch == ',')
      cells.emplace_back();
    else
      cells.back() += ch;
  }
  return cells;
}

Table read_table(const std::string& relative_path) {
  const std::string path = test::source_root() + "/" + relative_path;
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  Table t;
  std::string line;
  if (std::getline(in, line)) t.columns = split(line);
  while (std::getline(in, line)) {
    if (line.empty() || line == "\r") continue;
    t.rows.push_back(split(line));
    EXPECT_EQ(t.rows.back().size(), t.columns.size()) << relative_path << ": " << line;
    EXPECT_FALSE(t.rows.back().back().empty()) << relative_path << ": a row without a source: " << line;
  }
  return t;
}

const char* const kCurves = "models/data/default-efficiencies/curves.csv";
const char* const kKernelTimes = "models/data/default-efficiencies/kernel_times.csv";
const char* const kNccl = "models/data/default-collectives/nccl_dgx_h100.csv";
const char* const kDeepEp = "models/data/default-collectives/deepep_h800.csv";

// Every curve of an Efficiencies by the name the data file gives it.
std::map<std::string, const EfficiencyCurve*> curves_by_name(const Efficiencies& e) {
  std::map<std::string, const EfficiencyCurve*> out;
  for (std::size_t i = 0; i < kOpClassCount; ++i) {
    const auto c = static_cast<OpClass>(i);
    out[std::string(to_string(c)) + ".flops"] = &e.of(c).flops;
    out[std::string(to_string(c)) + ".bandwidth"] = &e.of(c).bandwidth;
  }
  out["host_gather_by_row_bytes"] = &e.host_gather_by_row_bytes;
  out["host_copy_by_bytes"] = &e.host_copy_by_bytes;
  out["cpu_gather_by_row_bytes"] = &e.cpu_gather_by_row_bytes;
  return out;
}

TEST(DefaultData, FilesHaveTheExpectedColumns) {
  using Columns = std::vector<std::string>;
  EXPECT_EQ(read_table(kCurves).columns, (Columns{"curve", "key", "efficiency", "source"}));
  EXPECT_EQ(read_table(kKernelTimes).columns, (Columns{"name", "ns", "source"}));
  EXPECT_EQ(read_table(kNccl).columns, (Columns{"fit", "ranks", "alpha_s", "seconds_per_byte", "source"}));
  EXPECT_EQ(read_table(kDeepEp).columns, (Columns{"kernels", "alpha_s", "nic_efficiency", "source"}));
}

TEST(DefaultData, EfficiencyCurvesAreTheFile) {
  const Table t = read_table(kCurves);
  const std::size_t curve = t.column("curve"), key = t.column("key"), eff = t.column("efficiency");
  std::map<std::string, std::vector<std::pair<double, double>>> file;
  for (const auto& row : t.rows) file[row[curve]].emplace_back(std::stod(row[key]), std::stod(row[eff]));

  const Efficiencies e = default_efficiencies();
  const auto known = curves_by_name(e);
  for (const auto& [name, points] : file) EXPECT_TRUE(known.count(name)) << kCurves << ": unknown curve " << name;
  for (const auto& [name, curve_ptr] : known) {
    const auto it = file.find(name);
    if (it == file.end()) {
      ADD_FAILURE() << kCurves << ": no rows for curve " << name;
      continue;
    }
    const auto& points = curve_ptr->points();
    ASSERT_EQ(points.size(), it->second.size()) << name;
    for (std::size_t i = 0; i < points.size(); ++i) {
      EXPECT_EQ(points[i].first, it->second[i].first) << name << " point " << i;
      EXPECT_EQ(points[i].second, it->second[i].second) << name << " point " << i;
    }
  }
}

TEST(DefaultData, EveryOpClassHasBothCurves) {
  const Table t = read_table(kCurves);
  const std::size_t curve = t.column("curve");
  for (std::size_t i = 0; i < kOpClassCount; ++i) {
    const std::string op = to_string(static_cast<OpClass>(i));
    for (const char* part : {".flops", ".bandwidth"}) {
      bool found = false;
      for (const auto& row : t.rows) found = found || row[curve] == op + part;
      EXPECT_TRUE(found) << kCurves << ": no rows for " << op << part;
    }
  }
}

TEST(DefaultData, CurveNamesOutsideTheListAreAnError) {
  Efficiencies e;
  EXPECT_EQ(&efficiency_curve(e, "grouped_gemm.bandwidth"), &e.of(OpClass::grouped_gemm).bandwidth);
  EXPECT_EQ(&efficiency_curve(e, "engram_gather.flops"), &e.of(OpClass::engram_gather).flops);
  EXPECT_EQ(&efficiency_curve(e, "host_copy_by_bytes"), &e.host_copy_by_bytes);
  for (const char* name :
       {"gemm.flop", "gemm", "gemm.", ".flops", "attention.flops", "gemm.flops.x", "host_copy", "GEMM.flops", ""})
    EXPECT_THROW(efficiency_curve(e, name), std::invalid_argument) << "'" << name << "'";
}

TEST(DefaultData, KernelTimesAreTheFile) {
  const Table t = read_table(kKernelTimes);
  const std::size_t name = t.column("name"), ns = t.column("ns");
  const Efficiencies e = default_efficiencies();
  std::map<std::string, long long> file;
  for (const auto& row : t.rows) file[row[name]] = std::stoll(row[ns]);
  ASSERT_EQ(file.size(), 2u);
  ASSERT_TRUE(file.count("kernel_overhead"));
  ASSERT_TRUE(file.count("kernel_min_duration"));
  EXPECT_EQ(e.kernel_overhead.count_ns(), file["kernel_overhead"]);
  EXPECT_EQ(e.kernel_min_duration.count_ns(), file["kernel_min_duration"]);
}

TEST(DefaultData, NcclFitsAreTheFile) {
  const Table t = read_table(kNccl);
  const std::size_t fit = t.column("fit"), ranks = t.column("ranks"), alpha = t.column("alpha_s"),
                    beta = t.column("seconds_per_byte");
  const CollectiveParams p = dgx_h100_nccl_defaults();
  std::size_t all_reduce = 0, point_to_point = 0;
  for (const auto& row : t.rows) {
    const double alpha_s = std::stod(row[alpha]), seconds_per_byte = std::stod(row[beta]);
    if (row[fit] == "all_reduce") {
      ASSERT_LT(all_reduce, p.all_reduce.size());
      const AllReduceFit& f = p.all_reduce[all_reduce++];
      EXPECT_EQ(f.ranks, std::stoi(row[ranks]));
      EXPECT_EQ(f.model.alpha_s, alpha_s) << "ranks " << f.ranks;
      EXPECT_EQ(f.model.seconds_per_byte, seconds_per_byte) << "ranks " << f.ranks;
    } else if (row[fit] == "point_to_point") {
      ++point_to_point;
      EXPECT_EQ(row[ranks], "2");
      EXPECT_EQ(p.point_to_point.alpha_s, alpha_s);
      EXPECT_EQ(p.point_to_point.seconds_per_byte, seconds_per_byte);
    } else {
      ADD_FAILURE() << kNccl << ": unknown fit " << row[fit];
    }
  }
  EXPECT_EQ(all_reduce, p.all_reduce.size());
  EXPECT_EQ(point_to_point, 1u);
}

TEST(DefaultData, DeepEpFitsAreTheFile) {
  const Table t = read_table(kDeepEp);
  const std::size_t kernels = t.column("kernels"), alpha = t.column("alpha_s"), eff = t.column("nic_efficiency");
  const ScaleOutParams p = deepep_h800_defaults();
  std::map<std::string, AlphaBetaModel> file;
  for (const auto& row : t.rows) file[row[kernels]] = {std::stod(row[alpha]), 1.0 / std::stod(row[eff])};
  ASSERT_EQ(file.size(), 2u);
  ASSERT_TRUE(file.count("normal"));
  ASSERT_TRUE(file.count("low_latency"));
  EXPECT_EQ(p.normal.alpha_s, file["normal"].alpha_s);
  EXPECT_EQ(p.normal.seconds_per_byte, file["normal"].seconds_per_byte);
  EXPECT_EQ(p.low_latency.alpha_s, file["low_latency"].alpha_s);
  EXPECT_EQ(p.low_latency.seconds_per_byte, file["low_latency"].seconds_per_byte);
  // The collective defaults carry the DeepEP fits as their scale-out part.
  EXPECT_EQ(dgx_h100_nccl_defaults().scale_out.low_latency.seconds_per_byte, p.low_latency.seconds_per_byte);
}

}  // namespace
}  // namespace engramsim
