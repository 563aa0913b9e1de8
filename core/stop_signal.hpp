// SIGINT and SIGTERM as a request to stop at the next boundary a long command chooses (a sweep:
// between points), so that what it wrote stays whole and the run can be resumed. The first signal
// only sets a flag (the one piece of process-wide state: a signal handler can reach nothing else);
// the handler then goes back to the default action, so a second signal ends the process at once.
// Commands that do not install the handlers keep the default action.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace engramsim {

namespace exit_code {
// Stopped by SIGINT or SIGTERM at a boundary, everything written whole: rerun with --resume. Not
// 128 + the signal (130, 143), which a shell reports for a process the signal killed: this one
// exited on its own, and a job script can tell "resume me" from "killed mid-write". (0-4 are in
// core/error.hpp, 5 and 6, a sweep folder refused, in planner/sweep_refusal.hpp.)
inline constexpr int interrupted = 7;
}  // namespace exit_code

// Installs the handlers for SIGINT and SIGTERM (sigaction, SA_RESETHAND).
void install_stop_handlers();
// Whether SIGINT or SIGTERM arrived since install_stop_handlers. Safe from any thread.
bool stop_requested();
// "SIGINT" or "SIGTERM" (the first that arrived), "" when none did.
std::string stop_signal_name();

// Thrown by a command that stopped at a boundary after stop_requested() (exit_code::interrupted).
// `what` says where it stopped and what was kept; `resume_args`, when not empty, are the command's
// arguments (after the program name) that finish the run, for a command that cannot be resumed by
// appending --resume to its own command line.
class RunStopped : public std::runtime_error {
 public:
  explicit RunStopped(const std::string& what, std::vector<std::string> resume_args = {})
      : std::runtime_error(what), resume_args_(std::move(resume_args)) {}
  const std::vector<std::string>& resume_args() const { return resume_args_; }

 private:
  std::vector<std::string> resume_args_;
};

}  // namespace engramsim
