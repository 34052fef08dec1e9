// The calibration's vector kernels (FMA chains, read and write sweeps) for one instruction-set
// level, compiled once per level (IsaTarget.hpp); Microbench.cpp forwards to the level chosen at
// run time. Written with GCC vector extensions at the level's widest width, with enough
// independent accumulators to hide the latency of the add or FMA units, so that what they
// measure is throughput, not latency.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "host/HostTopology.hpp"
#include "host/Microbench.hpp"
#include "host/RepetitionTiming.hpp"
#include "host/isa/LevelKernels.hpp"
#include "host/isa/MicroKernelIsa.hpp"

namespace ts::host::TS_HOST_ISA::bench {

using ::ts::host::bench::Buffer;
using ::ts::host::bench::seconds_per_repetition;

// The level's register file, as the micro-kernels see it (zmm0-31 of 64 B; ymm0-15 of 32 B; the
// baseline's 32-byte vectors split by GCC into xmm pairs).
constexpr int kVectorBytes = kVectorLanes * static_cast<int>(sizeof(float));
constexpr int kArchVectorRegisters = kVectorRegisters;
constexpr int kFp32Lanes = kVectorLanes;

namespace {

using vfloat = float __attribute__((vector_size(kVectorBytes)));

// Independent accumulators: FMA latency is 4 cycles with 2 FMA ports on current x86 cores, so 8
// chains keep them busy; 16 (AVX-512, 32 registers) or 12 (AVX2, 16 registers) leave a margin
// for slower units and still fit the register file beside the two constant operands.
constexpr int kAccumulators = kArchVectorRegisters == 32 ? 16 : 12;
constexpr size_t kStepBytes = static_cast<size_t>(kAccumulators) * kVectorBytes;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A scalar operand of a vector operation is broadcast to every lane.
vfloat splat(float x) { return vfloat{} + x; }

// A fused multiply-add. Spelled with intrinsics because -std=c++20 (no GNU extensions) turns
// off FP contraction, so `a * b + c` would be a multiply and an add.
inline vfloat fma(vfloat a, vfloat b, vfloat c) {
#if TS_HOST_AVX512
  return reinterpret_cast<vfloat>(_mm512_fmadd_ps(
      reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(c)));
#elif TS_HOST_AVX2
  return reinterpret_cast<vfloat>(_mm256_fmadd_ps(
      reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
#else
  return a * b + c;
#endif
}

// Results go here so that the compiler cannot drop a kernel whose result is unused (one slot
// per thread, so that threads do not race on it).
volatile float g_sinks[256];
volatile float& g_sink = g_sinks[0];

float horizontal_sum(const vfloat* acc, int n) {
  vfloat s = acc[0];
  for (int j = 1; j < n; ++j) s += acc[j];
  float total = 0;
  for (int i = 0; i < kFp32Lanes; ++i) total += s[i];
  return total;
}

// --- kernels ----------------------------------------------------------------------------------

constexpr int kFmaPerStep = kAccumulators;

__attribute__((noinline)) float fma_chains(int64_t steps) {
  vfloat acc[kAccumulators];
  for (int j = 0; j < kAccumulators; ++j) acc[j] = splat(1e-3f * static_cast<float>(j));
  // acc converges to b / (1 - a): no overflow, no denormals, however long it runs.
  const vfloat a = splat(0.999f), b = splat(1e-3f);
  for (int64_t i = 0; i < steps; ++i) {
#pragma GCC unroll 16
    for (int j = 0; j < kAccumulators; ++j) acc[j] = fma(acc[j], a, b);
  }
  return horizontal_sum(acc, kAccumulators);
}

// `passes` sums over `n` vectors, accumulators kept across passes (in registers: no barrier
// between passes, none is needed since every pass adds to what the previous one left).
__attribute__((noinline)) float read_kernel(const vfloat* p, size_t n, int64_t passes) {
  vfloat acc[kAccumulators];
  for (int j = 0; j < kAccumulators; ++j) acc[j] = splat(0);
  for (int64_t pass = 0; pass < passes; ++pass) {
    for (size_t i = 0; i < n; i += kAccumulators) {
#pragma GCC unroll 16
      for (int j = 0; j < kAccumulators; ++j) acc[j] += p[i + static_cast<size_t>(j)];
    }
  }
  return horizontal_sum(acc, kAccumulators);
}

// `passes` fills of `n` vectors. The value changes every pass and the asm says memory is read
// after each pass, so no pass is dead and the loop cannot become a memset.
__attribute__((noinline)) void write_kernel(vfloat* p, size_t n, int64_t passes) {
  for (int64_t pass = 0; pass < passes; ++pass) {
    const vfloat v = splat(static_cast<float>(pass & 1023));
    for (size_t i = 0; i < n; i += kAccumulators) {
#pragma GCC unroll 16
      for (int j = 0; j < kAccumulators; ++j) p[i + static_cast<size_t>(j)] = v;
    }
    asm volatile("" : : "r"(p) : "memory");
  }
}

size_t vectors_in(size_t bytes) { return bytes / kStepBytes * kAccumulators; }

enum class Access { read, write };

// A working set swept in blocks: a repetition is one block, the next repetition continues where
// the last one stopped and wraps around. A working set up to kBlockBytes is one block (a pass);
// a larger one (L3, DRAM) is timed in blocks of a fraction of a millisecond, so that the slices
// stay short there too, while every block still comes from the level under test: it was last
// touched a whole working set ago, and the first full pass (the warm-up) evicts whatever earlier
// tests left in the caches.
constexpr size_t kBlockBytes = size_t{4} << 20;
class Sweep {
 public:
  Sweep(float* base, size_t bytes, Access access) : access_(access) {
    block_vectors_ = vectors_in(std::min(bytes, kBlockBytes));
    blocks_ = std::max<size_t>(1, vectors_in(bytes) / std::max<size_t>(block_vectors_, 1));
    base_ = reinterpret_cast<vfloat*>(base);
  }
  size_t block_bytes() const { return block_vectors_ * kVectorBytes; }
  size_t blocks() const { return blocks_; }
  // `reps` blocks from where the previous call stopped; returns a value to sink.
  float run(int64_t reps) {
    if (blocks_ == 1) return kernel(base_, reps);
    float sum = 0;
    for (int64_t i = 0; i < reps; ++i) {
      sum += kernel(base_ + next_ * block_vectors_, 1);
      next_ = next_ + 1 == blocks_ ? 0 : next_ + 1;
    }
    return sum;
  }

 private:
  float kernel(vfloat* p, int64_t passes) {
    if (access_ == Access::read) return read_kernel(p, block_vectors_, passes);
    write_kernel(p, block_vectors_, passes);
    return 0;
  }
  Access access_;
  vfloat* base_ = nullptr;
  size_t block_vectors_ = 0;
  size_t blocks_ = 1;
  size_t next_ = 0;
};

double single_bandwidth(Access access, const Buffer& buffer, size_t bytes, double seconds,
                        const HostTopology* topology) {
  std::optional<HostTopology::Binding> bind;
  if (topology) bind.emplace(topology->bind_thread_to_core(0));
  Sweep sweep(buffer.data(), std::min(bytes, buffer.bytes()), access);
  auto run = [&](int64_t reps) {
    const auto t0 = Clock::now();
    g_sink = sweep.run(reps);
    return seconds_since(t0);
  };
  if (sweep.blocks() > 1) run(static_cast<int64_t>(sweep.blocks()));  // the warm-up pass
  return static_cast<double>(sweep.block_bytes()) / seconds_per_repetition(run, seconds);
}

double parallel_bandwidth(Access access, const Buffer& buffer, size_t bytes, int threads,
                          double seconds, const HostTopology* topology) {
  // One sweep per thread over its own slice; all threads run the same number of blocks.
  std::vector<Sweep> sweeps;
  for (int t = 0; t < threads; ++t)
    sweeps.emplace_back(buffer.slice(t), std::min(bytes, buffer.slice_bytes()), access);
  auto run = [&](int64_t reps) {
    Clock::time_point t0;
    double elapsed = 0;
#pragma omp parallel num_threads(threads)
    {
      const int tid = omp_get_thread_num();
      std::optional<HostTopology::Binding> bind;
      if (topology) bind.emplace(topology->bind_thread_to_core(tid));
#pragma omp barrier
      if (tid == 0) t0 = Clock::now();
      g_sinks[tid & 255] = sweeps[static_cast<size_t>(tid)].run(reps);
#pragma omp barrier
      if (tid == 0) elapsed = seconds_since(t0);
    }
    return elapsed;
  };
  if (sweeps[0].blocks() > 1) run(static_cast<int64_t>(sweeps[0].blocks()));  // warm-up pass
  const double per_block = seconds_per_repetition(run, seconds);
  return static_cast<double>(sweeps[0].block_bytes()) * threads / per_block;
}

}  // namespace

size_t kernel_granule_bytes() { return kStepBytes; }

double vector_fma_per_second(double seconds) {
  auto run = [&](int64_t steps) {
    const auto t0 = Clock::now();
    g_sink = fma_chains(steps * 256);
    return seconds_since(t0);
  };
  return kFmaPerStep * 256 / seconds_per_repetition(run, seconds);
}

double read_bytes_per_second(const Buffer& buffer, size_t bytes, double seconds,
                             const HostTopology* topology) {
  return single_bandwidth(Access::read, buffer, bytes, seconds, topology);
}

double write_bytes_per_second(const Buffer& buffer, size_t bytes, double seconds,
                              const HostTopology* topology) {
  return single_bandwidth(Access::write, buffer, bytes, seconds, topology);
}

double parallel_read_bytes_per_second(const Buffer& buffer, size_t bytes, int threads,
                                      double seconds, const HostTopology* topology) {
  return parallel_bandwidth(Access::read, buffer, bytes, threads, seconds, topology);
}

double parallel_write_bytes_per_second(const Buffer& buffer, size_t bytes, int threads,
                                       double seconds, const HostTopology* topology) {
  return parallel_bandwidth(Access::write, buffer, bytes, threads, seconds, topology);
}

}  // namespace ts::host::TS_HOST_ISA::bench
