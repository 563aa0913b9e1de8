#include "sim/workload/workload_config.hpp"

#include <filesystem>
#include <limits>

#include "core/paths.hpp"
#include "sim/workload/arrival_process.hpp"
#include "sim/workload/length_distribution.hpp"
#include "sim/workload/synthetic_source.hpp"
#include "sim/workload/trace_format.hpp"
#include "sim/workload/transformed_source.hpp"

namespace engramsim::sim {

std::string resolve_data_path(const ConfigNode& node, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.is_absolute()) return path;
  if (!node.file().empty()) {
    const fs::path beside = fs::path(node.file()).parent_path() / p;
    if (fs::exists(beside)) return beside.string();
  }
  return (fs::path(data_root()) / p).string();
}

namespace {

std::int32_t positive_int(const ConfigNode& n, const std::string& key) {
  return static_cast<std::int32_t>(n.integer(key, 1, std::numeric_limits<std::int32_t>::max()));
}

std::function<std::unique_ptr<LengthDistribution>()> parse_lengths(const ConfigNode& n) {
  const std::string kind = n.one_of("distribution", {"fixed", "uniform_ratio", "empirical"});
  if (kind == "fixed") {
    const std::int32_t isl = positive_int(n, "isl"), osl = positive_int(n, "osl");
    n.finish();
    return [isl, osl] { return std::make_unique<FixedLengths>(isl, osl); };
  }
  if (kind == "uniform_ratio") {
    const std::int32_t isl = positive_int(n, "isl"), osl = positive_int(n, "osl");
    const double ratio = n.number_or("ratio", 0.8, 1e-9, 1.0);
    n.finish();
    return [isl, osl, ratio] { return std::make_unique<UniformRatioLengths>(isl, osl, ratio); };
  }
  const std::string file = resolve_data_path(n, n.str("file"));
  const std::int64_t max_total = n.integer_or("max_total_tokens", 0, 0);
  n.finish();
  // Load (and validate) once now; each run samples from its own copy.
  const auto table = std::make_shared<const EmpiricalLengths>(file, max_total);
  return [table] { return std::make_unique<EmpiricalLengths>(*table); };
}

}  // namespace

WorkloadSpec parse_workload(const ConfigNode& n) {
  WorkloadSpec spec;
  spec.concurrency = static_cast<std::int32_t>(n.integer_or("concurrency", 0, 0, std::numeric_limits<std::int32_t>::max()));
  const std::int64_t max_requests = n.integer_or("max_requests", 0, 0);
  spec.max_requests = max_requests > 0 ? static_cast<std::uint64_t>(max_requests) : UINT64_MAX;

  if (n.has("trace")) {
    const std::string path = resolve_data_path(n, n.str("trace"));
    std::vector<std::string> formats = trace_format_names();
    const std::string format = n.one_of_or("format", formats, "auto");
    TraceOptions opt;
    opt.hash_block_tokens =
        static_cast<std::int32_t>(n.integer_or("hash_block_tokens", 0, 0, std::numeric_limits<std::int32_t>::max()));
    opt.skip_zero_output = n.boolean_or("skip_zero_output", false);
    opt.rebase = n.boolean_or("rebase", true);
    TransformParams t;
    if (const auto w = n.optional_child("window")) {
      t.window_start = w->time_or("start", Time::zero());
      t.window_end = w->time_or("end", Time::max());
      if (t.window_end <= t.window_start) w->fail("window end must be after its start");
      w->finish();
    }
    t.time_scale = n.number_or("time_scale", 1.0, 1e-12, 1e12);
    t.rate_scale = n.number_or("rate_scale", 1.0, 1e-12, 1e12);
    n.finish();
    // Fail on a missing or unrecognisable file now, at the edge, not inside a run.
    if (format == "auto") detect_trace_format(path);
    else open_trace(path, format, opt);
    spec.source = [path, format, opt, t](std::uint64_t) -> std::unique_ptr<RequestSource> {
      auto src = open_trace(path, format, opt);
      if (t.window_start == Time::zero() && t.window_end == Time::max() && t.time_scale == 1.0 && t.rate_scale == 1.0) {
        return src;
      }
      return std::make_unique<TransformedSource>(std::move(src), t);
    };
    return spec;
  }

  const ConfigNode a = n.child("arrival");
  const std::string process = a.one_of("process", {"poisson", "gamma"});
  const double rate = a.number("rate_per_s", 1e-12, 1e12);
  const double cv = process == "gamma" ? a.number("cv", 1e-6, 1e6) : 1.0;
  a.finish();
  const auto lengths = parse_lengths(n.child("lengths"));
  const std::int64_t num = n.integer_or("num_requests", 0, 0);
  const Time duration = n.time_or("duration", Time::max());
  if (num == 0 && duration == Time::max() && spec.max_requests == UINT64_MAX) {
    n.fail("a generated workload needs num_requests, duration or max_requests");
  }
  n.finish();
  const std::uint64_t count = num > 0 ? static_cast<std::uint64_t>(num) : UINT64_MAX;
  spec.source = [process, rate, cv, lengths, count, duration](std::uint64_t seed) -> std::unique_ptr<RequestSource> {
    std::unique_ptr<ArrivalProcess> arrivals;
    if (process == "poisson") arrivals = std::make_unique<PoissonArrivals>(rate);
    else arrivals = std::make_unique<GammaArrivals>(rate, cv);
    return std::make_unique<SyntheticSource>(std::move(arrivals), lengths(), seed, count, duration);
  };
  return spec;
}

}  // namespace engramsim::sim
