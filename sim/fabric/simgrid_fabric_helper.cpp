// engramsim-simgrid-fabric: runs a fabric on SimGrid 3.32's flow model, driven line by line.
//
// SimGrid allows one engine per process, so the simgrid backend (simgrid_fabric.cpp) runs this
// program as a child and talks to it over stdin/stdout. No actors: activities are started from
// maestro between Engine::run_until() calls, which 3.32 supports (it is how its DAG examples run).
//
// Protocol (one command per line; numbers in C locale, doubles with 17 significant digits):
//   resource CAPACITY_BPS            declare resource i (in order)
//   route N R0 .. RN-1               declare route k (in order) over resources
//   bound-slots K                    private bound links per route (see below)
//   seal                             build the platform; answers "ready"
//   flow ID ACTIVATION_NS BYTES ROUTE BOUND_BPS   (BOUND_BPS 0 = none); no answer
//   advance T_NS                     run to T; answers "done ID FINISH_S"* then "at T_NS"
//   next                             answers "next FINISH_S" or "next none": the first completion
//                                    if nothing else is started (found in a fork()ed probe, since
//                                    a SimGrid engine cannot be rolled back)
//   quit
// Errors answer "error MESSAGE" and exit with status 1.
//
// Configuration that makes SimGrid's sharing plain max-min (see docs/fabric.md):
//   network/model CM02, latency and bandwidth factors 1, weight-S 0, crosstraffic off, TCP-gamma 0.
// CM02 still weighs each flow's share by its route latency (RTT unfairness), so links carry no
// latency here; the client starts each comm at start + route latency instead, which is the same
// "latency first, then bandwidth" semantics with equal weights. Comm::set_rate is ignored for
// host-to-host comms in 3.32, so a flow's rate bound is a private link of that bandwidth appended
// to its route (one of K slots per route, reconfigured with set_bandwidth before each use).
#include <xbt/log.h>
#include <simgrid/s4u.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct FlowReq {
  std::uint64_t id;
  std::int64_t activation_ns;
  std::uint64_t bytes;
  std::size_t route;
  double bound;
};

struct Running {
  std::uint64_t id;
  sg4::CommPtr comm;
  std::size_t route;
  int slot;  // -1 when unbounded
};

// PREFIX followed by the decimal index. Built by appending: GCC 12 reports a false -Wrestrict on
// `"literal" + std::to_string(i)` here.
std::string indexed(const char* prefix, std::size_t i) {
  std::string s(prefix);
  s.append(std::to_string(i));
  return s;
}

[[noreturn]] void fail(const std::string& msg) {
  std::printf("error %s\n", msg.c_str());
  std::fflush(stdout);
  // Leave without SimGrid's teardown: in-flight activities make it noisy and nothing needs saving.
  _exit(1);
}

class Driver {
 public:
  explicit Driver(sg4::Engine& engine) : engine_(engine) {}

  void add_resource(double capacity) { capacities_.push_back(capacity); }
  void add_route(std::vector<std::size_t> hops) {
    for (const std::size_t h : hops)
      if (h >= capacities_.size()) fail("route uses an undeclared resource");
    routes_.push_back(std::move(hops));
  }
  void set_bound_slots(int k) { bound_slots_ = k; }

