// The row kernels of an LLM decoder layer as vLLM writes them (csrc/layernorm_kernels.cu,
// activation_kernels.cu, pos_encoding_kernels.cu): one thread block per token, looping over the
// token's row in strides of the block, one element (or one rotated pair) per thread a stride.
// These are what the NVIDIA graphs' rmsnorm, silu_mul and rope templates model
// (samples/mappings/nvidia-*-template.yaml), so that their strides can be timed on the device:
//   rmsnorm   X[rows, cols], gamma[cols] -> Y: a sum of squares, then the scaling (two loops)
//   silu_mul  X[rows, cols] (gate), Z[rows, cols] (up) -> Y = SiLU(X) Z
//   rope      X[T, H, D] with cos and sin [T, D/2] per token (neox style: the halves of a head
//             rotate together) -> Y; out of place, so that every repetition reads the same input
// The references run one thread per row, sequentially, in fp32.
#include "DeviceError.hpp"
#include "DeviceJob.hpp"
#include "DeviceTypes.cuh"

namespace ts::cupti {
namespace {

constexpr float kEpsilon = 1e-6f;  // Llama's rms_norm_eps

__device__ float block_sum(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < (blockDim.x + 31) / 32 ? scratch[lane] : 0.f;
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <typename T>
__global__ void rms_norm(const T* __restrict__ x, const T* __restrict__ gamma, T* __restrict__ y,
                         int cols) {
  __shared__ float scratch[32];
  const size_t base = size_t(blockIdx.x) * cols;
  float sq = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float v = to_float(x[base + c]);
    sq += v * v;
  }
  const float inv = rsqrtf(block_sum(sq, scratch) / cols + kEpsilon);
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    y[base + c] = from_float<T>(to_float(x[base + c]) * inv * to_float(gamma[c]));
}

template <typename T>
__global__ void silu_and_mul(const T* __restrict__ gate, const T* __restrict__ up,
                             T* __restrict__ y, int cols) {
  const size_t base = size_t(blockIdx.x) * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    const float g = to_float(__ldg(&gate[base + c]));
    y[base + c] = from_float<T>(g / (1.f + __expf(-g)) * to_float(__ldg(&up[base + c])));
  }
}

// vLLM reads the token's position first and its cos/sin row from a cache by it; here the cache
// holds one row per token and the positions are 0..T-1, which keeps that dependent load.
template <typename T>
__global__ void rotary(const int64_t* __restrict__ positions, const T* __restrict__ cos_sin,
                       const T* __restrict__ x, T* __restrict__ y, int heads, int head_dim) {
  const int token = blockIdx.x, half = head_dim / 2;
  const T* cache = cos_sin + positions[token] * head_dim;  // cos: [0, half), sin: [half, dim)
  const size_t base = size_t(token) * heads * head_dim;
  for (int i = threadIdx.x; i < heads * half; i += blockDim.x) {
    const int head = i / half, r = i % half;
    const size_t a = base + size_t(head) * head_dim + r, b = a + half;
    const float c = to_float(cache[r]), s = to_float(cache[half + r]);
    const float u = to_float(x[a]), v = to_float(x[b]);
    y[a] = from_float<T>(u * c - v * s);
    y[b] = from_float<T>(v * c + u * s);
  }
}

enum class RowKernel { rmsnorm, silu_mul, rope };

template <typename T>
__global__ void reference_rows(RowKernel kind, const T* x, const T* z, const T* gamma,
                               const T* cos_sin, float* out, int rows, int cols, int head_dim) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const size_t base = size_t(r) * cols;
  if (kind == RowKernel::rmsnorm) {
    double sq = 0;
    for (int c = 0; c < cols; ++c) sq += double(to_float(x[base + c])) * to_float(x[base + c]);
    const double inv = 1.0 / sqrt(sq / cols + kEpsilon);
    for (int c = 0; c < cols; ++c)
      out[base + c] = float(to_float(x[base + c]) * inv) * to_float(gamma[c]);
  } else if (kind == RowKernel::silu_mul) {
    for (int c = 0; c < cols; ++c) {
      const float g = to_float(x[base + c]);
      out[base + c] = g / (1.f + expf(-g)) * to_float(z[base + c]);
    }
  } else {
    const int half = head_dim / 2;
    const T* cache = cos_sin + size_t(r) * head_dim;
    for (int h = 0; h < cols / head_dim; ++h)
      for (int i = 0; i < half; ++i) {
        const size_t a = base + size_t(h) * head_dim + i, b = a + half;
        const float c = to_float(cache[i]), s = to_float(cache[half + i]);
        out[a] = to_float(x[a]) * c - to_float(x[b]) * s;
        out[b] = to_float(x[b]) * c + to_float(x[a]) * s;
      }
  }
}

__global__ void count_positions(int64_t* positions, int tokens) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < tokens) positions[t] = t;
}

