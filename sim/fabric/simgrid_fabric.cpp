#include "sim/fabric/simgrid_fabric.hpp"

#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "core/number_text.hpp"

#ifndef ENGRAMSIM_SIMGRID_FABRIC_HELPER
#define ENGRAMSIM_SIMGRID_FABRIC_HELPER ""
#endif

extern char** environ;

namespace engramsim::fabric {
namespace {

// Doubles cross the pipe with 17 significant digits, which round-trips exactly.
std::string exact(double v) { return round_trip_number(v); }

}  // namespace

std::string simgrid_helper_path(const FabricOptions& options) {
  if (!options.simgrid_helper.empty()) return options.simgrid_helper;
  if (const char* env = std::getenv("ENGRAMSIM_SIMGRID_FABRIC"); env != nullptr && *env != '\0') return env;
  return ENGRAMSIM_SIMGRID_FABRIC_HELPER;
}

bool simgrid_fabric_available(const FabricOptions& options) {
  const std::string path = simgrid_helper_path(options);
  return !path.empty() && ::access(path.c_str(), X_OK) == 0;
}

SimGridFabric::SimGridFabric(FabricTopology topology, const FabricOptions& options) : topology_(std::move(topology)) {
  const std::string helper = simgrid_helper_path(options);
  if (helper.empty())
    throw std::runtime_error(
        "fabric backend simgrid: this build has no SimGrid helper "
        "(SimGrid 3.32 was not found at configure time)");
  if (options.simgrid_bound_slots < 0)
    throw std::invalid_argument("fabric backend simgrid: simgrid_bound_slots must be >= 0");

  // A socket pair rather than pipes: writes use MSG_NOSIGNAL, so a dead helper is an exception
  // here instead of a SIGPIPE that would kill the whole simulator.
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::runtime_error(std::string("fabric backend simgrid: socketpair: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::string arg0 = helper;
  char* argv[] = {arg0.data(), nullptr};
  const int rc = ::posix_spawn(&child_, helper.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    throw std::runtime_error("fabric backend simgrid: cannot start " + helper + ": " + std::strerror(rc));
  }
  fd_ = fds[0];

  std::ostringstream platform;
  for (const Resource& r : topology_.resources()) platform << "resource " << exact(r.capacity.value()) << '\n';
  for (const Route& route : topology_.routes()) {
    platform << "route " << route.hops.size();
    for (const ResourceId h : route.hops) platform << ' ' << h;
    platform << '\n';
  }
  platform << "bound-slots " << options.simgrid_bound_slots << "\nseal\n";
  try {
    send(platform.str());
    if (const std::string answer = read_line(); answer != "ready")
      throw std::runtime_error("fabric backend simgrid: unexpected answer '" + answer + "'");
  } catch (...) {
    // No destructor runs for a half-built object: close the channel and reap the helper here.
    ::close(fd_);
    int status = 0;
    ::waitpid(child_, &status, 0);
    throw;
  }
}

SimGridFabric::~SimGridFabric() {
  if (fd_ >= 0) {
    static const char quit[] = "quit\n";
    (void)::send(fd_, quit, sizeof quit - 1, MSG_NOSIGNAL);
    ::close(fd_);
  }
  if (child_ > 0) {
    int status = 0;
    ::waitpid(child_, &status, 0);
  }
}

void SimGridFabric::send(const std::string& text) {
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::send(fd_, text.data() + off, text.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("fabric backend simgrid: helper is gone (send failed)");
    off += static_cast<std::size_t>(n);
  }
}

std::string SimGridFabric::read_line() {
  for (;;) {
    if (const auto nl = inbox_.find('\n'); nl != std::string::npos) {
      std::string line = inbox_.substr(0, nl);
      inbox_.erase(0, nl + 1);
      if (line.rfind("error ", 0) == 0) throw std::runtime_error("fabric backend simgrid: " + line.substr(6));
      return line;
    }
    char buf[4096];
    const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("fabric backend simgrid: helper closed its output");
    inbox_.append(buf, static_cast<std::size_t>(n));
  }
}

FlowId SimGridFabric::start_flow(const FlowSpec& spec) {
  validate_flow_spec(topology_, now_, spec);
  const FlowId id = next_id_++;
  const Time activation = spec.start + topology_.route(spec.route).latency;
  const double bytes = std::round(spec.size.value());
  std::ostringstream line;
  line << "flow " << id << ' ' << activation.count_ns() << ' ' << static_cast<std::uint64_t>(bytes) << ' ' << spec.route
       << ' ' << exact(spec.rate_bound ? spec.rate_bound->value() : 0.0) << '\n';
  send(line.str());
  starts_.emplace(id, spec.start);
  next_valid_ = false;
  return id;
}

Time SimGridFabric::next_completion_time() {
  if (next_valid_) return next_cached_;
  Time result = Time::max();
  if (!starts_.empty()) {
    send("next\n");
    const std::string answer = read_line();
    std::istringstream in(answer);
    std::string word, value;
    in >> word >> value;
    if (word != "next") throw std::runtime_error("fabric backend simgrid: unexpected answer '" + answer + "'");
    if (value != "none") result = std::max(now_, ceil_to_ns(std::strtod(value.c_str(), nullptr)));
  }
  next_cached_ = result;
  next_valid_ = true;
  return result;
}

std::vector<FlowCompletion> SimGridFabric::advance_to(Time t) {
  if (t < now_) throw std::invalid_argument("fabric: advance_to(" + to_string(t) + ") before now " + to_string(now_));
  send("advance " + std::to_string(t.count_ns()) + "\n");
  std::vector<FlowCompletion> out;
  for (;;) {
    const std::string line = read_line();
    std::istringstream in(line);
    std::string word;
    in >> word;
    if (word == "at") break;
    FlowId id = 0;
    std::string finish;
    in >> id >> finish;
    const auto it = starts_.find(id);
    if (word != "done" || !in || it == starts_.end())
      throw std::runtime_error("fabric backend simgrid: unexpected answer '" + line + "'");
    // The helper runs a hair past t (see its advance()); its finishes round to <= t.
    out.push_back(FlowCompletion{id, it->second, std::min(t, ceil_to_ns(std::strtod(finish.c_str(), nullptr)))});
    starts_.erase(it);
  }
  now_ = t;
  next_valid_ = false;
  sort_completions(out);
  return out;
}

}  // namespace engramsim::fabric
