// Pure cost terms of the two host-memory Engram paths vLLM implements (docs/memory-tiers.md,
// "vLLM's DRAM path" and "vLLM's SSD path"); models/engram_fetch.cpp composes them.
//
// Small UVA reads (dram tier, zero_copy). A gather kernel reads each row of pinned host memory as
// PCIe read requests of `request` bytes; a row of R bytes at a random offset spans
// 1 + (R - 1) / request of them. The GPU keeps at most `outstanding` reads in flight and each takes
// `latency`, so by Little's law the reads need requests x latency / outstanding; the transfer takes
// at least that and at least bytes / (bandwidth x efficiency).
//
// Side stream. The gather runs on a side stream holding `share` of the SMs while it runs; the layers
// before the Engram layer (compute `window` at full width) progress at (1 - share) meanwhile. With the
// gather's completion at g, the GPU reaches the layer at max(g, window + share x g): the exposed time
// is max(g - window, share x g), never below 0.
//
// Page cache (ssd tier, page_cache path). The OS page cache holds what host RAM leaves after the
// reserve, pinned pools (Engram tables, DRAM row caches, KV offload). It caches 4 KiB pages; a page
// holds page / row_bytes rows hashed at random, so it is kept for its hottest row and its other rows
// are a uniform sample: with C cached pages of P in the table, the LRU holds the equivalent of
// C + (rows_per_page - 1) x C x min(1, C / P) rows (C rows when C << P, all rows when C = P).
//
// Host round trip (page_cache path, per step and per Engram layer, one rank): ids to the host
// (latency + ids x id_bytes / link bandwidth), dedup on the host (ids x per-id time), gather of the
// distinct rows into pinned staging (rows x row_bytes / CPU gather bandwidth) with its page faults
// (pages x fault latency / fault concurrency), the copy to the GPU (latency + bytes / copy bandwidth),
// the dequant kernel, and a fixed per-layer host cost (framework calls).
#pragma once

#include "core/units.hpp"

namespace engramsim {

// Expected requests of `request` bytes that one row of `row_bytes` at a random offset spans.
double requests_per_row(Bytes row_bytes, Bytes request);

// Little's-law time for `requests` reads of `latency` with `outstanding` in flight.
Time little_read_time(double requests, Time latency, int outstanding);

// Exposed time at the Engram layer of a side-stream gather completing at `gather` after forward entry.
Time side_stream_exposed(Time window, Time gather, double share);

struct HostMemoryUse {
  Bytes capacity;          // host DRAM of the node
  Bytes reserve;           // OS and engine processes
  Bytes pinned_engram;     // pinned Engram tables (dram tier)
  Bytes row_caches;        // DRAM row caches in front of ssd (direct path)
  Bytes kv_offload_pools;  // pinned host KV-offload pools
};
// Host RAM left for the page cache (0 when the pools take it all).
Bytes page_cache_capacity(const HostMemoryUse& h);

// LRU-equivalent rows of `cached_pages` of a table of `table_pages`, `rows_per_page` rows each.
double page_cache_equivalent_rows(double cached_pages, double table_pages, double rows_per_page);

struct HostRoundTrip {
  double ids = 0.0;     // lookups whose ids cross to the host
  double rows = 0.0;    // distinct rows gathered into staging
  double faults = 0.0;  // page faults (pages missing the page cache)
  Bytes id_bytes = Bytes(8.0);
  Bytes row_bytes;
  Time link_latency;             // one small transfer over the host link
  Bandwidth link;                // host link, per GPU
  Bandwidth cpu_gather;          // host memory gather, per GPU
  double copy_efficiency = 1.0;  // of the H2D copy at its size
  Time dedup_per_id;
  Time fault_latency;              // one 4 KiB random read of the array
  double fault_concurrency = 1.0;  // faults in flight
  Time kernel;                     // dequant kernel launch
  Time fixed;                      // per-layer host calls
};
struct HostRoundTripCost {
  Time d2h, dedup, gather, faults, h2d, fixed;
  Time total;
};
HostRoundTripCost host_round_trip(const HostRoundTrip& r);

}  // namespace engramsim