class LlmRowJob : public DeviceJob {
 public:
  explicit LlmRowJob(const PlanJob& job) : job_(job) {
    if (job.type == "rmsnorm" || job.type == "silu_mul") {
      kind_ = job.type == "rmsnorm" ? RowKernel::rmsnorm : RowKernel::silu_mul;
      rows_ = static_cast<int>(job.dim("rows"));
      cols_ = static_cast<int>(job.dim("cols"));
    } else {
      kind_ = RowKernel::rope;
      heads_ = static_cast<int>(job.dim("H"));
      head_dim_ = static_cast<int>(job.dim("D"));
      if (head_dim_ % 2 != 0) throw DeviceError("rope needs an even head dimension");
      rows_ = static_cast<int>(job.dim("T"));
      cols_ = heads_ * head_dim_;
    }
    const size_t n = size_t(rows_) * cols_, e = dtype_bytes(job.dtype);
    x_ = std::make_unique<DeviceBuffer>(n * e);
    out_ = std::make_unique<DeviceBuffer>(n * e);
    fill_uniform(x_->get(), n, job.dtype, 3, nullptr);
    if (kind_ == RowKernel::silu_mul) {
      z_ = std::make_unique<DeviceBuffer>(n * e);
      fill_uniform(z_->get(), n, job.dtype, 4, nullptr);
    } else if (kind_ == RowKernel::rmsnorm) {
      gamma_ = std::make_unique<DeviceBuffer>(size_t(cols_) * e);
      fill_uniform(gamma_->get(), cols_, job.dtype, 5, nullptr);
    } else {
      cos_sin_ = std::make_unique<DeviceBuffer>(size_t(rows_) * head_dim_ * e);
      fill_uniform(cos_sin_->get(), size_t(rows_) * head_dim_, job.dtype, 6, nullptr);
      positions_ = std::make_unique<DeviceBuffer>(size_t(rows_) * sizeof(int64_t));
      count_positions<<<(rows_ + 255) / 256, 256>>>(positions_->as<int64_t>(), rows_);
      TS_CUDA(cudaGetLastError());
    }
    TS_CUDA(cudaDeviceSynchronize());
  }

  void launch(cudaStream_t stream) override {
    with_device_type(job_.dtype, [&](auto type) { run<decltype(type)>(stream); });
  }

  CheckOutcome check(cudaStream_t stream) override {
    const size_t n = size_t(rows_) * cols_;
    DeviceBuffer ref(n * sizeof(float));
    with_device_type(job_.dtype,
                     [&](auto type) { reference<decltype(type)>(ref.as<float>(), stream); });
    CheckOutcome out;
    out.reference = "sequential fp32 kernel, one thread per row";
    out.max_error = normalized_max_error(out_->get(), ref.as<float>(), n, job_.dtype, stream);
    out.tolerance = tolerance_for(job_.dtype);
    return out;
  }

  std::string algorithm() const override {
    return "vLLM-style row kernel: one block of " + std::to_string(threads()) +
           " threads per token, strides of the block";
  }

 private:
  // vLLM's block sizes: min(cols, 1024) for the norm and the activation, min(heads x dim / 2,
  // 512) for the rotary embedding.
  int threads() const {
    const int want = kind_ == RowKernel::rope ? std::min(cols_ / 2, 512) : std::min(cols_, 1024);
    return std::max(32, (want + 31) / 32 * 32);
  }

  template <typename T>
  void run(cudaStream_t stream) {
    const T* x = x_->as<T>();
    T* y = out_->as<T>();
    if (kind_ == RowKernel::rmsnorm)
      rms_norm<T><<<rows_, threads(), 0, stream>>>(x, gamma_->as<T>(), y, cols_);
    else if (kind_ == RowKernel::silu_mul)
      silu_and_mul<T><<<rows_, threads(), 0, stream>>>(x, z_->as<T>(), y, cols_);
    else
      rotary<T><<<rows_, threads(), 0, stream>>>(positions_->as<int64_t>(), cos_sin_->as<T>(), x, y,
                                                 heads_, head_dim_);
  }

  template <typename T>
  void reference(float* ref, cudaStream_t stream) {
    reference_rows<T><<<(rows_ + 127) / 128, 128, 0, stream>>>(
        kind_, x_->as<T>(), z_ ? z_->as<T>() : nullptr, gamma_ ? gamma_->as<T>() : nullptr,
        cos_sin_ ? cos_sin_->as<T>() : nullptr, ref, rows_, cols_, head_dim_);
    TS_CUDA(cudaGetLastError());
  }

  PlanJob job_;
  RowKernel kind_ = RowKernel::rmsnorm;
  int rows_ = 0, cols_ = 0, heads_ = 0, head_dim_ = 0;
  std::unique_ptr<DeviceBuffer> x_, z_, gamma_, cos_sin_, positions_, out_;
};

}  // namespace

std::unique_ptr<DeviceJob> make_llm_row_job(const PlanJob& job) {
  return std::make_unique<LlmRowJob>(job);
}

}  // namespace ts::cupti
