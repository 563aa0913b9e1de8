#include "calibration/sample_log.hpp"

#include <cstdio>
#include <stdexcept>

namespace engramsim::calibration {
namespace {

void check_field(const std::string& s) {
  if (s.find_first_of(",\n\r\"") != std::string::npos)
    throw std::invalid_argument("sample field \"" + s + "\" holds a comma, quote or newline");
}

std::string g9(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

}  // namespace

void SampleLog::add(std::string section, std::string case_name, std::string x_name, double x, std::string y_name,
                    double y) {
  check_field(section);
  check_field(case_name);
  check_field(x_name);
  check_field(y_name);
  samples_.push_back({std::move(section), std::move(case_name), std::move(x_name), x, std::move(y_name), y});
}

std::string SampleLog::to_csv() const {
  std::string out = "section,case,x_name,x,y_name,y\n";
  for (const auto& s : samples_) {
    out += s.section + ',' + s.case_name + ',' + s.x_name + ',' + g9(s.x) + ',' + s.y_name + ',' + g9(s.y) + '\n';
  }
  return out;
}

}  // namespace engramsim::calibration
