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

struct Figure {
  Figure(std::string n, std::string u, std::string m)
      : name(std::move(n)), unit(std::move(u)), method(std::move(m)) {}
  std::string name, unit, method;
  double value = 0;
  double work = 0;  // bytes or flops per repetition
  JobTiming timing;
  int repetitions = 0;
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
