// The pure terms of vLLM's Engram host paths (models/engram_host_path.hpp), against hand-computed values.
#include <gtest/gtest.h>

#include "models/engine_loader.hpp"
#include "models/engram_host_path.hpp"

namespace engramsim {
namespace {

TEST(EngramHostPath, RequestsPerRowSpanRandomOffsets) {
  // 264 B rows over 128 B requests: 1 + 263 / 128 = 3.0547.
  EXPECT_NEAR(requests_per_row(Bytes(264.0), Bytes(128.0)), 3.0546875, 1e-12);
  EXPECT_DOUBLE_EQ(requests_per_row(Bytes(1.0), Bytes(128.0)), 1.0);
  EXPECT_THROW(requests_per_row(Bytes(264.0), Bytes(0.0)), std::invalid_argument);
}

TEST(EngramHostPath, LittleBoundIsRequestsTimesLatencyOverOutstanding) {
  // 768 reads of 1.5 us with 768 in flight: 1.5 us; 769 reads: 1.50195 us.
  EXPECT_EQ(little_read_time(768.0, Time::us(1.5), 768), Time::us(1.5));
  EXPECT_NEAR(little_read_time(769.0, Time::us(1.5), 768).seconds(), 769 * 1.5e-6 / 768, 1e-9);
  EXPECT_EQ(little_read_time(100.0, Time::us(1.5), 0), Time::zero());
}

TEST(EngramHostPath, SideStreamExposedTime) {
  // Window 100 us, share 0.5: a 40 us gather costs 20 us of SM time; a 300 us one exposes 200 us.
  EXPECT_EQ(side_stream_exposed(Time::us(100), Time::us(40), 0.5), Time::us(20));
  EXPECT_EQ(side_stream_exposed(Time::us(100), Time::us(300), 0.5), Time::us(200));
  // At g = window / (1 - share) = 200 us both forms agree: 100 us.
  EXPECT_EQ(side_stream_exposed(Time::us(100), Time::us(200), 0.5), Time::us(100));
  EXPECT_EQ(side_stream_exposed(Time::us(100), Time::us(40), 0.0), Time::zero());
  EXPECT_THROW(side_stream_exposed(Time::us(1), Time::us(1), 1.0), std::invalid_argument);
}

TEST(EngramHostPath, PageCacheCapacityIsWhatPoolsLeave) {
  HostMemoryUse h{Bytes::gib(2048), Bytes::gib(204.8), Bytes::gib(188.8), Bytes::gib(64), Bytes::gib(0)};
  EXPECT_NEAR(page_cache_capacity(h).gib(), 2048 - 204.8 - 188.8 - 64, 1e-9);
  h.kv_offload_pools = Bytes::gib(4096);
  EXPECT_EQ(page_cache_capacity(h).value(), 0.0);
}

TEST(EngramHostPath, PageCacheEquivalentRows) {
  // 100 of 10,000 pages, 15.5 rows each: 100 + 14.5 x 100 x 0.01 = 114.5 rows.
  EXPECT_NEAR(page_cache_equivalent_rows(100.0, 10000.0, 15.5), 114.5, 1e-9);
  // The whole table: every row.
  EXPECT_NEAR(page_cache_equivalent_rows(10000.0, 10000.0, 15.5), 155000.0, 1e-6);
  EXPECT_NEAR(page_cache_equivalent_rows(20000.0, 10000.0, 15.5), 155000.0, 1e-6);
  EXPECT_EQ(page_cache_equivalent_rows(0.0, 10000.0, 15.5), 0.0);
}

TEST(EngramHostPath, RoundTripSumsItsParts) {
  HostRoundTrip r;
  r.ids = 1000.0;
  r.rows = 800.0;
  r.faults = 16.0;
  r.row_bytes = Bytes(264.0);
  r.link_latency = Time::us(2);
  r.link = Bandwidth(8e9);                     // 8,000 B of ids: 1 us
  r.cpu_gather = Bandwidth(211.2e6);           // 211,200 B: 1 ms
  r.copy_efficiency = 0.5;                     // 211,200 B at 4 GB/s: 52.8 us
  r.dedup_per_id = Time::from_seconds(20e-9);  // 20 us
  r.fault_latency = Time::us(70);
  r.fault_concurrency = 8.0;  // 16 x 70 / 8 = 140 us
  r.kernel = Time::us(5);
  r.fixed = Time::us(100);
  const HostRoundTripCost c = host_round_trip(r);
  EXPECT_EQ(c.d2h, Time::us(3));
  EXPECT_EQ(c.dedup, Time::us(20));
  EXPECT_EQ(c.gather, Time::ms(1));
  EXPECT_EQ(c.faults, Time::us(140));
  EXPECT_EQ(c.h2d, Time::from_seconds(2e-6 + 52.8e-6 + 5e-6));
  EXPECT_NEAR(c.total.seconds(), 3e-6 + 20e-6 + 1e-3 + 140e-6 + 59.8e-6 + 100e-6, 2e-9);
  r.ids = 0.0;
  EXPECT_EQ(host_round_trip(r).total, Time::zero());
}

TEST(EngramHostPath, EnginePresetSelectsTheSsdPath) {
  const HostOverhead direct = engine_from_yaml("name: x\nper_step: 1us\nper_sequence: 1ns\n", "x.yaml");
  EXPECT_EQ(direct.engram_ssd_path, SsdPath::direct);
  const HostOverhead pc = engine_from_yaml(
      "name: x\nper_step: 1us\nper_sequence: 1ns\nengram_ssd_path: page_cache\nengram_host_round_trip: 100us\n"
      "engram_host_dedup_per_id: 20ns\nengram_page_fault_concurrency: 8\npiecewise_per_layer: 130us\n",
      "x.yaml");
  EXPECT_EQ(pc.engram_ssd_path, SsdPath::page_cache);
  EXPECT_EQ(pc.engram_page_fault_concurrency, 8);
  EXPECT_EQ(pc.piecewise_per_layer, Time::us(130));
  EXPECT_EQ(direct.piecewise_per_layer, Time::zero());
  // The old per-step key is gone: an unknown key, located.
  EXPECT_ANY_THROW(
      engine_from_yaml("name: x\nper_step: 1us\nper_sequence: 1ns\nengram_ssd_path: page_cache\n"
                       "engram_host_round_trip: 1us\nengram_host_dedup_per_id: 1ns\n"
                       "engram_page_fault_concurrency: 1\nengram_piecewise_per_step: 1ms\n",
                       "x.yaml"));
  // page_cache terms without the path, and the path without its terms, are errors.
  EXPECT_ANY_THROW(
      engine_from_yaml("name: x\nper_step: 1us\nper_sequence: 1ns\nengram_host_round_trip: 1us\n", "x.yaml"));
  EXPECT_ANY_THROW(
      engine_from_yaml("name: x\nper_step: 1us\nper_sequence: 1ns\nengram_ssd_path: page_cache\n", "x.yaml"));
}

}  // namespace
}  // namespace engramsim
