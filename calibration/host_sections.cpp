// Host benchmarks -> profile sections: memcpy, dram_gather, ssd_random_read, ssd_mmap,
// ssd_sequential. Sizes follow --quick (a few seconds in all) or the full sweep.
#include <algorithm>
#include <cmath>
#include <string>

#include "calibration/calibration_runner.hpp"
#include "calibration/host_info.hpp"
#include "calibration/memory_benchmarks.hpp"
#include "calibration/ssd_benchmarks.hpp"
#include "calibration/stats.hpp"
#include "core/error.hpp"

namespace engramsim::calibration {
namespace {

constexpr std::uint64_t MiB = 1ull << 20;
constexpr std::uint64_t GiB = 1ull << 30;

bool wanted(const CalibrationOptions& o, const char* s) { return o.sections.count(s) > 0; }

int cpu_threads(const CalibrationOptions& o) { return o.threads > 0 ? o.threads : online_cpus(); }

std::vector<int> thread_counts(const CalibrationOptions& o) {
  const int n = cpu_threads(o);
  if (o.quick) return n > 1 ? std::vector<int>{1, n} : std::vector<int>{1};
  return thread_sweep(n);
}

LatencyPercentiles latency_percentiles(const std::vector<double>& lat) {
  return {Time::from_seconds(percentile(lat, 0.50)), Time::from_seconds(percentile(lat, 0.90)),
          Time::from_seconds(percentile(lat, 0.99))};
}

void log_latencies(SampleLog& log, const std::string& section, const std::string& case_name, const char* x_name,
                   double x, std::uint64_t ops, double seconds, const std::vector<double>& lat) {
  log.add(section, case_name, x_name, x, "ops", static_cast<double>(ops));
  log.add(section, case_name, x_name, x, "seconds", seconds);
  for (const auto& [name, q] : std::vector<std::pair<const char*, double>>{{"p01_s", 0.01},
                                                                           {"p10_s", 0.10},
                                                                           {"p50_s", 0.50},
                                                                           {"p90_s", 0.90},
                                                                           {"p99_s", 0.99},
                                                                           {"p999_s", 0.999},
                                                                           {"max_s", 1.0}})
    log.add(section, case_name, x_name, x, name, percentile(lat, q));
}

void run_memcpy(const CalibrationOptions& o, CalibrationRun& run, const Progress& progress) {
  const std::uint64_t llc = last_level_cache_bytes();
  MemcpyOptions m;
  m.buffer_bytes = o.quick ? std::max<std::uint64_t>(64 * MiB, 2 * llc) : std::max<std::uint64_t>(512 * MiB, 8 * llc);
  m.thread_counts = thread_counts(o);
  m.repetitions = o.quick ? 3 : 7;
  progress("memcpy", std::to_string(m.buffer_bytes / MiB) + " MiB buffers, threads " +
                         std::to_string(m.thread_counts.front()) + ".." + std::to_string(m.thread_counts.back()));
  MemcpySection s;
  s.buffer_size = Bytes(static_cast<double>(m.buffer_bytes));
  for (const auto& r : run_memcpy_benchmark(m)) {
    for (const double sec : r.seconds)
      run.samples.add("memcpy", "threads=" + std::to_string(r.threads), "bytes", static_cast<double>(r.bytes_copied),
                      "seconds", sec);
    s.points.push_back({r.threads, Bandwidth(2.0 * static_cast<double>(r.bytes_copied) / median(r.seconds))});
  }
  run.profile.memcpy = s;
}

void run_dram_gather(const CalibrationOptions& o, CalibrationRun& run, const Progress& progress) {
  const std::uint64_t llc = last_level_cache_bytes();
  const std::uint64_t ram = physical_memory_bytes();
  DramGatherOptions d;
  if (o.dram_table_size) {
    d.table_bytes = *o.dram_table_size;
    if (ram > 0 && d.table_bytes > ram / 2)
      throw ConfigError({"command line", 0, 0}, "--dram-table-size",
                        "at most half of this machine's " + std::to_string(ram / MiB) + " MiB of memory");
  } else {
    d.table_bytes = o.quick ? std::max<std::uint64_t>(256 * MiB, 4 * llc) : std::max<std::uint64_t>(2 * GiB, 16 * llc);
    if (ram > 0) d.table_bytes = std::min<std::uint64_t>(d.table_bytes, ram / 4);
  }
  if (d.table_bytes < 64 * 4096)
    throw ConfigError({"command line", 0, 0}, "--dram-table-size", "must be at least 256KiB");
  if (llc > 0 && d.table_bytes <= 2 * llc)
    run.warnings.push_back("dram_gather: the " + std::to_string(d.table_bytes / MiB) +
                           " MiB table is not much larger than the " + std::to_string(llc / MiB) +
                           " MiB last-level cache; the gather partly measures the cache");
  d.row_sizes = o.quick ? std::vector<std::uint32_t>{64, 264, 1024, 4096}
                        : std::vector<std::uint32_t>{64, 128, 256, 264, 512, 1024, 2048, 4096};
  d.distributions = {IndexDistribution::uniform, IndexDistribution::zipf};
  d.thread_counts = thread_counts(o);
  d.zipf_exponent = o.zipf_exponent;
  d.rows_per_thread = o.quick ? (1u << 17) : (1u << 20);
  d.repetitions = o.quick ? 3 : 5;
  d.seed = o.seed;
  progress("dram_gather", std::to_string(d.table_bytes / MiB) + " MiB table");
  auto& notes = run.profile.provenance.notes;
  notes += std::string(notes.empty() ? "" : "; ") + "dram: last-level cache " + std::to_string(llc / MiB) +
           " MiB, transparent huge pages " +
           (transparent_hugepage_policy().empty() ? "unknown" : transparent_hugepage_policy());
  const auto results = run_dram_gather_benchmark(d, [&](const std::string& what) { progress("dram_gather", what); });
  DramGatherSection s;
  s.table_size = Bytes(static_cast<double>(d.table_bytes));
  s.zipf_exponent = d.zipf_exponent;
  for (const auto& r : results) {
    const std::string case_name = "row=" + std::to_string(r.row_size) + "B dist=" + to_string(r.distribution) +
                                  " threads=" + std::to_string(r.threads);
    for (const double sec : r.seconds)
      run.samples.add("dram_gather", case_name, "rows", static_cast<double>(r.rows), "seconds", sec);
    const double rows_per_s = static_cast<double>(r.rows) / median(r.seconds);
    s.points.push_back({Bytes(r.row_size), r.distribution, r.threads, rows_per_s, Bandwidth(rows_per_s * r.row_size)});
  }
  run.profile.dram_gather = s;
}

void run_ssd(const CalibrationOptions& o, CalibrationRun& run, const Progress& progress) {
  SsdOptions so;
  so.path = o.ssd_path;
  so.scratch_bytes = ssd_scratch_bytes(o);
  if (o.quick) {
    so.queue_depths = {1, 4, 16, 64, 256};
    so.seconds_per_depth = 0.25;
    so.mmap_seconds_per_point = 0.25;
    so.sequential_min_seconds = 0.25;
  } else {
    so.queue_depths = {1, 2, 4, 8, 16, 32, 64, 128, 256};
    so.seconds_per_depth = 1.5;
    so.mmap_seconds_per_point = 1.5;
    so.sequential_min_seconds = 2.0;
  }
  so.mmap_threads = thread_counts(o);
  so.seed = o.seed;
  const SsdResults r = run_ssd_benchmarks(so, [&](const std::string& what) { progress("ssd", what); });
  auto& p = run.profile;
  const Bytes file_size(static_cast<double>(r.file_bytes));
  if (!p.provenance.notes.empty()) p.provenance.notes += "; ";
  p.provenance.notes += "ssd: " + r.file + " (" + r.filesystem + ")";

  if (wanted(o, "ssd_random_read")) {
    if (r.random_reads) {
      SsdRandomReadSection s;
      s.engine = "io_uring O_DIRECT";
      s.block_size = Bytes(so.block);
      s.file_size = file_size;
      for (const auto& q : *r.random_reads) {
        log_latencies(run.samples, "ssd_random_read", "qd=" + std::to_string(q.queue_depth), "queue_depth",
                      q.queue_depth, q.ops, q.seconds, q.latencies);
        s.points.push_back({q.queue_depth, static_cast<double>(q.ops) / q.seconds, latency_percentiles(q.latencies)});
      }
      p.ssd_random_read = s;
    } else {
      p.not_measured["ssd_random_read"] = r.random_reads_reason;
    }
  }
  if (wanted(o, "ssd_mmap")) {
    if (r.mmap) {
      SsdMmapSection s;
      s.page_size = Bytes(4096);
      s.file_size = file_size;
      for (const auto& q : *r.mmap) {
        log_latencies(run.samples, "ssd_mmap", "threads=" + std::to_string(q.threads), "threads", q.threads, q.faults,
                      q.seconds, q.latencies);
        s.points.push_back({q.threads, static_cast<double>(q.faults) / q.seconds, latency_percentiles(q.latencies)});
      }
      p.ssd_mmap = s;
    } else {
      p.not_measured["ssd_mmap"] = r.mmap_reason;
    }
  }
  if (wanted(o, "ssd_sequential")) {
    if (r.sequential && r.sequential->seconds > 0.0) {
      SsdSequentialSection s;
      s.engine = r.sequential_engine;
      s.block_size = Bytes(so.sequential_block);
      s.queue_depth = r.sequential_engine == "buffered pread" ? 1 : so.sequential_queue_depth;
      s.bandwidth = Bandwidth(static_cast<double>(r.sequential->bytes) / r.sequential->seconds);
      run.samples.add("ssd_sequential",
                      "engine=" + std::string(r.sequential_engine == "buffered pread" ? "pread" : "io_uring"), "bytes",
                      static_cast<double>(r.sequential->bytes), "seconds", r.sequential->seconds);
      p.ssd_sequential = s;
    } else {
      p.not_measured["ssd_sequential"] = r.sequential_reason.empty() ? "no data" : r.sequential_reason;
    }
  }
}

template <class F>
void guarded(const char* section, CalibrationRun& run, F body) {
  try {
    body();
  } catch (const ConfigError&) {
    throw;  // bad input ends the run with exit code 2
  } catch (const std::exception& e) {
    run.failures.push_back(std::string(section) + ": " + e.what());
  }
}

}  // namespace

std::uint64_t ssd_scratch_bytes(const CalibrationOptions& o) {
  return o.ssd_size.value_or(o.quick ? 256 * MiB : 2 * GiB);
}

void run_host_benchmarks(const CalibrationOptions& o, CalibrationRun& run, const Progress& progress) {
  if (wanted(o, "memcpy")) guarded("memcpy", run, [&] { run_memcpy(o, run, progress); });
  if (wanted(o, "dram_gather")) guarded("dram_gather", run, [&] { run_dram_gather(o, run, progress); });
  if (wanted(o, "ssd_random_read") || wanted(o, "ssd_mmap") || wanted(o, "ssd_sequential"))
    guarded("ssd", run, [&] { run_ssd(o, run, progress); });
}

}  // namespace engramsim::calibration
