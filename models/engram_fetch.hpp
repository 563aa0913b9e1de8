// What one Engram layer's row fetch costs one GPU rank in one scheduler step, per tier.
//
// Rows. Every token position that passes an Engram layer looks up one row in each of the layer's
// (order, head) sub-tables: rows_per_token_per_layer = orders x heads_per_order lookups. Tensor
// parallelism splits the sub-tables across the replica's ranks (vLLM shards heads; the table bytes
// per rank are table / tp), so a rank issues positions x rows_per_token / tp lookups into
// rows_per_token / tp sub-tables of table_rows / rows_per_token rows each.
//
// Access distribution. Within a sub-table, lookups are independent draws from a popularity
// distribution over its rows: uniform, or Zipf(s) over row rank (N-gram frequencies are Zipfian;
// hashing maps each N-gram to one row, so row popularity follows it). Expected distinct rows of R
// draws: sum_i 1 - (1 - p_i)^R, evaluated over rank bins (exact for the first 64 ranks, then
// geometric bins of ratio 1.05 whose mass comes from the integral of x^-s).
//
// Caches. An optional HBM hot-row set pins the top-K rows of each sub-table (static, by popularity)
// in front of the dram and ssd tiers. An optional DRAM row cache in front of the ssd tier is an LRU
// whose contents follow Che's approximation: with characteristic time T solving
// sum_i (1 - exp(-p_i T)) = capacity over the rows outside the hot set, row i is resident with
// probability 1 - exp(-p_i T).
//
// Tiers (times per rank; `active_gpus` of the node fetch concurrently, all of them by default, and
// shared resources are divided evenly among them):
//   hbm:  a gather kernel reads every lookup's row from HBM at an efficiency that depends on the row
//         size: t = overhead + lookups x row_bytes / (hbm_bw x eff(row_bytes)). It runs in-stream.
//   dram: distinct rows (after within-step dedup, when the engine dedups) outside the hot set cross
//         the host link. zero_copy (vLLM's UVA gather): t = latency + rows x row_bytes /
//         (link_bw x eff_uva(row_bytes)). staged: CPU threads gather rows into pinned staging and one
//         DMA copies them; the two pipeline in chunks: t = latency + max(t_cpu, t_copy).
//   ssd:  distinct rows missing the hot set and the DRAM cache map to 4 KiB pages (a row straddles
//         a page boundary with probability (row_bytes - 1) / page); pages are deduplicated
//         (occupancy over the rank's pages) and read from the node's NVMe drives at
//         rate = min(IOPS share, queue_depth x drives share / latency, seq bandwidth share / page);
//         t_ssd = latency + pages / rate. Then every distinct host row is staged and copied as in
//         dram/staged (pages land in host memory first): t = t_ssd + t_staged.
// Link bandwidth per GPU = min(GPU host link, switch uplink / active GPUs behind that switch), with
// active GPUs filling switch groups in order.
// All lookups are tabulated at construction over log2(positions), so cost() is a few table reads.
#pragma once

#include <string>
#include <vector>

#include "core/enum_names.hpp"
#include "core/units.hpp"
#include "hardware/node_spec.hpp"
#include "models/efficiency.hpp"
#include "models/engram_tier.hpp"
#include "models/model_card.hpp"

