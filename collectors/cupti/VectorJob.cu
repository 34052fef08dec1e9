// Vector operators (add, GELU, softmax, layernorm) and fused chains of the vector steps of
// docs/formats.md (add+layernorm, bias+GELU, scale+mask+softmax, ...), one
// thread block per row with the row held in shared memory as fp32, so that a fused chain reads
// its inputs and writes its output once. The reference runs the same steps one thread per row,
// sequentially, in fp32.
#include "DeviceError.hpp"
#include "DeviceJob.hpp"
#include "DeviceTypes.cuh"

namespace ts::cupti {
namespace {

constexpr int kMaxSteps = 4;
enum Step : int {
  step_add = 1,
  step_mul,
  step_bias,
  step_scale,
  step_mask,
  step_relu,
  step_gelu,
  step_softmax,
  step_layernorm
};
// Megatron's attention scale for a head of 64 (1/sqrt(64)), and the value a masked score gets
// before the softmax (Megatron's fused scale-mask-softmax fills -10000).
constexpr float kScale = 0.125f;
constexpr float kMasked = -10000.f;

// The tensors a chain may read besides x: y (add, mul), a mask the shape of x (mask: masked where
// the mask is positive), and per-column vectors (bias; gamma and beta for layernorm).
template <typename T>
struct Operands {
  const T* x;
  const T* y;
  const T* mask;
  const T* bias;
  const T* gamma;
  const T* beta;
};

struct Chain {
  int count = 0;
  int steps[kMaxSteps] = {};
};

__device__ __forceinline__ float gelu(float x) {
  // tanh approximation (Hendrycks and Gimpel 2016), as Megatron's bias-GeLU uses
  return 0.5f * x * (1.f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
}

// Sum over the block; every thread gets the result. `scratch` holds 32 floats.
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

__device__ float block_max(float v, float* scratch) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < (blockDim.x + 31) / 32 ? scratch[lane] : -INFINITY;
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <typename T>
__global__ void row_chain(Operands<T> in, T* __restrict__ out, int cols, Chain chain) {
  extern __shared__ float row[];
  __shared__ float scratch[32];
  const size_t base = size_t(blockIdx.x) * cols;
  const T* __restrict__ x = in.x;
  const T* __restrict__ y = in.y;
  const T* __restrict__ gamma = in.gamma;
  const T* __restrict__ beta = in.beta;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] = to_float(x[base + c]);
  for (int s = 0; s < chain.count; ++s) {
    const int step = chain.steps[s];
    if (step == step_add) {
      for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] += to_float(y[base + c]);
    } else if (step == step_mul) {
      for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] *= to_float(y[base + c]);
    } else if (step == step_bias) {
      for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] += to_float(in.bias[c]);
    } else if (step == step_scale) {
      for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] *= kScale;
    } else if (step == step_mask) {
      for (int c = threadIdx.x; c < cols; c += blockDim.x)
        if (to_float(in.mask[base + c]) > 0.f) row[c] = kMasked;
    } else if (step == step_relu) {
      for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] = fmaxf(row[c], 0.f);
    } else if (step == step_gelu) {
      for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] = gelu(row[c]);
    } else if (step == step_softmax) {
      float m = -INFINITY;
      for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
      m = block_max(m, scratch);
      float sum = 0;
      for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        row[c] = __expf(row[c] - m);
        sum += row[c];
      }
      const float inv = 1.f / block_sum(sum, scratch);
      for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] *= inv;
    } else if (step == step_layernorm) {
      float sum = 0;
      for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += row[c];
      const float mean = block_sum(sum, scratch) / cols;
      float sq = 0;
      for (int c = threadIdx.x; c < cols; c += blockDim.x) sq += (row[c] - mean) * (row[c] - mean);
      const float inv_std = rsqrtf(block_sum(sq, scratch) / cols + 1e-5f);
      for (int c = threadIdx.x; c < cols; c += blockDim.x)
        row[c] = (row[c] - mean) * inv_std * to_float(gamma[c]) + to_float(beta[c]);
    }
    __syncthreads();
  }
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[base + c] = from_float<T>(row[c]);
}

template <typename T>
__global__ void reference_chain(Operands<T> in, float* out, int rows, int cols, Chain chain) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float* row = out + size_t(r) * cols;
  const size_t base = size_t(r) * cols;
  const T* x = in.x;
  const T* y = in.y;
  const T* gamma = in.gamma;
  const T* beta = in.beta;
  for (int c = 0; c < cols; ++c) row[c] = to_float(x[base + c]);
  for (int s = 0; s < chain.count; ++s) {
    const int step = chain.steps[s];
    if (step == step_add) {
      for (int c = 0; c < cols; ++c) row[c] += to_float(y[base + c]);
    } else if (step == step_mul) {
      for (int c = 0; c < cols; ++c) row[c] *= to_float(y[base + c]);
    } else if (step == step_bias) {
      for (int c = 0; c < cols; ++c) row[c] += to_float(in.bias[c]);
    } else if (step == step_scale) {
      for (int c = 0; c < cols; ++c) row[c] *= kScale;
    } else if (step == step_mask) {
      for (int c = 0; c < cols; ++c)
        if (to_float(in.mask[base + c]) > 0.f) row[c] = kMasked;
    } else if (step == step_relu) {
      for (int c = 0; c < cols; ++c) row[c] = fmaxf(row[c], 0.f);
    } else if (step == step_gelu) {
      for (int c = 0; c < cols; ++c) row[c] = 0.5f * row[c] * (1.f + erff(row[c] * 0.70710678f));
    } else if (step == step_softmax) {
      float m = -INFINITY, sum = 0;
      for (int c = 0; c < cols; ++c) m = fmaxf(m, row[c]);
      for (int c = 0; c < cols; ++c) sum += (row[c] = expf(row[c] - m));
      for (int c = 0; c < cols; ++c) row[c] /= sum;
    } else if (step == step_layernorm) {
      double mean = 0, var = 0;
      for (int c = 0; c < cols; ++c) mean += row[c];
      mean /= cols;
      for (int c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
      const double inv = 1.0 / sqrt(var / cols + 1e-5);
      for (int c = 0; c < cols; ++c)
        row[c] = float((row[c] - mean) * inv) * to_float(gamma[c]) + to_float(beta[c]);
    }
  }
}

