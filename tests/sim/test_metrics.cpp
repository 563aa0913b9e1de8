#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/rng.hpp"
#include "sim/metrics/log_histogram.hpp"
#include "sim/metrics/metrics_collector.hpp"
#include "sim/metrics/result_writers.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/metrics/time_series.hpp"

using namespace engramsim;
using namespace engramsim::sim;

TEST(LogHistogram, BucketsTileTheLineAndBoundTheError) {
  for (std::int64_t v : {0LL, 1LL, 1023LL, 1024LL, 1025LL, 2047LL, 2048LL, 123456789LL, 4000000000000LL}) {
    const auto b = LogHistogram::bucket_of(v);
    EXPECT_LE(LogHistogram::bucket_low(b), v);
    EXPECT_GE(LogHistogram::bucket_high(b), v);
    EXPECT_EQ(LogHistogram::bucket_of(LogHistogram::bucket_high(b) + 1), b + 1);
    EXPECT_LE(static_cast<double>(LogHistogram::bucket_high(b) - LogHistogram::bucket_low(b)), v / 1024.0 + 1);
  }
}

TEST(LogHistogram, PercentilesWithinATenthOfAPercentOfExact) {
  RngStream rng(3, "itl");
  LogHistogram h;
  std::vector<double> exact;
  for (int i = 0; i < 50000; ++i) {
    const auto v = static_cast<std::int64_t>(rng.exponential(1.0 / 20e6));  // ~20 ms gaps
    h.add(v);
    exact.push_back(static_cast<double>(v));
  }
  std::sort(exact.begin(), exact.end());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9}) {
    const double e = percentile_sorted(exact, p);
    EXPECT_NEAR(h.percentile(p), e, e * 1e-3) << p;
  }
  double sum = 0;
  for (double v : exact) sum += v;
  EXPECT_NEAR(h.mean(), sum / exact.size(), 1e-6 * sum / exact.size());
  EXPECT_EQ(h.percentile(100), exact.back());
  EXPECT_TRUE(std::isnan(LogHistogram().percentile(50)));
}

TEST(Summary, PercentilesFollowNumpyLinearRule) {
  const std::vector<double> v{1, 2, 3, 4};
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 90), 3.7);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile_sorted(v, 100), 4);
  const LatencySummary s = summarize_latencies({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(1.25));  // population
  EXPECT_DOUBLE_EQ(s.max, 4);
}

TEST(Summary, DefinitionsOnHandBuiltRecords) {
  MetricsCollector m(Time::from_seconds(1), 2);
  auto rec = [](std::uint64_t id, double arr, double sched, double first, double fin, int in, int out, int cached,
                RequestStatus st = RequestStatus::finished) {
    RequestRecord r;
    r.id = id;
    r.status = st;
    r.arrival = Time::from_seconds(arr);
    r.first_scheduled = Time::from_seconds(sched);
    r.first_token = Time::from_seconds(first);
    r.finish = st == RequestStatus::finished ? Time::from_seconds(fin) : Time::max();
    r.prompt_tokens = in;
    r.output_tokens = out;
    r.generated_tokens = st == RequestStatus::finished ? out : 3;
    r.cached_prompt_tokens = cached;
    return r;
  };
  m.on_request_done(rec(1, 1.0, 1.5, 2.0, 6.0, 300, 5, 100));  // ttft 1000, tpot 1000, e2el 5000
  m.on_request_done(rec(0, 0.0, 0.0, 0.5, 2.5, 100, 11, 0));   // ttft 500, tpot 200, e2el 2500
  StepRecord s;
  s.cost.total = Time::from_seconds(4);
  s.cost.engram_stall = Time::from_seconds(1);
  s.kv_usage = 0.5;
  m.on_step(s);
  m.finalize({rec(2, 5.0, 5.5, 9.0, 0, 50, 10, 0, RequestStatus::unfinished)});
  ASSERT_EQ(m.records().front().id, 0u);

  SummaryInputs in;
  in.metrics = &m;
  in.end_time = Time::from_seconds(10);
  in.num_replicas = 2;
  in.num_gpus = 8;
  in.slo.ttft = Time::ms(800);
  in.price_per_gpu_hour = MoneyRate(3.6);
  const Summary sum = summarize(in);
  EXPECT_EQ(sum.num_requests, 3);
  EXPECT_EQ(sum.completed, 2);
  EXPECT_EQ(sum.unfinished, 1);
  EXPECT_DOUBLE_EQ(sum.duration_s, 10.0);
  EXPECT_EQ(sum.total_input_tokens, 400);
  EXPECT_EQ(sum.total_output_tokens, 16);
  EXPECT_EQ(sum.generated_tokens, 19);
  EXPECT_DOUBLE_EQ(sum.request_throughput, 0.2);
  EXPECT_DOUBLE_EQ(sum.total_token_throughput, 41.6);
  EXPECT_DOUBLE_EQ(sum.output_tput_per_gpu, 0.2);
  EXPECT_DOUBLE_EQ(sum.ttft.mean, 750);
  EXPECT_DOUBLE_EQ(sum.tpot.mean, 600);
  EXPECT_DOUBLE_EQ(sum.tpot.median, 600);
  EXPECT_DOUBLE_EQ(sum.mean_intvty, 1000.0 / 600);
  EXPECT_DOUBLE_EQ(sum.e2el.p99, 2500 + 0.99 * 2500);
  EXPECT_DOUBLE_EQ(sum.queue.mean, (0 + 500 + 500) / 3.0);  // includes the unfinished one
  EXPECT_DOUBLE_EQ(sum.request_goodput, 0.1);               // only request 0 meets TTFT <= 800 ms
  EXPECT_DOUBLE_EQ(sum.goodput_fraction, 0.5);
  EXPECT_DOUBLE_EQ(sum.prefix_cache_hit_rate, 0.25);
  EXPECT_DOUBLE_EQ(sum.mean_kv_usage, 0.5 * 4 / 20);
  EXPECT_DOUBLE_EQ(sum.gpu_busy_fraction, 0.2);
  EXPECT_DOUBLE_EQ(sum.engram_stall_share, 0.25);
  EXPECT_NEAR(sum.cost_usd, 3.6 * 8 * 10 / 3600, 1e-12);
  EXPECT_NEAR(sum.tokens_per_dollar, 416 / sum.cost_usd, 1e-6);
  EXPECT_NEAR(sum.usd_per_m_output_tokens, sum.cost_usd * 1e6 / 16, 1e-9);
  EXPECT_TRUE(std::isnan(sum.itl.mean));
}