  void seal() {
    auto* zone = sg4::create_full_zone("fabric");
    for (std::size_t i = 0; i < capacities_.size(); ++i) {
      links_.push_back(zone->create_link(indexed("r", i), capacities_[i])
                           ->set_latency(0.0)
                           ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED));
    }
    const auto connect = [zone](sg4::Host* a, sg4::Host* b, const std::vector<sg4::Link*>& links) {
      std::vector<sg4::LinkInRoute> in_route;
      for (auto* l : links) in_route.emplace_back(l);
      zone->add_route(a->get_netpoint(), b->get_netpoint(), nullptr, nullptr, in_route, false);
    };
    for (std::size_t k = 0; k < routes_.size(); ++k) {
      std::vector<sg4::Link*> links;
      for (const std::size_t h : routes_[k]) links.push_back(links_[h]);
      const std::string base = indexed("k", k);
      Endpoints ends;
      ends.src = zone->create_host(base + "s", 1e9);
      ends.dst = zone->create_host(base + "d", 1e9);
      connect(ends.src, ends.dst, links);
      for (int j = 0; j < bound_slots_; ++j) {
        const std::string slot = base + indexed("b", static_cast<std::size_t>(j));
        auto* bound_link =
            zone->create_link(slot, 1.0)->set_latency(0.0)->set_sharing_policy(sg4::Link::SharingPolicy::SHARED);
        auto with_bound = links;
        with_bound.push_back(bound_link);
        BoundSlot s{zone->create_host(slot + "s", 1e9), zone->create_host(slot + "d", 1e9), bound_link, false};
        connect(s.src, s.dst, with_bound);
        ends.slots.push_back(s);
      }
      endpoints_.push_back(std::move(ends));
    }
    zone->seal();
    sg4::Activity::on_completion_cb([this](const sg4::Activity& a) { on_completion(a); });
  }

  void add_flow(const FlowReq& f) {
    if (f.route >= routes_.size()) fail("flow on an undeclared route");
    if (f.activation_ns < now_ns_) fail("flow activates in the past");
    pending_.emplace(std::make_pair(f.activation_ns, f.id), f);
  }

  // Runs to t_ns, starting comms as they activate. The engine runs a hair past t_ns (the slack
  // of the client's ceil_to_ns) so that every comm the client would round to <= t_ns is done;
  // comms activating at t_ns then start at that clock, 1e-15 relative late at most.
  void advance(std::int64_t t_ns) {
    while (!pending_.empty() && pending_.begin()->first.first <= t_ns) activate_next_batch();
    const double t = static_cast<double>(t_ns);
    run_until((t + std::max(1e-6, t * 1e-15)) * 1e-9);
    now_ns_ = t_ns;
  }

  // The first completion from here if nothing else is started; runs in a throwaway child.
  void probe_and_exit() {
    probe_ = true;
    while (!pending_.empty()) activate_next_batch();
    engine_.run();
    std::printf("next none\n");
    std::fflush(stdout);
    _exit(0);
  }

  std::vector<std::pair<std::uint64_t, double>> take_done() { return std::exchange(done_, {}); }

 private:
  struct BoundSlot {
    sg4::Host* src;
    sg4::Host* dst;
    sg4::Link* link;
    bool busy;
  };
  struct Endpoints {
    sg4::Host* src = nullptr;
    sg4::Host* dst = nullptr;
    std::vector<BoundSlot> slots;
  };

  void run_until(double t) {
    if (t > sg4::Engine::get_clock()) engine_.run_until(t);
    for (auto* a : finished_) running_.erase(a);
    finished_.clear();
  }

  void activate_next_batch() {
    const std::int64_t a = pending_.begin()->first.first;
    run_until(static_cast<double>(a) * 1e-9);
    while (!pending_.empty() && pending_.begin()->first.first == a) {
      start(pending_.begin()->second);
      pending_.erase(pending_.begin());
    }
  }

  void start(const FlowReq& f) {
    if (f.bytes == 0) {  // SimGrid never starts an empty comm; it completes on activation
      record(f.id, sg4::Engine::get_clock());
      return;
    }
    Endpoints& ends = endpoints_[f.route];
    sg4::Host* src = ends.src;
    sg4::Host* dst = ends.dst;
    int slot = -1;
    if (f.bound > 0.0) {
      for (std::size_t j = 0; j < ends.slots.size() && slot < 0; ++j)
        if (!ends.slots[j].busy) slot = static_cast<int>(j);
      if (slot < 0)
        fail("more than " + std::to_string(ends.slots.size()) + " rate-bounded flows in flight on route " +
             std::to_string(f.route) + " (raise FabricOptions::simgrid_bound_slots)");
      BoundSlot& s = ends.slots[static_cast<std::size_t>(slot)];
      s.busy = true;
      s.link->set_bandwidth(f.bound);
      src = s.src;
      dst = s.dst;
    }
    sg4::CommPtr comm = sg4::Comm::sendto_init();
    comm->set_payload_size(f.bytes);
    comm->set_source(src);
    comm->set_destination(dst);  // starts the comm
    running_.emplace(comm.get(), Running{f.id, comm, f.route, slot});
  }

  void on_completion(const sg4::Activity& a) {
    const auto it = running_.find(&a);
    if (it == running_.end()) return;
    if (it->second.slot >= 0)
      endpoints_[it->second.route].slots[static_cast<std::size_t>(it->second.slot)].busy = false;
    record(it->second.id, a.get_finish_time());
    // Dropping the last reference inside SimGrid's callback would free the activity under it.
    finished_.push_back(&a);
  }

  void record(std::uint64_t id, double finish) {
    if (probe_) report_probe(finish);
    done_.emplace_back(id, finish);
  }

  [[noreturn]] static void report_probe(double finish) {
    std::printf("next %.17g\n", finish);
    std::fflush(stdout);
    _exit(0);
  }

  sg4::Engine& engine_;
  std::vector<double> capacities_;
  std::vector<std::vector<std::size_t>> routes_;
  int bound_slots_ = 0;
  std::vector<sg4::Link*> links_;
  std::vector<Endpoints> endpoints_;
  std::map<std::pair<std::int64_t, std::uint64_t>, FlowReq> pending_;
  std::unordered_map<const sg4::Activity*, Running> running_;
  std::vector<const sg4::Activity*> finished_;
  std::vector<std::pair<std::uint64_t, double>> done_;
  std::int64_t now_ns_ = 0;
  bool probe_ = false;
};

