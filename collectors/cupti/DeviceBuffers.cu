#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "DeviceError.hpp"
#include "DeviceJob.hpp"
#include "DeviceTypes.cuh"

namespace ts::cupti {
namespace {

__device__ float uniform(size_t i, uint32_t seed) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + seed;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return static_cast<float>(x >> 40) / static_cast<float>(1u << 23) - 1.0f;
}

template <typename T>
__global__ void fill_kernel(T* data, size_t count, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    data[i] = from_float<T>(uniform(i, seed));
}

// Non-negative floats order as their bit patterns, so atomicMax on the bits is a float max.
template <typename T>
__global__ void error_kernel(const T* out, const float* ref, size_t count, unsigned* max_diff,
                             unsigned* max_ref) {
  float diff = 0, mag = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    const float o = to_float(out[i]);
    const float d = isfinite(o) ? fabsf(o - ref[i]) : INFINITY;
    diff = fmaxf(diff, d);
    mag = fmaxf(mag, fabsf(ref[i]));
  }
  atomicMax(max_diff, __float_as_uint(diff));
  atomicMax(max_ref, __float_as_uint(mag));
}

}  // namespace

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  TS_CUDA(cudaMalloc(&data_, bytes ? bytes : 16));
}
DeviceBuffer::~DeviceBuffer() { cudaFree(data_); }

size_t dtype_bytes(const std::string& dtype) { return dtype == "fp32" ? 4 : 2; }

void fill_uniform(void* data, size_t count, const std::string& dtype, uint32_t seed,
                  cudaStream_t stream) {
  if (dtype == "fp16")
    fill_kernel<<<1024, 256, 0, stream>>>(static_cast<__half*>(data), count, seed);
  else if (dtype == "bf16")
    fill_kernel<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed);
  else
    fill_kernel<<<1024, 256, 0, stream>>>(static_cast<float*>(data), count, seed);
  TS_CUDA(cudaGetLastError());
}

double normalized_max_error(const void* out, const float* ref, size_t count,
                            const std::string& dtype, cudaStream_t stream) {
  DeviceBuffer result(2 * sizeof(unsigned));
  TS_CUDA(cudaMemsetAsync(result.get(), 0, result.bytes(), stream));
  unsigned* d = result.as<unsigned>();
  if (dtype == "fp16")
    error_kernel<<<512, 256, 0, stream>>>(static_cast<const __half*>(out), ref, count, d, d + 1);
  else if (dtype == "bf16")
    error_kernel<<<512, 256, 0, stream>>>(static_cast<const __nv_bfloat16*>(out), ref, count, d,
                                          d + 1);
  else
    error_kernel<<<512, 256, 0, stream>>>(static_cast<const float*>(out), ref, count, d, d + 1);
  TS_CUDA(cudaGetLastError());
  unsigned host[2] = {0, 0};
  TS_CUDA(cudaMemcpyAsync(host, d, sizeof host, cudaMemcpyDeviceToHost, stream));
  TS_CUDA(cudaStreamSynchronize(stream));
  float diff = 0, mag = 0;
  std::memcpy(&diff, &host[0], sizeof diff);
  std::memcpy(&mag, &host[1], sizeof mag);
  return mag > 0 ? diff / mag : diff;
}

// Relative to the largest reference value: fp16 keeps 11 significant bits, bf16 8; fp32 results
// differ from the reference only in summation order.
double tolerance_for(const std::string& dtype) {
  if (dtype == "fp16") return 1e-2;
  if (dtype == "bf16") return 3e-2;
  return 1e-4;
}

}  // namespace ts::cupti