TEST(ResultWriters, FixedDeterministicFormatting) {
  EXPECT_EQ(format_number(1.0 / 3.0), "0.333333");
  EXPECT_EQ(format_number(-0.0), "0.000000");
  EXPECT_EQ(format_number(-1e-9), "0.000000");
  EXPECT_EQ(format_number(123456789.125), "123456789.125000");
  EXPECT_EQ(format_number(std::nan("")), "null");
  EXPECT_EQ(format_number(std::nan(""), 6, false), "");
  Summary s{};
  std::ostringstream os;
  write_summary_json(s, SloParams{}, os);
  const std::string j = os.str();
  for (const char* key :
       {"\"mean_ttft_ms\"", "\"p99_tpot_ms\"", "\"median_itl_ms\"", "\"request_throughput\"", "\"output_throughput\"",
        "\"total_token_throughput\"", "\"tput_per_gpu\"", "\"output_tput_per_gpu\"", "\"intvty\"",
        "\"request_goodput\"", "\"tokens_per_dollar\"", "\"engram_stall_share\"", "\"slo_ttft_ms\": null"}) {
    EXPECT_NE(j.find(key), std::string::npos) << key;
  }
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.substr(j.size() - 2), "}\n");
}

namespace {

// A run longer than kMaxBins intervals doubles the interval, merging bin pairs: totals are kept and
// the bins stay bounded.
TEST(TimeSeries, LongRunsCoarsenTheIntervalInsteadOfGrowingWithoutBound) {
  TimeSeries ts(Time::ms(10), 1);
  ts.add_arrival(Time::ms(5));
  ts.add_step(Time::ms(0), Time::ms(20), Time::zero(), 0.5, 100, 0);
  const Time late = Time::ms(10) * (TimeSeries::kMaxBins * 3);  // 3 x kMaxBins intervals of 10 ms
  ts.add_finish(late);
  EXPECT_EQ(ts.interval(), Time::ms(40));  // doubled twice
  EXPECT_LE(static_cast<std::int64_t>(ts.bins().size()), TimeSeries::kMaxBins);
  std::int64_t arrivals = 0, finished = 0, prefill = 0;
  double busy = 0.0;
  for (const auto& b : ts.bins()) {
    arrivals += b.arrivals;
    finished += b.finished;
    prefill += b.prefill_tokens;
    busy += b.busy_ns;
  }
  EXPECT_EQ(arrivals, 1);
  EXPECT_EQ(finished, 1);
  EXPECT_EQ(prefill, 100);
  EXPECT_DOUBLE_EQ(busy, 20e6);
  EXPECT_DOUBLE_EQ(ts.utilization(0), 0.5);  // 20 ms busy in the first 40 ms bin
}

}  // namespace
