// Decode-attention proxy: one query token per sequence, grouped-query attention over a bf16 KV
// cache (Llama-3-70B's per-layer shape by default: 8 KV heads of 128, 8 query heads per KV head),
// split over the context (flash-decoding) and combined in a second kernel. It reads every K and V
// byte once, so KV bytes / time is the bandwidth a paged decode kernel can reach at that batch
// and context. It runs on CUDA cores, not tensor cores: a lower bound for tuned kernels.
#include <cuda_bf16.h>

#include <cmath>

#include "calibration/cuda/cuda_common.cuh"

namespace engramsim::calibration {
namespace cuda {
namespace {

constexpr int kHeadDim = 128;
constexpr int kGroup = 8;    // query heads per KV head
constexpr int kChunk = 256;  // tokens per split
constexpr int kWarps = 4;    // splits per block
constexpr std::uint64_t kQSeed = 0xa77e000000000001ULL;
constexpr std::uint64_t kKSeed = 0xa77e000000000002ULL;
constexpr std::uint64_t kVSeed = 0xa77e000000000003ULL;

__device__ inline float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ inline float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// The block's kGroup query heads, as floats, into shared memory (every thread takes part).
__device__ __forceinline__ void load_queries(const __nv_bfloat16* q, float* qs, int bh) {
  for (int i = threadIdx.x; i < kGroup * kHeadDim; i += blockDim.x)
    qs[i] = __bfloat162float(q[static_cast<std::size_t>(bh) * kGroup * kHeadDim + i]);
}

// Online softmax state per query head: running max m, running sum l, and this lane's 4 dims of the
// unnormalised output.
__device__ __forceinline__ void init_softmax_state(float (&m)[kGroup], float (&l)[kGroup], float (&acc)[kGroup][4]) {
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    m[g] = -INFINITY;
    l[g] = 0.0f;
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[g][e] = 0.0f;
  }
}

// Partial dot products over dims [c * 8, c * 8 + 8): s[g] += q_g . kv for every query head of the group.
__device__ __forceinline__ void add_chunk_scores(const float* qs, int c, const float (&kv)[8], float (&s)[kGroup]) {
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    const float* qg = qs + g * kHeadDim + c * 8;
#pragma unroll
    for (int e = 0; e < 8; ++e) s[g] = fmaf(qg[e], kv[e], s[g]);
  }
}

// Online softmax over one tile of 32 tokens: the new running max, the tile's unnormalised
// probabilities p (0 for lanes past the split), and l and acc rescaled to the new max.
__device__ __forceinline__ void online_softmax_step(const float (&s)[kGroup], bool valid, float scale,
                                                    float (&m)[kGroup], float (&l)[kGroup], float (&acc)[kGroup][4],
                                                    float (&p)[kGroup]) {
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    const float sg = valid ? s[g] * scale : -INFINITY;
    const float m_new = fmaxf(m[g], warp_max(sg));  // finite: lane 0 of a tile is always valid
    p[g] = valid ? __expf(sg - m_new) : 0.0f;
    const float corr = __expf(m[g] - m_new);
    l[g] = l[g] * corr + warp_sum(p[g]);
#pragma unroll
    for (int e = 0; e < 4; ++e) acc[g][e] *= corr;
    m[g] = m_new;
  }
}

