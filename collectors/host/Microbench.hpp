#pragma once
// The microbenchmarks behind `calibrate host`. Each function returns one measurement (one run);
// the caller repeats them and takes medians. Every kernel is timed with steady_clock in short
// slices for about `seconds` in all (after a warm-up pass over its working set), and the fastest
// fifth of the slices counts: interference from other work only ever slows a slice down.
//
// The vector kernels are those of the instruction-set level chosen at run time (HostIsa.hpp,
// isa/MicrobenchKernels.cpp): 64-byte vectors with AVX-512, 32-byte vectors otherwise.
#include <cstddef>
#include <cstdint>

namespace ts::host {
class HostTopology;
}

namespace ts::host::bench {

// The vectors of the level in use: bytes per register, and the level's name as the calibration
// prints it ("AVX-512", "AVX2", "generic"); its lanes and registers are vector_lanes() and
// vector_registers() (MicroKernel.hpp).
int vector_bytes();
const char* isa_display_name();

// Memory the bandwidth kernels run over: page-aligned, touched (written) on allocation by the
// threads that will use it, so that pages are mapped before anything is timed, and on a NUMA
// machine each slice lives near the core that uses it.
class Buffer {
 public:
  // `slices` equal slices of `bytes_per_slice`; slice i is first touched by a thread bound to
  // core i (`topology` may be null: no binding).
  Buffer(size_t bytes_per_slice, int slices, const HostTopology* topology);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  float* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  size_t slice_bytes() const { return slice_bytes_; }
  float* slice(int i) const {
    return data_ + (slice_bytes_ / sizeof(float)) * static_cast<size_t>(i);
  }

 private:
  float* data_ = nullptr;
  size_t bytes_ = 0;
  size_t slice_bytes_ = 0;
};

// Bytes the kernels move per loop step; working sets are rounded down to a multiple of it.
size_t kernel_granule_bytes();

// Clock frequency in Hz: a dependent chain of integer adds, one cycle each on every x86 core
// since the P6, so adds per second is cycles per second (the frequency the core runs at under
// load, turbo included).
double clock_hz(double seconds);

// Vector FMAs per second on one core: independent FMA chains on fp32 vectors.
double vector_fma_per_second(double seconds);

// Bytes per second one core reads (a vectorised sum) or writes (vector stores) over a working
// set of `bytes` at `buffer`, looped over many times. Runs on the calling thread, bound to core 0.
double read_bytes_per_second(const Buffer& buffer, size_t bytes, double seconds,
                             const HostTopology* topology);
double write_bytes_per_second(const Buffer& buffer, size_t bytes, double seconds,
                              const HostTopology* topology);

// The same with `threads` threads (one per core, OpenMP), thread i on `bytes` of slice i: the
// total bytes over the wall time from a common start to the last thread's end.
double parallel_read_bytes_per_second(const Buffer& buffer, size_t bytes, int threads,
                                      double seconds, const HostTopology* topology);
double parallel_write_bytes_per_second(const Buffer& buffer, size_t bytes, int threads,
                                       double seconds, const HostTopology* topology);

// Wall time of starting and joining an OpenMP parallel region of `threads` threads with an
// almost empty body: the 10th percentile of many regions run back to back for about `seconds`
// (at least 200 unless that takes more than 4x `seconds`).
double parallel_region_seconds(int threads, double seconds);

}  // namespace ts::host::bench
