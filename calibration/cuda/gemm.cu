// GEMM throughput through cuBLASLt in BF16 and FP8 (e4m3 inputs, BF16 output, FP32 accumulation)
// at the catalog models' projection shapes. Layout as serving engines use it: activations X [m, k]
// and weights W [n, k] both K-contiguous, Y [m, n] = X W^T, which is cuBLASLt's "TN" form (the
// one its FP8 kernels require). Small-m GEMMs are weight-bandwidth-bound and their weights can fit
// in L2, so timed calls rotate over enough weight copies to exceed it.
#include <cublasLt.h>
#include <cuda_bf16.h>

#include <cmath>
#include <cstring>

#include "calibration/cuda/cuda_common.cuh"
#include "core/rng.hpp"

namespace engramsim::calibration {
namespace cuda {
namespace {

constexpr std::uint64_t kXSeed = 0x9a11e7e5eed00001ULL;
constexpr std::uint64_t kWSeed = 0x9a11e7e5eed00002ULL;

void lt_check(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                             cublasLtGetStatusName(s) + " (" + cublasLtGetStatusString(s) + ")");
}
#define ENGRAMSIM_LT(call) lt_check((call), #call, __FILE__, __LINE__)

struct LtHandle {
  cublasLtHandle_t h = nullptr;
  LtHandle() { ENGRAMSIM_LT(cublasLtCreate(&h)); }
  ~LtHandle() { cublasLtDestroy(h); }
  LtHandle(const LtHandle&) = delete;
  LtHandle& operator=(const LtHandle&) = delete;
};

struct Desc {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  ~Desc() {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (d) cublasLtMatrixLayoutDestroy(d);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

constexpr std::size_t kWorkspaceBytes = 64u << 20;

std::string cublaslt_version() {
  const std::size_t v = cublasLtGetVersion();
  return "cuBLASLt " + std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." +
         std::to_string(v % 100);
}

// The TN GEMM's descriptors and the algorithm preference (workspace up to kWorkspaceBytes).
void describe_tn(Desc& d, cudaDataType_t in_type, std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  ENGRAMSIM_LT(cublasLtMatmulDescCreate(&d.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  ENGRAMSIM_LT(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  ENGRAMSIM_LT(cublasLtMatmulDescSetAttribute(d.op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  // Column-major view: A = W as k x n (ld k, transposed), B = X as k x m (ld k), D = Y as n x m (ld n).
  ENGRAMSIM_LT(cublasLtMatrixLayoutCreate(&d.a, in_type, k, n, static_cast<std::int64_t>(k)));
  ENGRAMSIM_LT(cublasLtMatrixLayoutCreate(&d.b, in_type, k, m, static_cast<std::int64_t>(k)));
  ENGRAMSIM_LT(cublasLtMatrixLayoutCreate(&d.d, CUDA_R_16BF, n, m, static_cast<std::int64_t>(n)));
  ENGRAMSIM_LT(cublasLtMatmulPreferenceCreate(&d.pref));
  ENGRAMSIM_LT(cublasLtMatmulPreferenceSetAttribute(d.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &kWorkspaceBytes,
                                                    sizeof kWorkspaceBytes));
}

// Y[t, f] in double precision, from inputs rounded as the GPU's are.
double reference_output(bool fp8, std::uint64_t t, std::uint64_t f, std::uint64_t k) {
  double ref = 0.0;
  for (std::uint64_t kk = 0; kk < k; ++kk) {
    const float xv = pattern_float(kXSeed, t * k + kk);
    const float wv = pattern_float(kWSeed, f * k + kk);
    const float xr = fp8 ? fp8_e4m3_round_host(xv) : bf16_round_host(xv);
    const float wr = fp8 ? fp8_e4m3_round_host(wv) : bf16_round_host(wv);
    ref += static_cast<double>(xr) * static_cast<double>(wr);
  }
  return ref;
}

// What every GEMM of a run shares: the device's properties, the cuBLASLt handle, the stream and the
// workspace.
struct GemmBench {
  const GpuBenchConfig& c;
  const cudaDeviceProp& prop;
  int sms;
  const LtHandle& lt;
  const Stream& s;
  const DeviceBuffer<unsigned char>& workspace;

  // `count` elements of the pattern `seed`, in fp8 e4m3 or bf16.
  void fill_input(bool fp8, void* p, std::uint64_t count, std::uint64_t seed) const {
    if (fp8)
      fill_fp8_e4m3(p, count, seed, s.get(), sms);
    else
      fill_bf16(p, count, seed, s.get(), sms);
  }

  // Copies of the weights W [n, k], enough to exceed L2 (2.5 x its size, 1 to 8 copies).
  std::vector<DeviceBuffer<unsigned char>> weight_copies(bool fp8, std::uint64_t n, std::uint64_t k,
                                                         std::size_t in_size) const {
    const std::uint64_t w_bytes = n * k * in_size;
    const int copies = static_cast<int>(std::clamp<std::uint64_t>(
        (5 * static_cast<std::uint64_t>(prop.l2CacheSize) / 2 + w_bytes - 1) / w_bytes, 1, 8));
    std::vector<DeviceBuffer<unsigned char>> w;
    for (int i = 0; i < copies; ++i) {
      w.emplace_back(w_bytes);
      fill_input(fp8, w.back().get(), n * k, kWSeed);
    }
    return w;
  }

  // Sampled outputs of one call, against the CPU reference: the relative error; throws when an
  // output is missing or the error is too large.
  double check_output(const std::string& label, bool fp8, std::uint64_t m, std::uint64_t n, std::uint64_t k,
                      const DeviceBuffer<std::uint16_t>& y) const {
    RngStream rng(c.seed, "gemm/" + label);
    const std::size_t samples = static_cast<std::size_t>(std::min<std::uint64_t>(96, m * n));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> at;  // (token, feature)
    at.push_back({0, 0});
    at.push_back({m - 1, n - 1});
    while (at.size() < samples)
      at.push_back({static_cast<std::uint64_t>(rng.uniform_int(0, static_cast<std::int64_t>(m) - 1)),
                    static_cast<std::uint64_t>(rng.uniform_int(0, static_cast<std::int64_t>(n) - 1))});
    std::vector<std::uint16_t> got(at.size());
    for (std::size_t i = 0; i < at.size(); ++i)
      ENGRAMSIM_CUDA(
          cudaMemcpyAsync(&got[i], y.get() + at[i].first * n + at[i].second, 2, cudaMemcpyDeviceToHost, s.get()));
    ENGRAMSIM_CUDA(cudaStreamSynchronize(s.get()));
    double err2 = 0.0, ref2 = 0.0;
    for (std::size_t i = 0; i < at.size(); ++i) {
      const auto [t, f] = at[i];
      const double ref = reference_output(fp8, t, f, k);
      const double out = bf16_to_float(got[i]);
      if (!std::isfinite(out))
        throw GpuCorrectnessError("GEMM " + label + ": output (" + std::to_string(t) + ", " + std::to_string(f) +
                                  ") not written or not finite");
      err2 += (out - ref) * (out - ref);
      ref2 += ref * ref;
    }
    const double rel = ref2 > 0.0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    // BF16 output rounding alone gives ~2e-3; 1e-2 leaves room for FP32 accumulation order.
    if (!(rel < 1e-2))
      throw GpuCorrectnessError("GEMM " + label + ": relative error " + std::to_string(rel) +
                                " against the CPU reference");
    return rel;
  }

  // One shape at one precision (bf16 or fp8) into run.points, or the reason into run.skipped.
  void measure(Precision prec, const GemmShape& sh, GemmRun& run) const {
    const bool fp8 = prec == Precision::fp8;
    const cudaDataType_t in_type = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    const std::size_t in_size = fp8 ? 1 : 2;
    const std::string label = std::string(fp8 ? "fp8" : "bf16") + " m=" + std::to_string(sh.m) +
                              " n=" + std::to_string(sh.n) + " k=" + std::to_string(sh.k);
    if (sh.m < 1 || sh.n < 16 || sh.k < 16 || sh.n % 16 != 0 || sh.k % 16 != 0) {
      run.skipped.push_back(label + ": n and k must be multiples of 16");
      return;
    }
    const auto m = static_cast<std::uint64_t>(sh.m), n = static_cast<std::uint64_t>(sh.n),
               k = static_cast<std::uint64_t>(sh.k);
    const std::vector<DeviceBuffer<unsigned char>> w = weight_copies(fp8, n, k, in_size);
    DeviceBuffer<unsigned char> x(m * k * in_size);
    fill_input(fp8, x.get(), m * k, kXSeed);
    DeviceBuffer<std::uint16_t> y(m * n);

    Desc d;
    describe_tn(d, in_type, m, n, k);
    cublasLtMatmulHeuristicResult_t heur{};
    int found = 0;
    const cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(lt.h, d.op, d.a, d.b, d.d, d.d, d.pref, 1, &heur, &found);
    if (hs != CUBLAS_STATUS_SUCCESS || found == 0) {
      run.skipped.push_back(label + ": no cuBLASLt algorithm (" + cublasLtGetStatusName(hs) + ")");
      return;
    }
    const float alpha = 1.0f, beta = 0.0f;
    auto matmul = [&](int rep) {
      const void* wa = w[static_cast<std::size_t>(rep) % w.size()].get();
      ENGRAMSIM_LT(cublasLtMatmul(lt.h, d.op, &alpha, wa, d.a, x.get(), d.b, &beta, y.get(), d.d, y.get(), d.d,
                                  &heur.algo, workspace.get(), kWorkspaceBytes, s.get()));
    };

    // Correctness first: poisoned output (bf16 NaN), one call, sampled outputs against a
    // double-precision CPU reference on identically rounded inputs.
    ENGRAMSIM_CUDA(cudaMemsetAsync(y.get(), 0xff, m * n * 2, s.get()));
    matmul(0);
    ENGRAMSIM_CUDA(cudaStreamSynchronize(s.get()));
    const double rel = check_output(label, fp8, m, n, k, y);

    GemmPointResult p;
    p.precision = prec;
    p.shape = sh;
    p.relative_error = rel;
    p.seconds = time_on_stream(s.get(), c.warmup, c.repetitions, matmul);
    run.points.push_back(std::move(p));
  }
};

}  // namespace
}  // namespace cuda

using namespace cuda;

GemmRun gpu_gemm(const GpuBenchConfig& c, const std::vector<GemmShape>& shapes,
                 const std::vector<Precision>& precisions) {
  DeviceGuard guard(c.device);
  const int sms = sm_count(c.device);
  cudaDeviceProp prop{};
  ENGRAMSIM_CUDA(cudaGetDeviceProperties(&prop, c.device));
  const bool fp8_ok = prop.major * 10 + prop.minor >= 89;  // e4m3 tensor cores: Ada / Hopper and later
  LtHandle lt;
  Stream s;
  DeviceBuffer<unsigned char> workspace(kWorkspaceBytes);
  GemmRun run;
  run.library = cublaslt_version();
  const GemmBench bench{c, prop, sms, lt, s, workspace};
  for (const Precision prec : precisions) {
    if (prec != Precision::bf16 && prec != Precision::fp8) {
      run.skipped.push_back(std::string("precision ") + (prec == Precision::fp16 ? "fp16" : "fp4/fp32") +
                            ": not benchmarked");
      continue;
    }
    const bool fp8 = prec == Precision::fp8;
    if (fp8 && !fp8_ok) {
      run.skipped.push_back("fp8: needs compute capability 8.9 or later, device has " + std::to_string(prop.major) +
                            "." + std::to_string(prop.minor));
      continue;
    }
    for (const GemmShape& sh : shapes) bench.measure(prec, sh, run);
  }
  return run;
}

}  // namespace engramsim::calibration
