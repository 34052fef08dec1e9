#pragma once
// Conversions between the plan's element types and the fp32 the kernels compute in.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>
#include <string>

namespace ts::cupti {

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16(x);
}

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

// Calls `f` with a value of the device type a plan's dtype names (fp16: __half, bf16:
// __nv_bfloat16, fp32: float), so that a job picks its kernels' instantiation in one place.
template <typename F>
void with_device_type(const std::string& dtype, F&& f) {
  if (dtype == "fp16")
    f(__half{});
  else if (dtype == "bf16")
    f(__nv_bfloat16{});
  else
    f(float{});
}

}  // namespace ts::cupti
