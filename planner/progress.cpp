#include "planner/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace engramsim::planner {
namespace {

// Redraw a bar at most 10 times a second; log a plain line at most every 5 seconds.
constexpr double kBarInterval = 0.1;
constexpr double kLineInterval = 5.0;
constexpr int kBarWidth = 30;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

bool is_terminal(int fd) { return ::isatty(fd) == 1; }

Progress::Progress(std::ostream& out, ProgressMode mode, std::size_t total, std::string label, Clock clock)
    : out_(out),
      mode_(mode == ProgressMode::automatic ? ProgressMode::lines : mode),
      total_(total),
      label_(std::move(label)),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)) {
  start_ = clock_();
}

std::string Progress::format_duration(double s) {
  if (!std::isfinite(s) || s < 0.0) return "--";
  const auto total = static_cast<long long>(std::llround(s));
  const long long h = total / 3600;
  const long long m = (total % 3600) / 60;
  const long long sec = total % 60;
  char buf[48];
  if (h > 0) {
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", h, m);
  } else if (m > 0) {
    std::snprintf(buf, sizeof buf, "%lldm%02llds", m, sec);
  } else {
    std::snprintf(buf, sizeof buf, "%llds", sec);
  }
  return buf;
}

std::string Progress::status_text() const {
  const double elapsed = clock_() - start_;
  const double rate = elapsed > 0.0 ? static_cast<double>(done_) / elapsed : 0.0;
  const double eta = rate > 0.0 ? static_cast<double>(total_ - done_) / rate : NAN;
  char buf[200];
  std::snprintf(buf, sizeof buf, "%zu/%zu points, %.2f points/s, elapsed %s, ETA %s", done_, total_, rate,
                format_duration(elapsed).c_str(), done_ == total_ ? "0s" : format_duration(eta).c_str());
  std::string s = label_.empty() ? std::string(buf) : label_ + ": " + buf;
  if (infeasible_ > 0) s += ", " + std::to_string(infeasible_) + " infeasible";
  if (errors_ > 0) s += ", " + std::to_string(errors_) + " failed";
  return s;
}

void Progress::draw(bool force) {
  if (mode_ == ProgressMode::none) return;
  const double now = clock_();
  const double interval = mode_ == ProgressMode::bar ? kBarInterval : kLineInterval;
  if (!force && now - last_draw_ < interval) return;
  last_draw_ = now;
  if (mode_ == ProgressMode::bar) {
    const double frac = total_ == 0 ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_);
    const int filled = static_cast<int>(frac * kBarWidth);
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.append(static_cast<std::size_t>(kBarWidth - filled), '.');
    // \r returns to the line start; \x1b[K clears what a longer previous line left behind.
    out_ << "\r[" << bar << "] " << status_text() << "\x1b[K" << std::flush;
    drew_bar_ = true;
  } else {
    out_ << status_text() << "\n" << std::flush;
  }
}

void Progress::point_done(bool infeasible, bool error) {
  ++done_;
  if (infeasible) ++infeasible_;
  if (error) ++errors_;
  draw(false);
}

void Progress::finish() {
  if (mode_ == ProgressMode::none) return;
  draw(true);
  if (drew_bar_) out_ << "\n" << std::flush;
}

}  // namespace engramsim::planner
