#pragma once
// What the runner records about the device and the software under it.
#include <string>

#include "JsonLine.hpp"

namespace ts::cupti {

struct DeviceSummary {
  std::string name;
  std::string compute_capability;  // "9.0"
  int sm_count = 0;
  size_t l2_bytes = 0;
  int clock_khz = 0;
  int cuda_runtime = 0;  // 13000 for 13.0
  int cuda_driver = 0;
};

DeviceSummary device_summary(int device);
// Name, SM count, clocks, memory and L2 size, compute capability, versions of CUDA, the driver,
// cuBLAS and CUPTI.
JsonLine device_properties(int device);

}  // namespace ts::cupti