// P.V for the tile's n_valid tokens starting at `tile`: each lane adds its 4 dims of every V row,
// weighted by the token's p (taken from the lane that owns the token).
__device__ __forceinline__ void accumulate_values(const __nv_bfloat16* v, std::size_t base, int tile, int n_valid,
                                                  int lane, const float (&p)[kGroup], float (&acc)[kGroup][4]) {
  for (int j = 0; j < n_valid; ++j) {
    const uint2 raw = *reinterpret_cast<const uint2*>(v + (base + tile + j) * kHeadDim + lane * 4);
    const __nv_bfloat162* h2 = reinterpret_cast<const __nv_bfloat162*>(&raw);
    const float2 a = __bfloat1622float2(h2[0]);
    const float2 b = __bfloat1622float2(h2[1]);
#pragma unroll
    for (int g = 0; g < kGroup; ++g) {
      const float pj = __shfl_sync(0xffffffffu, p[g], j);
      acc[g][0] = fmaf(pj, a.x, acc[g][0]);
      acc[g][1] = fmaf(pj, a.y, acc[g][1]);
      acc[g][2] = fmaf(pj, b.x, acc[g][2]);
      acc[g][3] = fmaf(pj, b.y, acc[g][3]);
    }
  }
}

// The split's softmax state into workspace slot `slot`, for the combine kernel to merge.
__device__ __forceinline__ void store_split_state(float* ws_m, float* ws_l, float* ws_acc, std::size_t slot, int lane,
                                                  const float (&m)[kGroup], const float (&l)[kGroup],
                                                  const float (&acc)[kGroup][4]) {
#pragma unroll
  for (int g = 0; g < kGroup; ++g) {
    if (lane == 0) {
      ws_m[slot * kGroup + g] = m[g];
      ws_l[slot * kGroup + g] = l[g];
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) ws_acc[(slot * kGroup + g) * kHeadDim + lane * 4 + e] = acc[g][e];
  }
}

// grid (ceil(splits / kWarps), batch * kv_heads), block 32 * kWarps. Each warp owns one split of
// kChunk tokens of one (sequence, KV head): scores with lanes owning tokens, then P.V with lanes
// owning 4 of the 128 dims; online softmax state per query head in registers.
__global__ void attention_split_kernel(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                                       const __nv_bfloat16* __restrict__ v, float* __restrict__ ws_m,
                                       float* __restrict__ ws_l, float* __restrict__ ws_acc, int context, int splits) {
  __shared__ float qs[kGroup * kHeadDim];
  const int bh = blockIdx.y;
  load_queries(q, qs, bh);
  __syncthreads();
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int split = blockIdx.x * kWarps + warp;
  if (split >= splits) return;
  const int t0 = split * kChunk;
  const int t1 = min(context, t0 + kChunk);
  const std::size_t base = static_cast<std::size_t>(bh) * context;
  const float scale = rsqrtf(static_cast<float>(kHeadDim));

  float m[kGroup], l[kGroup], acc[kGroup][4];
  init_softmax_state(m, l, acc);
  for (int tile = t0; tile < t1; tile += 32) {
    const int t = tile + lane;
    const bool valid = t < t1;
    float s[kGroup];
#pragma unroll
    for (int g = 0; g < kGroup; ++g) s[g] = 0.0f;
    // Scores of the lane's token. This loop stays here: moved into a helper it is unrolled before
    // inlining, and the kernel compiles to different register assignments.
    if (valid) {
      const uint4* kr = reinterpret_cast<const uint4*>(k + (base + t) * kHeadDim);
#pragma unroll 4
      for (int c = 0; c < kHeadDim / 8; ++c) {
        const uint4 raw = kr[c];
        const __nv_bfloat162* h2 = reinterpret_cast<const __nv_bfloat162*>(&raw);
        float kv[8];
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const float2 f = __bfloat1622float2(h2[e]);
          kv[2 * e] = f.x;
          kv[2 * e + 1] = f.y;
        }
        add_chunk_scores(qs, c, kv, s);
      }
    }
    float p[kGroup];
    online_softmax_step(s, valid, scale, m, l, acc, p);
    accumulate_values(v, base, tile, min(32, t1 - tile), lane, p, acc);
  }
  store_split_state(ws_m, ws_l, ws_acc, static_cast<std::size_t>(bh) * splits + split, lane, m, l, acc);
}

