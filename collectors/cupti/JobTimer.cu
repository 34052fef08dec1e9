#include <algorithm>
#include <chrono>

#include "DeviceError.hpp"
#include "JobTimer.hpp"
#include "RepetitionTiming.hpp"

namespace ts::cupti {
namespace {

__global__ void overwrite(uint4* data, size_t count, unsigned pass) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x)
    data[i] = make_uint4(pass, pass + 1, pass + 2, pass + 3);
}

}  // namespace

L2Flusher::L2Flusher(size_t l2_bytes) : bytes_(std::max<size_t>(2 * l2_bytes, 8u << 20)) {
  TS_CUDA(cudaMalloc(&buffer_, bytes_));
}

L2Flusher::~L2Flusher() { cudaFree(buffer_); }

void L2Flusher::flush(cudaStream_t stream) {
  overwrite<<<1024, 256, 0, stream>>>(static_cast<uint4*>(buffer_), bytes_ / sizeof(uint4),
                                      ++pass_);
  TS_CUDA(cudaGetLastError());
}

JobTiming time_job(ActivitySession& session, const std::function<void(cudaStream_t)>& launch,
                   int repetitions, int warmup, L2Flusher* flush, cudaStream_t stream) {
  TS_CUDA(cudaStreamSynchronize(stream));
  session.take();  // drop what earlier work (allocation, initialisation) recorded
  std::vector<RepetitionWindow> windows;
  std::vector<double> host_ns;
  for (int r = 0; r < warmup + repetitions; ++r) {
    if (flush) {
      flush->flush(stream);
      TS_CUDA(cudaStreamSynchronize(stream));
    }
    const uint64_t t0 = ActivitySession::now_ns();
    const auto h0 = std::chrono::steady_clock::now();
    launch(stream);
    TS_CUDA(cudaStreamSynchronize(stream));
    const auto h1 = std::chrono::steady_clock::now();
    const uint64_t t1 = ActivitySession::now_ns();
    TS_CUDA(cudaGetLastError());
    if (r < warmup) continue;
    windows.push_back({t0, t1});
    host_ns.push_back(std::chrono::duration<double, std::nano>(h1 - h0).count());
  }
  JobTiming t;
  const DecodedActivity activity = session.take(&t.dropped_records);
  const RepetitionTiming reps = time_repetitions(windows, activity);
  for (int k : reps.kernels) {
    if (k == 0)
      throw DeviceError(
          "a repetition launched no kernel that CUPTI recorded (is another profiler attached?)");
    t.kernels_per_repetition = std::max(t.kernels_per_repetition, k);
  }
  t.device_ns = summarize(reps.device_ns);
  t.host_call_ns = summarize(host_ns);
  t.kernel_names = reps.kernel_names;
  return t;
}

}  // namespace ts::cupti