namespace engramsim {

// Row popularity within one sub-table: uniform when zipf_s == 0.
struct AccessDistribution {
  double zipf_s = 0.0;
};

enum class DramPath { zero_copy, staged };
inline constexpr EnumNames<DramPath, 2> kDramPathNames{{{
    {DramPath::zero_copy, "zero_copy"},
    {DramPath::staged, "staged"},
}}};
const char* to_string(DramPath p);

// How an engine reads the ssd tier: direct (O_DIRECT / native AIO page reads into the engine's own
// staging, optionally behind a DRAM row cache) or page_cache (memory-mapped shard files read through
// the OS page cache, one host round trip per step and Engram layer: models/engram_host_path.hpp).
enum class SsdPath { direct, page_cache };
inline constexpr EnumNames<SsdPath, 2> kSsdPathNames{{{
    {SsdPath::direct, "direct"},
    {SsdPath::page_cache, "page_cache"},
}}};
const char* to_string(SsdPath p);

struct EngramFetchParams {
  EngramTier tier = EngramTier::dram;
  AccessDistribution access;
  // The engine deduplicates row ids within a step before fetching (one transfer per distinct row).
  bool dedup = true;
  DramPath dram_path = DramPath::zero_copy;
  Bytes hbm_hot_cache;        // per replica (split over ranks), in front of dram/ssd; 0 = none
  Bytes dram_cache;           // per replica (split over ranks), in front of ssd; 0 = none
  int ssd_queue_depth = 128;  // outstanding 4 KiB reads per drive
  // Measured NVMe behaviour (a calibration profile's ssd_random_read section); 0 = the node's
  // datasheet values.
  double ssd_iops_per_drive = 0.0;
  Time ssd_read_latency;
  // GPUs of the node fetching at the same time (they share PCIe switch uplinks, host DRAM bandwidth
  // and the drives); 0 = all of the node's GPUs (a fully used node).
  int active_gpus = 0;
  Bytes ssd_page = Bytes(4096.0);
  // The engine's host thread gathers staged rows into pinned memory before the forward starts
  // (synchronous engines, HostOverhead::engram_lookup_on_host_thread): the fetch chain then holds
  // only the link latency and the copy; host_thread_gather_seconds() is charged as host time.
  bool gather_before_forward = false;
  // ssd tier read path (the engine preset's engram_ssd_path) and its page_cache terms.
  SsdPath ssd_path = SsdPath::direct;
  Bytes page_cache;                // node page cache for one copy of the tables (all layers)
  Time host_round_trip_fixed;      // per Engram layer and step: host calls of the round trip
  Time host_dedup_per_id;          // host dedup of the row ids, per id
  int page_fault_concurrency = 1;  // page faults in flight per rank
  // One major fault of a mapped shard page, measured (a calibration profile's ssd_mmap section);
  // 0 = the drives' 4 KiB read latency (ssd_read_latency or the node's datasheet).
  Time page_fault_latency;
};

// Bins of one sub-table's row popularity, with the expectations the fetch model needs.
class RowPopularity {
 public:
  RowPopularity(double rows, double zipf_s);

  double rows() const { return rows_; }
  // Expected distinct rows among `draws` independent lookups.
  double expected_distinct(double draws) const;
  // Share of lookups that fall on the `top_k` most popular rows.
  double top_mass(double top_k) const;
  // Expected distinct rows outside the top `top_k` and, of those, not resident in an LRU of
  // `lru_rows` rows fed by the lookups outside the top k (Che approximation). lru_rows == 0: no LRU.
  struct Distinct {
    double all = 0.0;
    double outside_hot = 0.0;
    double missing_cache = 0.0;
  };
  Distinct expected_distinct(double draws, double top_k, double lru_rows) const;
  // Per-lookup hit ratio of that LRU on the lookups outside the top k.
  double lru_hit_ratio(double top_k, double lru_rows) const;

 private:
  struct Bin {
    double first_rank = 0.0;  // 1-based rank of the bin's first row
    double count = 0.0;
    double p = 0.0;  // per-row probability (mean over the bin)
  };
  // The bins with the top k split off: returns per-bin count outside the top k.
  double count_outside(const Bin& b, double top_k) const;
  double che_time(double top_k, double lru_rows) const;

