#pragma once
// Times one job: warm-up calls, then repetitions, each between two CUPTI timestamps and a host
// wall clock. The device time of a repetition is the sum of the kernels its own API calls
// launched (RepetitionTiming); the host time is the wall clock from before the launch to the
// end of a stream synchronisation, i.e. launch overhead plus device time (`host_call`).
#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

#include "ActivitySession.hpp"
#include "SampleStatistics.hpp"

namespace ts::cupti {

// Evicts L2 between repetitions: writes a buffer twice the L2 size.
class L2Flusher {
 public:
  explicit L2Flusher(size_t l2_bytes);
  ~L2Flusher();
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  void flush(cudaStream_t stream);

 private:
  void* buffer_ = nullptr;
  size_t bytes_ = 0;
  unsigned pass_ = 0;
};

struct JobTiming {
  SampleSummary device_ns;
  SampleSummary host_call_ns;
  int kernels_per_repetition = 0;  // the most any repetition launched
  std::vector<std::string> kernel_names;
  uint64_t dropped_records = 0;
};

// `launch` enqueues one call on `stream`. Throws DeviceError when a repetition launched no kernel.
JobTiming time_job(ActivitySession& session, const std::function<void(cudaStream_t)>& launch,
                   int repetitions, int warmup, L2Flusher* flush, cudaStream_t stream);

}  // namespace ts::cupti
