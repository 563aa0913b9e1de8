// `engramsim run --progress`: a line on stderr every couple of wall seconds while a run executes
// ("[tp2-dram] simulated 812.4 s, 1,204 requests done, 9.8 s wall"), from a read-only run probe
// (sim/serving/run_probe.hpp), and a last one when the run ends, so the results are the same with or without it.
// Compare variants that run in parallel share one writer, so their lines do not interleave.
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <ostream>
#include <string>

#include "sim/serving/run_probe.hpp"

namespace engramsim::cli {

struct ProgressWriter {
  std::ostream* out = nullptr;
  std::mutex lock;
  std::chrono::milliseconds every{2000};
};

class RunProgress final : public sim::RunProbe {
 public:
  RunProgress(ProgressWriter& writer, std::string label) : writer_(writer), label_(std::move(label)) {}

  void on_run_start(const sim::Simulation& sim, const sim::Deployment& /*deployment*/) override {
    sim_ = &sim;
    start_ = last_ = std::chrono::steady_clock::now();
  }
  void on_request_done(const sim::RequestRecord& /*record*/) override { ++done_; }
  // The clock is read every 4096 events: cheap next to the events themselves.
  void on_dispatch(const sim::Event& /*event*/) override {
    if ((++events_ & 4095u) != 0 || sim_ == nullptr) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < writer_.every) return;
    last_ = now;
    print(now, "");
  }
  void on_run_end(const sim::Simulation& /*sim*/, const sim::Deployment& /*deployment*/,
                  const sim::RunStats& /*stats*/) override {
    if (sim_ != nullptr) print(std::chrono::steady_clock::now(), ", done");
  }

 private:
  void print(std::chrono::steady_clock::time_point now, const char* tail) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "simulated %.1f s, %llu requests done, %.1f s wall%s", sim_->now().seconds(),
                  static_cast<unsigned long long>(done_), std::chrono::duration<double>(now - start_).count(), tail);
    const std::lock_guard<std::mutex> g(writer_.lock);
    *writer_.out << (label_.empty() ? "" : "[" + label_ + "] ") << buf << "\n" << std::flush;
  }

  ProgressWriter& writer_;
  std::string label_;
  const sim::Simulation* sim_ = nullptr;
  std::chrono::steady_clock::time_point start_, last_;
  std::uint64_t events_ = 0;
  std::uint64_t done_ = 0;
};

}  // namespace engramsim::cli
