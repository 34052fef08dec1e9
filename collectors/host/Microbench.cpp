#include "host/Microbench.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <vector>

#include "host/HostTopology.hpp"
#include "host/IsaKernels.hpp"
#include "host/RepetitionTiming.hpp"

namespace ts::host::bench {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

volatile float g_sinks[256];
volatile float& g_sink = g_sinks[0];

#define TS_REP4(x) x x x x
#define TS_REP16(x) TS_REP4(x) TS_REP4(x) TS_REP4(x) TS_REP4(x)
#define TS_REP64(x) TS_REP16(x) TS_REP16(x) TS_REP16(x) TS_REP16(x)
constexpr int kAddsPerStep = 128;

// 128 dependent adds per step. The empty asm makes the compiler keep each add (it cannot see
// through it to fold them); the loop counter and branch run on other ports, in the shadow of
// the chain. The added value is a register the compiler cannot know: recent cores (Golden Cove)
// fold adds of small immediates in the renamer, so `x += 1` chains run faster than one a cycle.
__attribute__((noinline)) uint64_t add_chain(int64_t steps, uint64_t x, uint64_t y) {
  asm volatile("" : "+r"(y));
  for (int64_t i = 0; i < steps; ++i) {
    TS_REP64(x += y; asm volatile("" : "+r"(x));)
    TS_REP64(x += y; asm volatile("" : "+r"(x));)
  }
  return x;
}

}  // namespace

Buffer::Buffer(size_t bytes_per_slice, int slices, const HostTopology* topology) {
  slices = std::max(slices, 1);
  // Slices start on page boundaries; the kernels use whole steps of each.
  const size_t page = 4096;
  slice_bytes_ = (std::max(bytes_per_slice, kernel_granule_bytes()) + page - 1) / page * page;
  bytes_ = slice_bytes_ * static_cast<size_t>(slices);
  data_ = static_cast<float*>(std::aligned_alloc(page, bytes_));
  if (!data_) throw std::bad_alloc();
#pragma omp parallel for num_threads(slices) schedule(static, 1)
  for (int i = 0; i < slices; ++i) {
    std::optional<HostTopology::Binding> bind;
    if (topology) bind.emplace(topology->bind_thread_to_core(i));
    std::memset(slice(i), 0, slice_bytes_);
  }
}

Buffer::~Buffer() { std::free(data_); }

size_t kernel_granule_bytes() { return isa_kernels().kernel_granule_bytes(); }
int vector_bytes() { return isa_kernels().vector_bytes; }
const char* isa_display_name() { return isa_kernels().display_name; }

double clock_hz(double seconds) {
  uint64_t x = 0;
  auto run = [&](int64_t steps) {
    const auto t0 = Clock::now();
    x = add_chain(steps, x, 1);
    return seconds_since(t0);
  };
  const double per_step = seconds_per_repetition(run, seconds);
  g_sink = static_cast<float>(x & 1);
  return kAddsPerStep / per_step;
}

double vector_fma_per_second(double seconds) {
  return isa_kernels().vector_fma_per_second(seconds);
}

double read_bytes_per_second(const Buffer& buffer, size_t bytes, double seconds,
                             const HostTopology* topology) {
  return isa_kernels().read_bytes_per_second(buffer, bytes, seconds, topology);
}

double write_bytes_per_second(const Buffer& buffer, size_t bytes, double seconds,
                              const HostTopology* topology) {
  return isa_kernels().write_bytes_per_second(buffer, bytes, seconds, topology);
}

double parallel_read_bytes_per_second(const Buffer& buffer, size_t bytes, int threads,
                                      double seconds, const HostTopology* topology) {
  return isa_kernels().parallel_read_bytes_per_second(buffer, bytes, threads, seconds, topology);
}

double parallel_write_bytes_per_second(const Buffer& buffer, size_t bytes, int threads,
                                       double seconds, const HostTopology* topology) {
  return isa_kernels().parallel_write_bytes_per_second(buffer, bytes, threads, seconds, topology);
}

double parallel_region_seconds(int threads, double seconds) {
  auto region = [&] {
#pragma omp parallel num_threads(threads)
    g_sinks[omp_get_thread_num() & 255] = 1;
  };
  // The first regions create the thread pool; that is a one-off cost, not the per-operator one.
  for (int i = 0; i < 20; ++i) region();
  std::vector<double> samples;
  const auto start = Clock::now();
  // At least 200 regions, but never much longer than asked: on an oversubscribed machine a
  // spinning worker loses its CPU for a whole scheduler slice (milliseconds) in every region,
  // and such a run is reported through its spread, not waited out.
  const double limit = std::max(0.1, 4 * seconds);
  while ((samples.size() < 200 && seconds_since(start) < limit) ||
         (seconds_since(start) < seconds && samples.size() < 200000)) {
    const auto t0 = Clock::now();
    region();
    samples.push_back(seconds_since(t0));
  }
  // The 10th percentile: waiting for a worker whose CPU is busy with other work only adds time,
  // so a low quantile is the cost of the region itself, and unlike the minimum it is not one
  // lucky sample.
  const size_t q = samples.size() / 10;
  std::nth_element(samples.begin(), samples.begin() + static_cast<long>(q), samples.end());
  return samples[q];
}

}  // namespace ts::host::bench