void configure() {
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/latency-factor:1");
  sg4::Engine::set_config("network/bandwidth-factor:1");
  sg4::Engine::set_config("network/weight-S:0");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:0");
  // Tighter than the defaults (1e-5 relative saturation, 1e-9 s timing) so that agreement with
  // the native solver is limited by double rounding, not by SimGrid's tolerances.
  sg4::Engine::set_config("maxmin/precision:1e-12");
  sg4::Engine::set_config("surf/precision:1e-12");
}

}  // namespace

int main(int argc, char** argv) {
  // Only warnings and errors from SimGrid: its INFO lines (configuration changes) go to stderr and
  // would clutter every test log.
  std::vector<std::string> args(argv, argv + argc);
  args.emplace_back("--log=root.thresh:warning");
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  int cargc = static_cast<int>(cargs.size());
  sg4::Engine engine(&cargc, cargs.data());
  configure();
  Driver driver(engine);

  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string cmd;
    in >> cmd;
    if (cmd == "resource") {
      double cap = 0;
      if (!(in >> cap) || !(cap > 0)) fail("bad resource line: " + line);
      driver.add_resource(cap);
    } else if (cmd == "route") {
      std::size_t n = 0;
      in >> n;
      std::vector<std::size_t> hops(n);
      for (auto& h : hops) in >> h;
      if (!in || n == 0) fail("bad route line: " + line);
      driver.add_route(std::move(hops));
    } else if (cmd == "bound-slots") {
      int k = 0;
      if (!(in >> k) || k < 0) fail("bad bound-slots line: " + line);
      driver.set_bound_slots(k);
    } else if (cmd == "seal") {
      driver.seal();
      std::printf("ready\n");
    } else if (cmd == "flow") {
      FlowReq f{};
      if (!(in >> f.id >> f.activation_ns >> f.bytes >> f.route >> f.bound)) fail("bad flow line: " + line);
      driver.add_flow(f);
      continue;  // no answer
    } else if (cmd == "advance") {
      std::int64_t t = 0;
      if (!(in >> t)) fail("bad advance line: " + line);
      driver.advance(t);
      for (const auto& [id, finish] : driver.take_done()) std::printf("done %" PRIu64 " %.17g\n", id, finish);
      std::printf("at %" PRId64 "\n", t);
    } else if (cmd == "next") {
      std::fflush(stdout);
      const pid_t pid = fork();
      if (pid < 0) fail("fork failed");
      if (pid == 0) driver.probe_and_exit();
      int status = 0;
      if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail("look-ahead probe failed");
      continue;  // the probe answered
    } else if (cmd == "quit") {
      break;
    } else {
      fail("unknown command: " + line);
    }
    std::fflush(stdout);
  }
  std::fflush(stdout);
  // See fail(): no SimGrid teardown with activities possibly still in flight.
  _exit(0);
}
