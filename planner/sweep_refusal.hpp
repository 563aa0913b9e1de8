// Refusals of a sweep output folder, each with its own exit code so that a job script can tell
// them apart from bad input (2) and from a failure (1) (docs/cli.md, docs/planning.md "Crashes"):
//   inputs_changed (5): the folder's results were computed from other inputs (scenario, settings,
//       the content of a file the scenario reads, or another engramsim), so new results would be
//       mixed with them; the message names what differs;
//   folder_busy (6): another engramsim process owns the folder (or the shard), so this one
//       changed nothing there; rerun when it is done.
// They extend core's exit codes (core/error.hpp), which every command shares.
#pragma once

#include <stdexcept>
#include <string>

namespace engramsim {
namespace exit_code {
inline constexpr int inputs_changed = 5;
inline constexpr int folder_busy = 6;
}  // namespace exit_code

namespace planner {

class SweepRefusal : public std::runtime_error {
 public:
  SweepRefusal(int exit_code, const std::string& message) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace planner
}  // namespace engramsim