// grid batch * kv_heads, block kGroup * kHeadDim: one thread per output element.
__global__ void attention_combine_kernel(const float* __restrict__ ws_m, const float* __restrict__ ws_l,
                                         const float* __restrict__ ws_acc, float* __restrict__ out, int splits) {
  const int bh = blockIdx.x;
  const int g = threadIdx.x / kHeadDim;
  const int d = threadIdx.x % kHeadDim;
  const std::size_t first = static_cast<std::size_t>(bh) * splits;
  float mx = -INFINITY;
  for (int s = 0; s < splits; ++s) mx = fmaxf(mx, ws_m[(first + s) * kGroup + g]);
  float num = 0.0f, den = 0.0f;
  for (int s = 0; s < splits; ++s) {
    const float w = __expf(ws_m[(first + s) * kGroup + g] - mx);
    num += w * ws_acc[((first + s) * kGroup + g) * kHeadDim + d];
    den += w * ws_l[(first + s) * kGroup + g];
  }
  out[(static_cast<std::size_t>(bh) * kGroup + g) * kHeadDim + d] = num / den;
}

// Adds to err2 and ref2 the squared errors and squared reference values of one (sequence, KV head)'s
// outputs in `got`, against a double-precision CPU reference on the same bf16 inputs.
void check_decode_head(const std::vector<float>& got, const AttentionCase& ac, std::uint64_t bh, double& err2,
                       double& ref2) {
  const std::uint64_t ctx = static_cast<std::uint64_t>(ac.context);
  std::vector<double> kf(ctx * kHeadDim), vf(ctx * kHeadDim);
  for (std::uint64_t i = 0; i < ctx * kHeadDim; ++i) {
    kf[i] = bf16_round_host(pattern_float(kKSeed, bh * ctx * kHeadDim + i));
    vf[i] = bf16_round_host(pattern_float(kVSeed, bh * ctx * kHeadDim + i));
  }
  for (int g = 0; g < kGroup; ++g) {
    std::vector<double> qv(kHeadDim);
    for (int d = 0; d < kHeadDim; ++d)
      qv[static_cast<std::size_t>(d)] = bf16_round_host(pattern_float(kQSeed, (bh * kGroup + g) * kHeadDim + d));
    std::vector<double> sc(ctx);
    double mx = -INFINITY;
    for (std::uint64_t t = 0; t < ctx; ++t) {
      double dot = 0.0;
      for (int d = 0; d < kHeadDim; ++d) dot += qv[static_cast<std::size_t>(d)] * kf[t * kHeadDim + d];
      sc[t] = dot / std::sqrt(static_cast<double>(kHeadDim));
      mx = std::max(mx, sc[t]);
    }
    double den = 0.0;
    for (auto& x : sc) den += (x = std::exp(x - mx));
    for (int d = 0; d < kHeadDim; ++d) {
      double o = 0.0;
      for (std::uint64_t t = 0; t < ctx; ++t) o += sc[t] * vf[t * kHeadDim + d];
      o /= den;
      const double y = got[(bh * kGroup + g) * kHeadDim + d];
      if (!std::isfinite(y))
        throw GpuCorrectnessError("attention decode: output not written or not finite (batch " +
                                  std::to_string(ac.batch) + ", context " + std::to_string(ac.context) + ")");
      err2 += (y - o) * (y - o);
      ref2 += o * o;
    }
  }
}

// Relative error of the outputs against the CPU reference, which throws when it is too large.
double decode_relative_error(const std::vector<float>& got, const AttentionCase& ac, std::uint64_t heads) {
  // CPU reference (double) for the first, middle and last (sequence, KV head).
  double err2 = 0.0, ref2 = 0.0;
  for (const std::uint64_t bh : {std::uint64_t{0}, heads / 2, heads - 1}) check_decode_head(got, ac, bh, err2, ref2);
  const double rel = std::sqrt(err2 / std::max(ref2, 1e-300));
  if (!(rel < 2e-3))
    throw GpuCorrectnessError("attention decode: relative error " + std::to_string(rel) +
                              " against the CPU reference (batch " + std::to_string(ac.batch) + ", context " +
                              std::to_string(ac.context) + ")");
  return rel;
}

