// The sparse indexer's decode scoring op against published kernel times: DeepGEMM's FP8 paged
// MQA-logits kernel on SM100 (64 indexer heads x 128 dims, FP8 keys with an FP32 scale, FP32
// logits), the DeepGEMM column of the benchmark in NVIDIA/TensorRT-LLM pull request 13219 (the
// description names no GPU; priced here on the B200 preset). Rows whose keys fit in L2 (under
// ~100 MB) or whose work is a few microseconds are left out: the op has no L2 and a one-kernel
// floor. Bounds stated before pricing: each row within 20 %.
#include <gtest/gtest.h>

#include <cstdio>

#include "hardware/hardware_loader.hpp"
#include "models/collectives.hpp"
#include "models/efficiency.hpp"
#include "models/op_cost.hpp"

namespace engramsim {
namespace {

struct Row {
  int batch;
  int context;  // keys per sequence
  int next_n;   // query positions per sequence
  double us;    // DeepGEMM kernel time
};

// Priced as work.cpp's attn.indexer_scan prices a decode step of `batch` sequences.
OpWork scan_op(const Row& r) {
  constexpr double kHeads = 64.0, kDim = 128.0, kKeyBytes = 132.0, kLogitBytes = 4.0;
  const double keys = static_cast<double>(r.batch) * r.context;
  const double pairs = keys * r.next_n;
  OpWork w;
  w.name = "attn.indexer_scan";
  w.op_class = OpClass::indexer;
  w.precision = Precision::fp8;
  w.flops = Flops(2.0 * kHeads * kDim * pairs);
  w.hbm_bytes = Bytes(keys * kKeyBytes + pairs * kLogitBytes);
  w.flops_key = kHeads * r.next_n;
  return w;
}

TEST(IndexerKernelCheck, DeepGemmPagedMqaLogitsOnSm100) {
  const Row rows[] = {
      {16, 65536, 1, 25.2}, {32, 65536, 1, 45.3}, {32, 32768, 1, 24.9}, {32, 16384, 3, 16.5},
      {16, 16384, 3, 10.1}, {8, 32768, 3, 10.0},  {32, 8192, 3, 10.1},
  };
  const GpuSpec gpu = load_gpu("b200");
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  for (const Row& r : rows) {
    const double model_us = op_seconds(scan_op(r), HardwareRates(gpu), default_efficiencies(), net).total * 1e6;
    std::printf("batch %2d context %6d next_n %d: DeepGEMM %5.1f us, model %5.1f us (%+.0f %%)\n", r.batch, r.context,
                r.next_n, r.us, model_us, 100.0 * (model_us / r.us - 1.0));
    EXPECT_NEAR(model_us / r.us, 1.0, 0.20) << r.batch << " x " << r.context << " x " << r.next_n;
  }
}

// Equal work, different batch: the kernel's time follows the (query, key) pairs, not the number of
// sequences (8 x 32,768 and 32 x 8,192 at next_n 3 take 10.0 and 10.1 us), so the op's FLOP
// efficiency must not depend on the batch either.
TEST(IndexerKernelCheck, EqualWorkCostsTheSameWhateverTheBatch) {
  const GpuSpec gpu = load_gpu("b200");
  const CollectiveModel net(dgx_h100_nccl_defaults(), Bandwidth::gb_per_s(900));
  const double few = op_seconds(scan_op({8, 32768, 3, 0.0}), HardwareRates(gpu), default_efficiencies(), net).total;
  const double many = op_seconds(scan_op({32, 8192, 3, 0.0}), HardwareRates(gpu), default_efficiencies(), net).total;
  EXPECT_DOUBLE_EQ(few, many);
}

}  // namespace
}  // namespace engramsim
