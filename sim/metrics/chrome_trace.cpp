#include "sim/metrics/chrome_trace.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <stdexcept>

#include "core/staged_file.hpp"

namespace engramsim::sim {
namespace {

constexpr int kReplicaTid = 1000;
constexpr int kGpuTid = 2000;
constexpr int kRouteTid = 10000;
constexpr int kLanes = 64;  // lanes per route before overlapping flows share the last one

std::string us(Time t) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(t.count_ns()) * 1e-3);
  return buf;
}

std::string num(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (static_cast<unsigned char>(c) < 0x20) continue;
    out.push_back(c);
  }
  return out + "\"";
}

}  // namespace

ChromeTraceRecorder::ChromeTraceRecorder(ChromeTraceOptions options, std::vector<int> replica_node)
    : options_(std::move(options)), replica_node_(std::move(replica_node)) {}

bool ChromeTraceRecorder::keep(Time start) {
  if (start >= options_.window) return false;
  if (events_.size() >= options_.max_events) {
    ++dropped_;
    return false;
  }
  return true;
}

int ChromeTraceRecorder::route_index(int node, const std::string& route) {
  const auto [it, inserted] = routes_.try_emplace({node, route}, static_cast<int>(route_names_.size()));
  if (inserted) route_names_.emplace_back(node, route);
  return it->second;
}

void ChromeTraceRecorder::on_step(const StepRecord& s) {
  if (!keep(s.start)) return;
  Item it;
  it.start = s.start;
  it.duration = s.cost.total;
  it.pid = s.replica < replica_node_.size() ? replica_node_[s.replica] : 0;
  it.tid = kReplicaTid + static_cast<int>(s.replica);
  it.kind = 0;
  it.name = "step";
  it.args = "{\"prefill_tokens\":" + std::to_string(s.prefill_tokens) +
            ",\"decode_positions\":" + std::to_string(s.decode_positions) +
            ",\"engram_stall_us\":" + num(s.cost.engram_stall.micros()) +
            ",\"engram_fetch_us\":" + num(s.cost.engram_fetch.micros());
  if (s.engram_in_run)
    it.args += ",\"host_bytes\":" + num(s.engram.host_bytes) + ",\"ssd_pages\":" + num(s.engram.ssd_pages) +
               ",\"hbm_hit_lookups\":" + num(s.engram.hbm_hit_lookups);
  it.args += "}";
  events_.push_back(std::move(it));
}

void ChromeTraceRecorder::on_flow(int node, const std::string& route, const char* what, std::uint32_t replica, int gpu,
                                  Time start, Time finish, double bytes) {
  if (!keep(start)) return;
  Item it;
  it.start = start;
  it.duration = finish - start;
  it.pid = node;
  it.kind = 2;
  it.route = route_index(node, route);
  it.name = what;
  it.args =
      "{\"replica\":" + std::to_string(replica) + ",\"gpu\":" + std::to_string(gpu) + ",\"bytes\":" + num(bytes) + "}";
  events_.push_back(std::move(it));
}

void ChromeTraceRecorder::on_layer_fetch(int node, int gpu, std::uint32_t replica, int layer, Time issue, Time done,
                                         double bytes) {
  if (!keep(issue)) return;
  Item it;
  it.start = issue;
  it.duration = done - issue;
  it.pid = node;
  it.tid = kGpuTid + gpu;
  it.kind = 1;
  it.name = "engram layer " + std::to_string(layer);
  it.args = "{\"replica\":" + std::to_string(replica) + ",\"bytes\":" + num(bytes) + "}";
  events_.push_back(std::move(it));
}

void ChromeTraceRecorder::write(std::ostream& os) const {
  std::vector<const Item*> order;
  order.reserve(events_.size());
  for (const Item& it : events_) order.push_back(&it);
  std::stable_sort(order.begin(), order.end(), [](const Item* a, const Item* b) {
    if (a->start != b->start) return a->start < b->start;
    return a->duration > b->duration;  // enclosing events first
  });
  // Lanes per route: the first lane whose last flow has ended.
  std::vector<std::vector<Time>> lane_end(route_names_.size());
  std::vector<int> tids(order.size());
  std::set<std::pair<int, int>> threads;  // (pid, tid)
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Item& it = *order[i];
    int tid = it.tid;
    if (it.kind == 2) {
      auto& ends = lane_end[static_cast<std::size_t>(it.route)];
      std::size_t lane = 0;
      while (lane < ends.size() && ends[lane] > it.start) ++lane;
      if (lane == ends.size() && ends.size() < kLanes) ends.push_back(Time::zero());
      lane = std::min(lane, ends.size() - 1);
      ends[lane] = std::max(ends[lane], it.start + it.duration);
      tid = kRouteTid + it.route * kLanes + static_cast<int>(lane);
    }
    tids[i] = tid;
    threads.emplace(it.pid, tid);
  }

  os << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"engramsim\",\"window_s\":"
     << num(options_.window.seconds()) << ",\"events\":" << events_.size() << ",\"dropped\":" << dropped_
     << "},\"traceEvents\":[\n";
  bool first = true;
  const auto sep = [&] {
    if (!first) os << ",\n";
    first = false;
  };
  std::set<int> pids;
  for (const auto& [pid, tid] : threads) pids.insert(pid);
  for (const int pid : pids) {
    sep();
    os << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << pid << ",\"tid\":0,\"args\":{\"name\":\"node " << pid
       << "\"}}";
  }
  for (const auto& [pid, tid] : threads) {
    std::string name;
    if (tid >= kRouteTid) {
      const int route = (tid - kRouteTid) / kLanes, lane = (tid - kRouteTid) % kLanes;
      name = route_names_[static_cast<std::size_t>(route)].second + (lane > 0 ? " #" + std::to_string(lane) : "");
    } else if (tid >= kGpuTid) {
      name = "gpu" + std::to_string(tid - kGpuTid) + " engram";
    } else {
      name = "replica" + std::to_string(tid - kReplicaTid);
    }
    sep();
    os << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << pid << ",\"tid\":" << tid
       << ",\"args\":{\"name\":" << quoted(name) << "}}";
    sep();
    os << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << pid << ",\"tid\":" << tid
       << ",\"args\":{\"sort_index\":" << tid << "}}";
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Item& it = *order[i];
    static constexpr const char* kCat[] = {"step", "engram", "flow"};
    sep();
    os << "{\"ph\":\"X\",\"cat\":\"" << kCat[it.kind] << "\",\"name\":" << quoted(it.name) << ",\"pid\":" << it.pid
       << ",\"tid\":" << tids[i] << ",\"ts\":" << us(it.start) << ",\"dur\":" << us(it.duration)
       << ",\"args\":" << it.args << "}";
  }
  os << "\n]}\n";
}

// Through a temporary name, checked and renamed once whole (core/staged_file.hpp): a full disk
// leaves no cut trace, and the error names the file and the reason.
void write_chrome_trace(const ChromeTraceRecorder& trace, const std::string& path) {
  StagedFile f(path);
  trace.write(f.stream());
  f.commit();
}

}  // namespace engramsim::sim
