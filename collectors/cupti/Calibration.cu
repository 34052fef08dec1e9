#include <mma.h>

#include <cstdio>

#include "Calibration.hpp"
#include "DeviceError.hpp"
#include "DeviceProperties.hpp"
#include "JobTimer.hpp"
#include "RunnerVersion.hpp"

namespace ts::cupti {
namespace {

__global__ void copy_kernel(const float4* __restrict__ src, float4* __restrict__ dst, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// Reads `n` float4 `passes` times, bypassing L1 (ld.global.cg) so that repeated passes over a
// buffer that fits in L2 are served by L2. The sum is stored only if it equals an impossible
// value, so that the compiler keeps the loads and the kernel writes nothing.
__global__ void read_kernel(const float4* __restrict__ src, size_t n, int passes, float* sink) {
  float acc = 0;
  for (int p = 0; p < passes; ++p)
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x) {
      const float4 v = __ldcg(src + i);
      acc += v.x + v.y + v.z + v.w;
    }
  if (acc == -1.2345f) *sink = acc;
}

// Every lane reads 16 B of shared memory per step, conflict-free (a warp's 512 B in four
// wavefronts of 128 B, the bank width of an SM per cycle).
__global__ void shared_read_kernel(int iterations, float* sink) {
  __shared__ float4 data[2048];
  for (int i = threadIdx.x; i < 2048; i += blockDim.x)
    data[i] = make_float4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  float4 acc = make_float4(0, 0, 0, 0);
  int index = threadIdx.x;
  for (int it = 0; it < iterations; ++it) {
    const float4 v = data[index];
    acc.x += v.x;
    acc.y += v.y;
    acc.z += v.z;
    acc.w += v.w;
    index = (index + 32) & 2047;
  }
  if (acc.x + acc.y + acc.z + acc.w == -1.2345f) *sink = acc.x;
}

__global__ void empty_kernel() {}

// Latency: one thread follows a chain of indices, each load waiting for the one before, so that
// the kernel's duration over the number of steps is the latency of one load. ld.global.cg keeps
// L1 out of it. Slots are 256 B apart, so that every step touches a new L2 line.
constexpr unsigned kChaseStride = 64;  // 32-bit words: 256 B
__global__ void chase_init(unsigned* chain, unsigned slots, unsigned first) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < slots; i += gridDim.x * blockDim.x)
    chain[size_t(first + i) * kChaseStride] = (first + (i + 1) % slots) * kChaseStride;
}
__global__ void chase_kernel(const unsigned* __restrict__ chain, unsigned start, int steps,
                             unsigned* sink) {
  unsigned i = start;
  for (int s = 0; s < steps; ++s) i = __ldcg(chain + i);
  if (i == 0xffffffffu) *sink = i;
}

// The tensor-core rate that warp-level mma.sync reaches (WMMA 16x16x16, fp16 in, fp32
// accumulation): what tilescope's own GEMM kernels use. cuBLAS uses Hopper's wgmma, which runs
// faster, so the two peaks are measured apart. Eight independent accumulators per warp hide the
// mma latency.
constexpr int kWmmaChains = 8;
__global__ void wmma_peak_kernel(int iterations, float* sink) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kWmmaChains];
  wmma::fill_fragment(a, __float2half(0.001f * (threadIdx.x % 7)));
  wmma::fill_fragment(b, __float2half(0.002f));
#pragma unroll
  for (int c = 0; c < kWmmaChains; ++c) wmma::fill_fragment(acc[c], 0.f);
  for (int it = 0; it < iterations; ++it)
#pragma unroll
    for (int c = 0; c < kWmmaChains; ++c) wmma::mma_sync(acc[c], a, b, acc[c]);
  // Every element of every accumulator is used: a 16x16x16 WMMA is two m16n8k16 mma.sync, and
  // reading only some elements lets the compiler drop the mma.sync that makes the others.
  float total = 0;
#pragma unroll
  for (int c = 0; c < kWmmaChains; ++c)
    for (int e = 0; e < acc[c].num_elements; ++e) total += acc[c].x[e];
  if (total == -1.2345f) *sink = total;
}

