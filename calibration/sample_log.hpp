// Raw benchmark samples, kept beside a profile as CSV (NAME.samples.csv) so that fits can be
// re-done and checked later.
//
// One row per timed repetition, long format:
//   section,case,x_name,x,y_name,y
//   dram_gather,row=264B dist=uniform threads=2,rows,4000000,seconds,0.412
// `case` identifies the configuration (no commas), x is the swept quantity, y the measurement in
// SI units (seconds, bytes, ...). Values are written with 9 significant digits.
#pragma once

#include <string>
#include <vector>

namespace engramsim::calibration {

struct Sample {
  std::string section;
  std::string case_name;
  std::string x_name;
  double x = 0.0;
  std::string y_name;
  double y = 0.0;
};

class SampleLog {
 public:
  void add(std::string section, std::string case_name, std::string x_name, double x, std::string y_name, double y);
  const std::vector<Sample>& samples() const { return samples_; }
  std::string to_csv() const;

 private:
  std::vector<Sample> samples_;
};

}  // namespace engramsim::calibration
