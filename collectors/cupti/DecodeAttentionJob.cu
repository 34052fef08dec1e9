// Split-KV decode attention (flash-decoding), the `decode_attention` operator of
// docs/formats.md: one query token per sequence and KV head group against a KV cache cut into S
// chunks of L keys. A first kernel gives each (sequence x KV head, chunk) one thread block, which
// streams its chunk's keys in tiles with an online softmax and writes a partial output with its
// running max and sum (fp32); a second kernel combines the S partials of each query head.
//   Q[B, H, D], K[B, S, L, D], V[B, S, L, D] -> O[B, H, D]
// B counts sequences x KV heads, H the query heads that share one (grouped-query attention).
// The reference runs one thread per (b, h) over every key, in fp32.
#include "DeviceError.hpp"
#include "DeviceJob.hpp"
#include "DeviceTypes.cuh"

namespace ts::cupti {
namespace {

constexpr int kThreads = 128;    // a block; also the keys of one tile
constexpr int kMaxOutputs = 16;  // (H x D) / kThreads accumulators a thread holds

struct Shape {
  int b = 0, h = 0, s = 0, l = 0, d = 0;
  float scale = 1;
};

template <typename T>
__global__ void decode_split(const T* __restrict__ q, const T* __restrict__ k,
                             const T* __restrict__ v, float* __restrict__ partial,
                             float* __restrict__ stats, Shape sh) {
  extern __shared__ float smem[];
  float* qs = smem;                      // [H][D]
  float* p = qs + sh.h * sh.d;           // [H][kThreads]
  float* rescale = p + sh.h * kThreads;  // [H]
  float* run_max = rescale + sh.h;       // [H]
  float* run_sum = run_max + sh.h;       // [H]
  const int b = blockIdx.x, chunk = blockIdx.y, t = threadIdx.x;
  for (int i = t; i < sh.h * sh.d; i += kThreads) qs[i] = to_float(q[size_t(b) * sh.h * sh.d + i]);
  for (int h = t; h < sh.h; h += kThreads) run_max[h] = -INFINITY, run_sum[h] = 0;
  float acc[kMaxOutputs];
  for (int j = 0; j < kMaxOutputs; ++j) acc[j] = 0;
  const size_t chunk_base = (size_t(b) * sh.s + chunk) * sh.l * sh.d;
  __syncthreads();
  for (int tile = 0; tile < sh.l; tile += kThreads) {
    const int key = tile + t, keys = min(kThreads, sh.l - tile);
    // Scores: a thread per key of the tile, every query head of the group.
    for (int h = 0; h < sh.h; ++h) {
      float s = -INFINITY;
      if (key < sh.l) {
        s = 0;
        const T* krow = k + chunk_base + size_t(key) * sh.d;
        for (int d = 0; d < sh.d; ++d) s += qs[h * sh.d + d] * to_float(krow[d]);
        s *= sh.scale;
      }
      p[h * kThreads + t] = s;
    }
    __syncthreads();
    // The online softmax's bookkeeping, a thread per head.
    for (int h = t; h < sh.h; h += kThreads) {
      float m = run_max[h];
      for (int j = 0; j < keys; ++j) m = fmaxf(m, p[h * kThreads + j]);
      float sum = 0;
      for (int j = 0; j < keys; ++j) {
        const float e = __expf(p[h * kThreads + j] - m);
        p[h * kThreads + j] = e;
        sum += e;
      }
      rescale[h] = __expf(run_max[h] - m);
      run_sum[h] = run_sum[h] * rescale[h] + sum;
      run_max[h] = m;
    }
    __syncthreads();
    // The partial output: threads over (head, dimension), reading V a row at a time.
    for (int j = 0, i = t; i < sh.h * sh.d; ++j, i += kThreads) {
      const int h = i / sh.d, d = i % sh.d;
      float a = acc[j] * rescale[h];
      for (int n = 0; n < keys; ++n)
        a += p[h * kThreads + n] * to_float(v[chunk_base + size_t(tile + n) * sh.d + d]);
      acc[j] = a;
    }
    __syncthreads();
  }
  const size_t out = (size_t(b) * sh.s + chunk) * sh.h * sh.d;
  for (int j = 0, i = t; i < sh.h * sh.d; ++j, i += kThreads) partial[out + i] = acc[j];
  for (int h = t; h < sh.h; h += kThreads) {
    const size_t at = ((size_t(b) * sh.s + chunk) * sh.h + h) * 2;
    stats[at] = run_max[h];
    stats[at + 1] = run_sum[h];
  }
}

template <typename T>
__global__ void decode_combine(const float* __restrict__ partial, const float* __restrict__ stats,
                               T* __restrict__ o, Shape sh) {
  const int b = blockIdx.x;
  for (int i = threadIdx.x; i < sh.h * sh.d; i += blockDim.x) {
    const int h = i / sh.d;
    float m = -INFINITY;
    for (int c = 0; c < sh.s; ++c) m = fmaxf(m, stats[((size_t(b) * sh.s + c) * sh.h + h) * 2]);
    float num = 0, den = 0;
    for (int c = 0; c < sh.s; ++c) {
      const size_t at = ((size_t(b) * sh.s + c) * sh.h + h) * 2;
      const float w = __expf(stats[at] - m);
      num += w * partial[(size_t(b) * sh.s + c) * sh.h * sh.d + i];
      den += w * stats[at + 1];
    }
    o[size_t(b) * sh.h * sh.d + i] = from_float<T>(num / den);
  }
}

template <typename T>
__global__ void reference_attention(const T* q, const T* k, const T* v, float* out, Shape sh) {
  const int bh = blockIdx.x * blockDim.x + threadIdx.x;
  if (bh >= sh.b * sh.h) return;
  const int b = bh / sh.h, h = bh % sh.h, keys = sh.s * sh.l;
  const T* qrow = q + size_t(bh) * sh.d;
  const size_t base = size_t(b) * keys * sh.d;
  float m = -INFINITY;
  for (int n = 0; n < keys; ++n) {
    float s = 0;
    for (int d = 0; d < sh.d; ++d)
      s += to_float(qrow[d]) * to_float(k[base + size_t(n) * sh.d + d]);
    m = fmaxf(m, s * sh.scale);
  }
  float* o = out + size_t(bh) * sh.d;
  for (int d = 0; d < sh.d; ++d) o[d] = 0;
  double den = 0;
  for (int n = 0; n < keys; ++n) {
    float s = 0;
    for (int d = 0; d < sh.d; ++d)
      s += to_float(qrow[d]) * to_float(k[base + size_t(n) * sh.d + d]);
    const float w = expf(s * sh.scale - m);
    den += w;
    for (int d = 0; d < sh.d; ++d) o[d] += w * to_float(v[base + size_t(n) * sh.d + d]);
  }
  for (int d = 0; d < sh.d; ++d) o[d] = float(o[d] / den);
  (void)h;
}

class DecodeAttentionJob : public DeviceJob {
 public:
  explicit DecodeAttentionJob(const PlanJob& job) : job_(job) {
    sh_.b = static_cast<int>(job.dim("B"));
    sh_.h = static_cast<int>(job.dim("H"));
    sh_.s = static_cast<int>(job.dim("S"));
    sh_.l = static_cast<int>(job.dim("L"));
    sh_.d = static_cast<int>(job.dim("D"));
    sh_.scale = 1.f / sqrtf(static_cast<float>(sh_.d));
    if (sh_.h * sh_.d > kThreads * kMaxOutputs)
      throw DeviceError("decode attention: at most " + std::to_string(kThreads * kMaxOutputs) +
                        " query values (H x D) per KV head");
    const size_t e = dtype_bytes(job.dtype), nq = size_t(sh_.b) * sh_.h * sh_.d,
                 nkv = size_t(sh_.b) * sh_.s * sh_.l * sh_.d;
    q_ = std::make_unique<DeviceBuffer>(nq * e);
    k_ = std::make_unique<DeviceBuffer>(nkv * e);
    v_ = std::make_unique<DeviceBuffer>(nkv * e);
    o_ = std::make_unique<DeviceBuffer>(nq * e);
    partial_ = std::make_unique<DeviceBuffer>(size_t(sh_.s) * nq * sizeof(float));
    stats_ = std::make_unique<DeviceBuffer>(size_t(sh_.b) * sh_.s * sh_.h * 2 * sizeof(float));
    fill_uniform(q_->get(), nq, job.dtype, 3, nullptr);
    fill_uniform(k_->get(), nkv, job.dtype, 4, nullptr);
    fill_uniform(v_->get(), nkv, job.dtype, 5, nullptr);
    smem_ = (size_t(sh_.h) * sh_.d + size_t(sh_.h) * kThreads + 3 * size_t(sh_.h)) * sizeof(float);
    if (smem_ > 48 * 1024) throw DeviceError("decode attention: the group's queries exceed 48 KiB");
    TS_CUDA(cudaDeviceSynchronize());
  }

