// Progress of a sweep on stderr: a redrawn bar (count, rate, ETA) when the stream is a terminal,
// plain lines at most every few seconds otherwise (logs, Slurm output files), nothing when off.
//
// The clock is injectable so rate and ETA are testable. Not thread-safe: the sweep runner calls it
// from its single writer thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

#include "core/enum_names.hpp"

namespace engramsim::planner {

enum class ProgressMode { automatic, bar, lines, none };
// The names `--progress` takes.
inline constexpr EnumNames<ProgressMode, 4> kProgressModeNames{{{
    {ProgressMode::automatic, "auto"},
    {ProgressMode::bar, "bar"},
    {ProgressMode::lines, "lines"},
    {ProgressMode::none, "none"},
}}};

class Progress {
 public:
  using Clock = std::function<double()>;  // seconds, monotonic

  // `total` counts the points this process will run (already finished ones excluded).
  Progress(std::ostream& out, ProgressMode mode, std::size_t total, std::string label, Clock clock = {});

  void point_done(bool infeasible, bool error);
  // Final line (always printed unless mode is none).
  void finish();

  // "1m05s", "3h02m", "12s"; "--" for a non-finite or negative value.
  static std::string format_duration(double seconds);
  // The text of the current status (without control characters), for tests and the final line.
  std::string status_text() const;

 private:
  void draw(bool force);

  std::ostream& out_;
  ProgressMode mode_;
  std::size_t total_;
  std::string label_;
  Clock clock_;
  double start_ = 0.0;
  double last_draw_ = -1e300;
  std::size_t done_ = 0;
  std::size_t infeasible_ = 0;
  std::size_t errors_ = 0;
  bool drew_bar_ = false;
};

// True when `fd` is a terminal (isatty).
bool is_terminal(int fd);

}  // namespace engramsim::planner