struct Figure {
  Figure(std::string n, std::string u, std::string m)
      : name(std::move(n)), unit(std::move(u)), method(std::move(m)) {}
  std::string name, unit, method;
  double value = 0;
  double work = 0;  // bytes or flops per repetition
  JobTiming timing;
  int repetitions = 0;
  JsonLine properties;  // what a sweep point ran; empty for a plain figure
  bool has_properties = false;
};

std::string format_figure(const Figure& f) {
  JsonLine t;
  t.add("min", f.timing.device_ns.min)
      .add("median", f.timing.device_ns.median)
      .add("max", f.timing.device_ns.max)
      .add("spread", f.timing.device_ns.spread);
  JsonLine j;
  j.add("record", "calibration")
      .add("runner_version", kRunnerVersion)
      .add("figure", f.name)
      .add("value", f.value)
      .add("unit", f.unit)
      .add("method", f.method)
      .add("work_per_repetition", f.work)
      .add("repetitions", f.repetitions)
      .add_object("device_ns", t);
  if (f.has_properties) j.add_object("properties", f.properties);
  return j.str();
}

}  // namespace

void run_calibration(int device, ActivitySession& session, const LibraryHandles& handles,
                     const std::function<void(const std::string&)>& emit,
                     const std::function<void(const std::string&)>& log) {
  const DeviceSummary dev = device_summary(device);
  {
    JsonLine j;
    j.add("record", "calibration")
        .add("runner_version", kRunnerVersion)
        .add("figure", "device")
        .add_object("properties", device_properties(device));
    emit(j.str());
  }
  cudaStream_t stream = nullptr;
  TS_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer sink(sizeof(float));
  const int blocks = dev.sm_count * 8;
  const int reps = 10;

  auto report = [&](Figure f) {
    f.value = f.work / (f.timing.device_ns.median * 1e-9);
    f.repetitions = reps;
    char line[200];
    std::snprintf(line, sizeof line, "calibration %-24s %12.4g %s (median of %d, spread %.1f %%)",
                  f.name.c_str(), f.value, f.unit.c_str(), reps, f.timing.device_ns.spread * 100);
    log(line);
    emit(format_figure(f));
  };

  {  // HBM: a copy of 2 x 2 GiB, far beyond L2, L2 not flushed (the buffers evict it anyway)
    const size_t bytes = size_t(2) << 30;
    DeviceBuffer src(bytes), dst(bytes);
    fill_uniform(src.get(), bytes / 4, "fp32", 7, stream);
    const size_t n = bytes / sizeof(float4);
    Figure f{"hbm_copy_bandwidth", "B/s", "float4 copy kernel, 2 GiB read + 2 GiB written"};
    f.work = 2.0 * bytes;
    f.timing = time_job(
        session,
        [&](cudaStream_t s) {
          copy_kernel<<<blocks, 512, 0, s>>>(src.as<float4>(), dst.as<float4>(), n);
        },
        reps, 2, nullptr, stream);
    report(f);
    Figure r{"hbm_read_bandwidth", "B/s", "float4 read kernel (ld.global.cg), 2 GiB"};
    r.work = double(bytes);
    r.timing = time_job(
        session,
        [&](cudaStream_t s) {
          read_kernel<<<blocks, 512, 0, s>>>(src.as<float4>(), n, 1, sink.as<float>());
        },
        reps, 2, nullptr, stream);
    report(r);
  }
  {  // L2: a quarter of L2 read 100 times; the warm-up leaves it resident
    const size_t bytes = dev.l2_bytes / 4 / 4096 * 4096;
    DeviceBuffer src(bytes);
    fill_uniform(src.get(), bytes / 4, "fp32", 8, stream);
    const int passes = 100;
    Figure f{"l2_read_bandwidth", "B/s",
             "float4 reads (ld.global.cg) of a buffer of L2/4, 100 passes"};
    f.work = double(bytes) * passes;
    f.timing = time_job(
        session,
        [&](cudaStream_t s) {
          read_kernel<<<blocks, 512, 0, s>>>(src.as<float4>(), bytes / sizeof(float4), passes,
                                             sink.as<float>());
        },
        reps, 2, nullptr, stream);
    report(f);
  }
  {  // shared memory: all SMs, 4 blocks of 256 threads each
    const int iterations = 1 << 14, threads = 256, smem_blocks = dev.sm_count * 4;
    Figure f{"smem_read_bandwidth", "B/s", "16 B per lane per step, conflict-free, all SMs"};
    f.work = double(smem_blocks) * threads * iterations * 16;
    f.timing = time_job(
        session,
        [&](cudaStream_t s) {
          shared_read_kernel<<<smem_blocks, threads, 0, s>>>(iterations, sink.as<float>());
        },
        reps, 2, nullptr, stream);
    report(f);
  }
  for (const char* dtype : {"fp16", "bf16"}) {  // tensor cores: cuBLAS on a large square GEMM
    PlanJob job;
    job.op = "calibration_gemm";
    job.type = "gemm";
    job.shape = {{"M", 8192}, {"N", 8192}, {"K", 8192}};
    job.dtype = dtype;
    job.impl = Implementation::cublas;
    auto gemm = make_gemm_job(job, handles);
    Figure f{std::string("tensor_") + dtype + "_flops", "FLOP/s",
             std::string("cuBLAS ") + dtype + " GEMM 8192^3, fp32 accumulation"};
    f.work = 2.0 * 8192.0 * 8192.0 * 8192.0;
    f.timing = time_job(
        session, [&](cudaStream_t s) { gemm->launch(s); }, reps, 2, nullptr, stream);
    report(f);
  }
  {  // tilescope's own GEMM kernel at its best: the rate its inner loop reaches on a large GEMM
     // (blocks of 128 x 128 x 32, 4 warps of 64 x 64, two stages), where nothing but the loop
     // itself bounds it
    PlanJob job;
    job.op = "calibration_wmma_gemm";
    job.type = "gemm";
    job.shape = {{"M", 8192}, {"N", 8192}, {"K", 8192}};
    job.dtype = "fp16";
    job.impl = Implementation::tilescope;
    job.block_m = 128;
    job.block_n = 128;
    job.block_k = 32;
    job.warp_m = 64;
    job.warp_n = 64;
    job.stages = 2;
    auto gemm = make_gemm_job(job, handles);
    Figure f{"tensor_fp16_wmma_kernel_flops", "FLOP/s",
             "tilescope's WMMA GEMM kernel, 8192^3 fp16, blocks 128x128x32, warps 64x64, 2 stages"};
    f.work = 2.0 * 8192.0 * 8192.0 * 8192.0;
    f.timing = time_job(
        session, [&](cudaStream_t s) { gemm->launch(s); }, reps, 2, nullptr, stream);
    report(f);
  }
  {  // Sweeps of the same kernel for its issue limit (core/calibrate/IssueFit): one block per SM
     // (the kernel asks for more than half an SM's shared memory), a grid of exactly one wave
     // (M = block M, N = block N x SMs) and K = 4096, two stages, so that the loop's issue and
     // latency bound it, not memory. Warp count: 64 x 64 warp tiles, 1 to 8 warps, K steps of
     // 32. Warp tile: 16 x 16 to 64 x 64 at 4 to 16 warps. K step: 16 and 64 at 4 and 8 warps.
    struct SweepPoint {
      const char* sweep;
      int block_m, block_n, block_k, warp_m, warp_n;
    };
    const SweepPoint points[] = {
        {"warps", 64, 64, 32, 64, 64},
        {"warps", 128, 64, 32, 64, 64},
        {"warps", 192, 64, 32, 64, 64},
        {"warps", 128, 128, 32, 64, 64},
        {"warps", 192, 128, 32, 64, 64},
        {"warps", 256, 128, 32, 64, 64},
        {"warp_tile", 64, 64, 32, 16, 16},
        {"warp_tile", 64, 64, 32, 32, 32},
        {"warp_tile", 128, 128, 32, 32, 32},
        {"warp_tile", 96, 96, 32, 48, 48},
        {"warp_tile", 128, 128, 32, 32, 64},
        {"warp_tile", 128, 128, 32, 64, 32},
        {"warp_tile", 64, 128, 32, 16, 64},
        {"warp_tile", 128, 64, 32, 64, 16},
        // K steps of 16 and 64: recorded for a K-step term; the issue fit leaves them out.
        {"k_step", 128, 128, 16, 64, 64},
        {"k_step", 128, 128, 64, 64, 64},
        {"k_step", 256, 128, 16, 64, 64},
        {"k_step", 256, 128, 64, 64, 64},
    };
    const int sweep_k = 4096;
    for (const SweepPoint& p : points) {
      PlanJob job;
      job.op = "calibration_wmma_sweep";
      job.type = "gemm";
      job.shape = {{"M", p.block_m}, {"N", int64_t(p.block_n) * dev.sm_count}, {"K", sweep_k}};
      job.dtype = "fp16";
      job.impl = Implementation::tilescope;
      job.block_m = p.block_m;
      job.block_n = p.block_n;
      job.block_k = p.block_k;
      job.warp_m = p.warp_m;
      job.warp_n = p.warp_n;
      job.stages = 2;
      const int warps = (p.block_m / p.warp_m) * (p.block_n / p.warp_n);
      char method[200];
      std::snprintf(method, sizeof method,
                    "tilescope's WMMA GEMM kernel, %d blocks (one per SM) of %dx%dx%d, %d warps of "
                    "%dx%d, 2 stages, K %d, fp16",
                    dev.sm_count, p.block_m, p.block_n, p.block_k, warps, p.warp_m, p.warp_n,
                    sweep_k);
      Figure f{"wmma_kernel_sweep", "FLOP/s", method};
      f.work = 2.0 * p.block_m * double(p.block_n) * dev.sm_count * sweep_k;
      f.properties.add("sweep", p.sweep)
          .add("block_m", p.block_m)
          .add("block_n", p.block_n)
          .add("block_k", p.block_k)
          .add("warps", warps)
          .add("warp_m", p.warp_m)
          .add("warp_n", p.warp_n)
          .add("stages", 2)
          .add("blocks", dev.sm_count)
          .add("k", sweep_k);
      f.has_properties = true;
      try {
        auto gemm = make_gemm_job(job, handles);
        f.timing = time_job(
            session, [&](cudaStream_t s) { gemm->launch(s); }, reps, 2, nullptr, stream);
        report(f);
      } catch (const DeviceError& e) {
        // A shape the kernel cannot run here (registers): say so and go on with the others.
        log(std::string("calibration wmma_kernel_sweep ") + method + ": " + e.what());
      }
    }
  }
  {  // mma.sync (WMMA) peak: 4 blocks of 8 warps per SM
    const int iterations = 4096, threads = 256, wmma_blocks = dev.sm_count * 4;
    Figure f{"tensor_fp16_mma_sync_flops", "FLOP/s",
             "WMMA 16x16x16 fp16 mma_sync with fp32 accumulation from registers, 8 independent "
             "accumulators per warp, 32 warps per SM"};
    f.work = double(wmma_blocks) * (threads / 32) * iterations * kWmmaChains * 2.0 * 16 * 16 * 16;
    f.timing = time_job(
        session,
        [&](cudaStream_t s) {
          wmma_peak_kernel<<<wmma_blocks, threads, 0, s>>>(iterations, sink.as<float>());
        },
        reps, 2, nullptr, stream);
    report(f);
  }
  {  // latencies: a dependent chain of loads, one thread
    auto latency = [&](const char* name, const std::string& method, const DeviceBuffer& chain,
                       unsigned slots_per_call, bool fresh_per_call, int steps) {
      unsigned call = 0;
      const JobTiming t = time_job(
          session,
          [&](cudaStream_t s) {
            // In HBM every call starts on slots no call has touched, so that none is in L2.
            const unsigned first = fresh_per_call ? call++ * slots_per_call : 0;
            chase_kernel<<<1, 1, 0, s>>>(chain.as<unsigned>(), first * kChaseStride, steps,
                                         sink.as<unsigned>());
          },
          reps, 2, nullptr, stream);
      Figure f{name, "s", method};
      f.work = double(steps);
      f.timing = t;
      f.value = t.device_ns.median * 1e-9 / steps;  // seconds per load, not work per second
      f.repetitions = reps;
      char line[200];
      std::snprintf(line, sizeof line, "calibration %-24s %12.4g ns per load (median of %d)", name,
                    f.value * 1e9, reps);
      log(line);
      emit(format_figure(f));
    };
    const int steps = 16384;
    const int calls = reps + 2;
    {  // HBM: one 4 MiB chain per call, then 4 x L2 of other data written over L2, so that no
       // chain is in L2 when its call walks it
      const unsigned slots = unsigned(steps) * calls;
      DeviceBuffer chain(size_t(slots) * kChaseStride * 4);
      for (int c = 0; c < calls; ++c)
        chase_init<<<64, 256, 0, stream>>>(chain.as<unsigned>(), unsigned(steps),
                                           unsigned(c * steps));
      DeviceBuffer evict(size_t(dev.l2_bytes) * 4);  // pushes the chains out of L2
      fill_uniform(evict.get(), dev.l2_bytes, "fp32", 9, stream);
      TS_CUDA(cudaStreamSynchronize(stream));
      latency("hbm_latency",
              "one thread, dependent ld.global.cg loads 256 B apart, each on a line not in L2, "
              "16384 per repetition",
              chain, unsigned(steps), true, steps);
    }
    {  // L2: a 2 MiB chain, resident after the warm-up calls
      const unsigned slots = (2u << 20) / (kChaseStride * 4);
      DeviceBuffer chain(size_t(slots) * kChaseStride * 4);
      chase_init<<<64, 256, 0, stream>>>(chain.as<unsigned>(), slots, 0);
      TS_CUDA(cudaStreamSynchronize(stream));
      latency("l2_latency",
              "one thread, dependent ld.global.cg loads 256 B apart over 2 MiB resident in L2, "
              "16384 per repetition",
              chain, slots, false, steps);
    }
  }
  {  // kernel floor: the device time of a kernel that moves almost nothing, 8 KiB copied by one
     // block (a residual add of a token), which no kernel goes under: the grid's start, the
     // block's loads and stores, its retirement
    DeviceBuffer src(8192), dst(8192);
    fill_uniform(src.get(), 8192 / 4, "fp32", 11, stream);
    const JobTiming t = time_job(
        session,
        [&](cudaStream_t s) {
          copy_kernel<<<1, 512, 0, s>>>(src.as<float4>(), dst.as<float4>(), 8192 / 16);
        },
        50, 5, nullptr, stream);
    JsonLine j;
    j.add("record", "calibration")
        .add("runner_version", kRunnerVersion)
        .add("figure", "kernel_floor")
        .add("value", t.device_ns.median * 1e-9)
        .add("unit", "s")
        .add("method",
             "median CUPTI duration of one block of 512 threads copying 8 KiB, 50 "
             "repetitions")
        .add("repetitions", 50);
    char line[160];
    std::snprintf(line, sizeof line, "calibration kernel_floor %.2f us", t.device_ns.median * 1e-3);
    log(line);
    emit(j.str());
  }
  {  // launch overhead: host wall clock of an empty kernel less its device time
    const JobTiming t = time_job(
        session, [&](cudaStream_t s) { empty_kernel<<<1, 32, 0, s>>>(); }, 50, 5, nullptr, stream);
    JsonLine j;
    j.add("record", "calibration")
        .add("runner_version", kRunnerVersion)
        .add("figure", "launch_overhead")
        .add("value", (t.host_call_ns.median - t.device_ns.median) * 1e-9)
        .add("unit", "s")
        .add("method",
             "median host wall clock (launch + stream synchronize) of an empty kernel "
             "less its median CUPTI duration, 50 repetitions")
        .add("repetitions", 50);
    char line[160];
    std::snprintf(line, sizeof line, "calibration launch_overhead %.2f us",
                  (t.host_call_ns.median - t.device_ns.median) * 1e-3);
    log(line);
    emit(j.str());
  }
  cudaStreamDestroy(stream);
}

}  // namespace ts::cupti