// One case: buffers filled with the pattern, one run checked against the CPU reference, then the
// timed runs.
AttentionPointResult decode_point(const GpuBenchConfig& c, const AttentionCase& ac, int kv_heads, int sms,
                                  const Stream& s) {
  if (ac.batch < 1 || ac.context < 1) throw std::invalid_argument("attention case needs batch and context >= 1");
  const std::uint64_t heads = static_cast<std::uint64_t>(ac.batch) * kv_heads;
  const std::uint64_t kv_elems = heads * static_cast<std::uint64_t>(ac.context) * kHeadDim;
  const int splits = static_cast<int>((ac.context + kChunk - 1) / kChunk);
  DeviceBuffer<__nv_bfloat16> q(heads * kGroup * kHeadDim), k(kv_elems), v(kv_elems);
  DeviceBuffer<float> ws_m(heads * splits * kGroup), ws_l(heads * splits * kGroup),
      ws_acc(heads * splits * kGroup * kHeadDim), out(heads * kGroup * kHeadDim);
  fill_bf16(q.get(), q.size(), kQSeed, s.get(), sms);
  fill_bf16(k.get(), k.size(), kKSeed, s.get(), sms);
  fill_bf16(v.get(), v.size(), kVSeed, s.get(), sms);
  ENGRAMSIM_CUDA(cudaMemsetAsync(out.get(), 0xff, out.bytes(), s.get()));  // NaN poison
  const dim3 grid1(static_cast<unsigned>((splits + kWarps - 1) / kWarps), static_cast<unsigned>(heads));
  auto launch = [&](int) {
    attention_split_kernel<<<grid1, 32 * kWarps, 0, s.get()>>>(q.get(), k.get(), v.get(), ws_m.get(), ws_l.get(),
                                                               ws_acc.get(), static_cast<int>(ac.context), splits);
    ENGRAMSIM_CUDA_LAUNCHED("attention_split_kernel");
    attention_combine_kernel<<<static_cast<unsigned>(heads), kGroup * kHeadDim, 0, s.get()>>>(
        ws_m.get(), ws_l.get(), ws_acc.get(), out.get(), splits);
    ENGRAMSIM_CUDA_LAUNCHED("attention_combine_kernel");
  };
  launch(0);
  std::vector<float> got(out.size());
  ENGRAMSIM_CUDA(cudaMemcpyAsync(got.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost, s.get()));
  ENGRAMSIM_CUDA(cudaStreamSynchronize(s.get()));
  const double rel = decode_relative_error(got, ac, heads);
  AttentionPointResult p;
  p.c = ac;
  p.kv_bytes = 2 * kv_elems * sizeof(__nv_bfloat16);
  p.relative_error = rel;
  p.seconds = time_on_stream(s.get(), c.warmup, c.repetitions, launch);
  return p;
}

}  // namespace
}  // namespace cuda

using namespace cuda;

AttentionRun gpu_attention_decode(const GpuBenchConfig& c, const std::vector<AttentionCase>& cases, int kv_heads) {
  DeviceGuard guard(c.device);
  const int sms = sm_count(c.device);
  AttentionRun run;
  run.kv_heads = kv_heads;
  run.q_heads_per_kv = kGroup;
  run.head_dim = kHeadDim;
  run.kernel = "GQA decode, bf16 KV, " + std::to_string(kv_heads) +
               " KV heads x 128, 8 query heads per KV head, "
               "split-K over 256-token chunks + combine, CUDA cores (FP32 math)";
  Stream s;
  for (const AttentionCase& ac : cases) run.points.push_back(decode_point(c, ac, kv_heads, sms, s));
  return run;
}

}  // namespace engramsim::calibration