  void launch(cudaStream_t stream) override {
    with_device_type(job_.dtype, [&](auto type) { run<decltype(type)>(stream); });
  }

  CheckOutcome check(cudaStream_t stream) override {
    const size_t n = size_t(sh_.b) * sh_.h * sh_.d;
    DeviceBuffer ref(n * sizeof(float));
    const int blocks = (sh_.b * sh_.h + 127) / 128;
    with_device_type(job_.dtype, [&](auto type) {
      using T = decltype(type);
      reference_attention<T>
          <<<blocks, 128, 0, stream>>>(q_->as<T>(), k_->as<T>(), v_->as<T>(), ref.as<float>(), sh_);
    });
    TS_CUDA(cudaGetLastError());
    CheckOutcome out;
    out.reference = "sequential fp32 softmax attention, one thread per query head";
    out.max_error = normalized_max_error(o_->get(), ref.as<float>(), n, job_.dtype, stream);
    out.tolerance = tolerance_for(job_.dtype);
    return out;
  }

  std::string algorithm() const override {
    return "split-KV decode attention: a block of " + std::to_string(kThreads) +
           " threads per KV head and chunk (" + std::to_string(sh_.s) +
           " chunks), online softmax over tiles of " + std::to_string(kThreads) +
           " keys, then a combine kernel";
  }

 private:
  template <typename T>
  void run(cudaStream_t stream) {
    decode_split<T><<<dim3(sh_.b, sh_.s), kThreads, smem_, stream>>>(
        q_->as<T>(), k_->as<T>(), v_->as<T>(), partial_->as<float>(), stats_->as<float>(), sh_);
    decode_combine<T><<<sh_.b, std::min(1024, (sh_.h * sh_.d + 31) / 32 * 32), 0, stream>>>(
        partial_->as<float>(), stats_->as<float>(), o_->as<T>(), sh_);
  }

  PlanJob job_;
  Shape sh_;
  size_t smem_ = 0;
  std::unique_ptr<DeviceBuffer> q_, k_, v_, o_, partial_, stats_;
};

}  // namespace

std::unique_ptr<DeviceJob> make_decode_attention_job(const PlanJob& job) {
  return std::make_unique<DecodeAttentionJob>(job);
}

}  // namespace ts::cupti
