#include "DeviceProperties.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cupti.h>

#include "DeviceError.hpp"

namespace ts::cupti {
namespace {

// 0 when the driver does not report it: a missing property must not stop a measurement.
int attribute(cudaDeviceAttr attr, int device) {
  int value = 0;
  if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return value;
}

}  // namespace

DeviceSummary device_summary(int device) {
  cudaDeviceProp p{};
  TS_CUDA(cudaGetDeviceProperties(&p, device));
  DeviceSummary s;
  s.name = p.name;
  s.compute_capability = std::to_string(p.major) + "." + std::to_string(p.minor);
  s.sm_count = p.multiProcessorCount;
  s.l2_bytes = static_cast<size_t>(p.l2CacheSize);
  s.clock_khz = attribute(cudaDevAttrClockRate, device);
  TS_CUDA(cudaRuntimeGetVersion(&s.cuda_runtime));
  TS_CUDA(cudaDriverGetVersion(&s.cuda_driver));
  return s;
}

JsonLine device_properties(int device) {
  cudaDeviceProp p{};
  TS_CUDA(cudaGetDeviceProperties(&p, device));
  const DeviceSummary s = device_summary(device);
  uint32_t cupti_version = 0;
  cuptiGetVersion(&cupti_version);
  int cublas_version = 0;
  cublasGetProperty(MAJOR_VERSION, &cublas_version);
  int cublas_minor = 0, cublas_patch = 0;
  cublasGetProperty(MINOR_VERSION, &cublas_minor);
  cublasGetProperty(PATCH_LEVEL, &cublas_patch);
  JsonLine j;
  j.add("name", s.name)
      .add("compute_capability", s.compute_capability)
      .add("sm_count", s.sm_count)
      .add("sm_clock_khz", s.clock_khz)
      .add("memory_clock_khz", attribute(cudaDevAttrMemoryClockRate, device))
      .add("memory_bus_bits", attribute(cudaDevAttrGlobalMemoryBusWidth, device))
      .add("memory_bytes", static_cast<int64_t>(p.totalGlobalMem))
      .add("l2_bytes", static_cast<int64_t>(s.l2_bytes))
      .add("shared_bytes_per_sm", static_cast<int64_t>(p.sharedMemPerMultiprocessor))
      .add("shared_bytes_per_block_optin", static_cast<int64_t>(p.sharedMemPerBlockOptin))
      .add("registers_per_sm", p.regsPerMultiprocessor)
      .add("max_threads_per_sm", p.maxThreadsPerMultiProcessor)
      .add("cuda_runtime", s.cuda_runtime)
      .add("cuda_driver", s.cuda_driver)
      .add("cublas", std::to_string(cublas_version) + "." + std::to_string(cublas_minor) + "." +
                         std::to_string(cublas_patch))
      .add("cupti_api", static_cast<int64_t>(cupti_version));
  return j;
}

}  // namespace ts::cupti
