// A comma-separated data file of the repository (models/data/...), as the fit tests read it: a header
// line naming the columns, then one row per line; cells are looked up by column name. A file that
// cannot be opened, a row with another number of cells than the header, an unknown column or a cell
// that is not a number where one is asked for is a test failure naming the file (and line or column),
// never a silently shorter table.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/test_paths.hpp"

namespace engramsim::test {

class CsvTable {
 public:
  // `relative_path` below the source tree, e.g. "models/data/cdna3-fp8-small-m/gemm_us.csv".
  explicit CsvTable(const std::string& relative_path) : path_(relative_path) {
    std::ifstream in(source_root() + "/" + relative_path);
    if (!in) {
      ADD_FAILURE() << relative_path << ": cannot be opened";
      return;
    }
    std::string line;
    if (std::getline(in, line)) header_ = split(line);
    for (int number = 2; std::getline(in, line); ++number) {
      if (line.empty()) continue;
      std::vector<std::string> cells = split(line);
      if (cells.size() != header_.size()) {
        ADD_FAILURE() << relative_path << ":" << number << ": " << cells.size() << " cells, the header has "
                      << header_.size();
        continue;
      }
      rows_.push_back(std::move(cells));
    }
  }

  std::size_t size() const { return rows_.size(); }

  // One value per row, in file order: make(*this, row index).
  template <class Make>
  auto map(Make make) const {
    std::vector<decltype(make(*this, std::size_t{0}))> out;
    out.reserve(rows_.size());
    for (std::size_t i = 0; i < rows_.size(); ++i) out.push_back(make(*this, i));
    return out;
  }

  const std::string& text(std::size_t row, const std::string& column) const { return rows_[row][index(column)]; }

  double number(std::size_t row, const std::string& column) const {
    const std::string& cell = text(row, column);
    std::size_t used = 0;
    double value = 0.0;
    try {
      value = std::stod(cell, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != cell.size())
      ADD_FAILURE() << path_ << ": row " << row + 2 << ", column " << column << ": \"" << cell << "\" is not a number";
    return value;
  }

 private:
  static std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) out.push_back(cell);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
  }

  std::size_t index(const std::string& column) const {
    const auto it = std::find(header_.begin(), header_.end(), column);
    if (it == header_.end()) {
      ADD_FAILURE() << path_ << ": no column " << column;
      throw std::out_of_range(path_ + ": no column " + column);
    }
    return static_cast<std::size_t>(it - header_.begin());
  }

  std::string path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace engramsim::test
