#pragma once
// One job of a plan, set up on the device: operands allocated and filled, ready to be launched
// repeatedly and checked once against a reference computed on the device.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "RunnerPlan.hpp"

namespace ts::cupti {

struct CheckOutcome {
  std::string reference;  // what the result was compared with
  double max_error = 0;   // max |out - ref| / max |ref| over the output
  double tolerance = 0;
  bool passed() const { return max_error <= tolerance; }
};

class DeviceJob {
 public:
  virtual ~DeviceJob() = default;
  virtual void launch(cudaStream_t stream) = 0;
  // Runs the reference and compares it with the output of the last launch.
  virtual CheckOutcome check(cudaStream_t stream) = 0;
  // What the library chose (cuBLASLt algorithm and tile) or the kernel's configuration.
  virtual std::string algorithm() const = 0;
};

struct LibraryHandles {
  cublasHandle_t blas = nullptr;
  cublasLtHandle_t blas_lt = nullptr;
  void* workspace = nullptr;  // for cuBLASLt
  size_t workspace_bytes = 0;
};

std::unique_ptr<DeviceJob> make_gemm_job(const PlanJob& job, const LibraryHandles& handles);
std::unique_ptr<DeviceJob> make_vector_job(const PlanJob& job);
// rmsnorm, silu_mul and rope as vLLM's kernels run them (LlmRowJob.cu).
std::unique_ptr<DeviceJob> make_llm_row_job(const PlanJob& job);
// Split-KV decode attention and its combine (DecodeAttentionJob.cu).
std::unique_ptr<DeviceJob> make_decode_attention_job(const PlanJob& job);

// Shared by the jobs: device buffers, deterministic operand values, the error reduction.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return data_; }
  template <typename T>
  T* as() const {
    return static_cast<T*>(data_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

size_t dtype_bytes(const std::string& dtype);
// Uniform values in [-1, 1) from a hash of (index, seed), of the plan's dtype.
void fill_uniform(void* data, size_t count, const std::string& dtype, uint32_t seed,
                  cudaStream_t stream);
// max |out - ref| / max |ref|, `out` of the plan's dtype, `ref` fp32.
double normalized_max_error(const void* out, const float* ref, size_t count,
                            const std::string& dtype, cudaStream_t stream);
// Tolerance of a result of the dtype accumulated over `terms` products or steps.
double tolerance_for(const std::string& dtype);

}  // namespace ts::cupti