  double rows_ = 0.0;
  std::vector<Bin> bins_;
};

struct EngramFetchCost {
  double lookups = 0.0;        // row lookups issued by this rank
  double distinct_rows = 0.0;  // after dedup (== lookups without dedup)
  double hbm_rows = 0.0;       // lookups served from HBM (tier hbm, or the hot set)
  double host_rows = 0.0;      // rows crossing the host link
  double ssd_pages = 0.0;      // 4 KiB pages read from NVMe
  Bytes host_bytes;
  Time hbm_time;
  Time ssd_time;
  Time host_time;
  Time total;
  const char* bound = "none";  // the largest part: hbm, host_link, host_reads, cpu_gather, ssd_iops, ssd_queue, ssd_bw,
                               // latency, host_round_trip, page_faults
};

class EngramFetchModel {
 public:
  // `engram_layer` indexes spec.layers / spec.table_rows.
  EngramFetchModel(const EngramSpec& spec, int engram_layer, int tp, const NodeSpec& node, const Efficiencies& eff,
                   const EngramFetchParams& params);

  // Cost of fetching the rows of `positions` token positions through this layer.
  EngramFetchCost cost(double positions) const;

  EngramTier tier() const { return params_.tier; }
  int layer() const { return layer_; }
  double subtables_per_rank() const { return subtables_; }
  double rows_per_subtable() const { return popularity_.rows(); }
  double hot_rows_per_subtable() const { return hot_k_; }
  double cache_rows_per_subtable() const { return lru_k_; }
  // Per-lookup DRAM-cache hit ratio (ssd tier; 0 without a cache).
  double dram_cache_hit_ratio() const { return cache_hit_; }
  Bandwidth host_link_bandwidth() const { return Bandwidth(link_bw_); }

 private:
  // Per-position fractions at log2(positions) = i / kStepsPerOctave.
  static constexpr int kStepsPerOctave = 8;
  static constexpr int kOctaves = 26;
  struct Fractions {
    double all = 0.0;
    double outside_hot = 0.0;
    double missing_cache = 0.0;
  };
  Fractions fractions(double positions) const;
  double host_seconds(double host_rows, bool staged) const;
  double ssd_seconds(double ssd_rows, const char** bound) const;

 public:
  // CPU time to gather `host_rows` rows into staging (rows / the CPU gather rate) when the staged
  // path runs (dram with staged, ssd); 0 for zero-copy.
  double cpu_gather_seconds(double host_rows) const;

 private:
  EngramFetchParams params_;
  int layer_ = 0;
  double subtables_ = 1.0;
  double row_bytes_ = 0.0;
  RowPopularity popularity_;
  double hot_k_ = 0.0;
  double hot_mass_ = 0.0;
  double lru_k_ = 0.0;
  double cache_hit_ = 0.0;
  std::vector<Fractions> table_;
  // Hardware, per rank.
  double hbm_bw_ = 0.0;
  double hbm_gather_eff_ = 1.0;
  double kernel_overhead_s_ = 0.0;
  double link_bw_ = 0.0;
  double link_latency_s_ = 0.0;
  double uva_eff_ = 1.0;
  double cpu_bw_ = 0.0;
  EfficiencyCurve copy_eff_;
  double ssd_iops_ = 0.0;
  double ssd_latency_s_ = 0.0;
  double ssd_seq_pages_per_s_ = 0.0;
  double ssd_drives_share_ = 0.0;
  double ssd_total_pages_ = 0.0;
  double pages_per_row_ = 1.0;
  double uva_requests_per_row_ = 0.0;  // PCIe read requests per row (0: no small-read bound)
  int uva_outstanding_ = 0;
  double fault_concurrency_ = 1.0;
  double fault_latency_s_ = 0.0;  // page_cache: one major fault
  EngramFetchCost page_cache_cost(EngramFetchCost c) const;
  // Constructor steps: the row caches and the distinct-row table; the host link and CPU gather rates
  // of one rank (returns the GPUs fetching at once); the SSD terms.
  void size_caches(const EngramSpec& spec, double table_rows, int tp, const EngramFetchParams& params);
  int set_host_rates(const NodeSpec& node, const Efficiencies& eff, const EngramFetchParams& params);
  void set_ssd_rates(const EngramSpec& spec, double table_rows, int tp, const NodeSpec& node, int active,
                     const EngramFetchParams& params);
};

}  // namespace engramsim