Chain chain_of(const PlanJob& job) {
  std::vector<std::string> names = job.type == "fused" ? job.steps : std::vector{job.type};
  Chain chain;
  for (const auto& n : names) {
    if (chain.count == kMaxSteps) throw DeviceError("a fused chain has at most 4 steps");
    static const std::pair<const char*, Step> kSteps[] = {
        {"add", step_add},     {"mul", step_mul},         {"bias", step_bias},
        {"scale", step_scale}, {"mask", step_mask},       {"relu", step_relu},
        {"gelu", step_gelu},   {"softmax", step_softmax}, {"layernorm", step_layernorm}};
    int step = 0;
    for (const auto& [name, id] : kSteps)
      if (n == name) step = id;
    if (step == 0) throw DeviceError("the runner has no vector step '" + n + "'");
    chain.steps[chain.count++] = step;
  }
  return chain;
}

class VectorJob : public DeviceJob {
 public:
  explicit VectorJob(const PlanJob& job) : job_(job), chain_(chain_of(job)) {
    rows_ = static_cast<int>(job.dim("rows"));
    cols_ = static_cast<int>(job.dim("cols"));
    const size_t n = size_t(rows_) * cols_, e = dtype_bytes(job.dtype);
    x_ = std::make_unique<DeviceBuffer>(n * e);
    y_ = std::make_unique<DeviceBuffer>(n * e);
    out_ = std::make_unique<DeviceBuffer>(n * e);
    gamma_ = std::make_unique<DeviceBuffer>(cols_ * e);
    beta_ = std::make_unique<DeviceBuffer>(cols_ * e);
    fill_uniform(x_->get(), n, job.dtype, 3, nullptr);
    fill_uniform(y_->get(), n, job.dtype, 4, nullptr);
    fill_uniform(gamma_->get(), cols_, job.dtype, 5, nullptr);
    fill_uniform(beta_->get(), cols_, job.dtype, 6, nullptr);
    bias_ = std::make_unique<DeviceBuffer>(cols_ * e);
    fill_uniform(bias_->get(), cols_, job.dtype, 7, nullptr);
    bool masked = false;
    for (int s = 0; s < chain_.count; ++s) masked = masked || chain_.steps[s] == step_mask;
    if (masked) {  // about half of the positions masked (the values are uniform around 0)
      mask_ = std::make_unique<DeviceBuffer>(n * e);
      fill_uniform(mask_->get(), n, job.dtype, 8, nullptr);
    }
    smem_ = size_t(cols_) * sizeof(float);
    if (smem_ > 48 * 1024) {
      auto set = [&](auto kernel) {
        TS_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     static_cast<int>(smem_)));
      };
      with_device_type(job.dtype, [&](auto type) { set(row_chain<decltype(type)>); });
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
    out.reference = "sequential fp32 kernel, one thread per row (exact erf GELU)";
    out.max_error = normalized_max_error(out_->get(), ref.as<float>(), n, job_.dtype, stream);
    // the tanh GELU differs from erf by up to ~1e-3 relative
    out.tolerance = std::max(tolerance_for(job_.dtype), 2e-3);
    return out;
  }

  std::string algorithm() const override {
    return "tilescope row kernel: one block of " + std::to_string(threads()) +
           " threads per row, row in shared memory";
  }

 private:
  int threads() const { return cols_ >= 1024 ? 512 : cols_ >= 256 ? 256 : 128; }

  template <typename T>
  void run(cudaStream_t stream) {
    row_chain<T><<<rows_, threads(), smem_, stream>>>(operands<T>(), out_->as<T>(), cols_, chain_);
  }

  template <typename T>
  void reference(float* ref, cudaStream_t stream) {
    reference_chain<T>
        <<<(rows_ + 127) / 128, 128, 0, stream>>>(operands<T>(), ref, rows_, cols_, chain_);
    TS_CUDA(cudaGetLastError());
  }

  PlanJob job_;
  Chain chain_;
  int rows_ = 0, cols_ = 0;
  size_t smem_ = 0;
  template <typename T>
  Operands<T> operands() const {
    return {x_->as<T>(),    y_->as<T>(),     mask_ ? mask_->as<T>() : nullptr,
            bias_->as<T>(), gamma_->as<T>(), beta_->as<T>()};
  }

  std::unique_ptr<DeviceBuffer> x_, y_, out_, gamma_, beta_, bias_, mask_;
};

}  // namespace

std::unique_ptr<DeviceJob> make_vector_job(const PlanJob& job) {
  return std::make_unique<VectorJob>(job);
}

}  // namespace ts::cupti
