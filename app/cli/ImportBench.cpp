#include "ImportBench.hpp"

#include <fmt/format.h>
#include <libdeflate.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "BenchFolder.hpp"
#include "trace/KinetoTrace.hpp"
#include "trace/TraceImport.hpp"

namespace ts::cli {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// One kernel of a generated BERT-base layer: the operator that launches it, its shapes, and
// what it runs for. Twelve layers of these per step, steps until the file is large enough:
// what a long profiled training run looks like (few distinct operators, many repeats).
struct GeneratedKernel {
  const char* outer;  // the operator around it, or null
  const char* op;
  const char* dims;
  const char* types;
  const char* kernel;
  double us;
};

constexpr const char* kGemm = "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn";
constexpr const char* kBmm = "ampere_fp16_s16816gemm_fp16_64x64_sliced1x2_ldg8_f2f_stages_64x5_nn";
constexpr const char* kAdd =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::Half>, "
    "at::detail::Array<char*, 3>)";
constexpr const char* kHalf3 = R"(["c10::Half", "c10::Half", "c10::Half", "Scalar", "Scalar"])";

const GeneratedKernel kLayer[] = {
    {"aten::linear", "aten::addmm", "[[2304], [512, 768], [768, 2304], [], []]", kHalf3, kGemm, 41},
    {"aten::matmul", "aten::bmm", "[[48, 128, 64], [48, 64, 128]]", R"(["c10::Half", "c10::Half"])",
     kBmm, 9.5},
    {"aten::softmax", "aten::_softmax", "[[4, 12, 128, 128], [], []]",
     R"(["c10::Half", "Scalar", "Scalar"])",
     "void (anonymous namespace)::softmax_warp_forward<c10::Half, c10::Half, float, 7, false, "
     "false>(c10::Half*, c10::Half const*, int, int, int, bool const*, int, bool)",
     8.25},
    {"aten::matmul", "aten::bmm", "[[48, 128, 128], [48, 128, 64]]",
     R"(["c10::Half", "c10::Half"])", kBmm, 9.75},
    {"aten::linear", "aten::addmm", "[[768], [512, 768], [768, 768], [], []]", kHalf3, kGemm, 17},
    {nullptr, "aten::add", "[[4, 128, 768], [4, 128, 768], []]",
     R"(["c10::Half", "c10::Half", "Scalar"])", kAdd, 10},
    {"aten::layer_norm", "aten::native_layer_norm", "[[4, 128, 768], [], [768], [768], []]",
     R"(["c10::Half", "", "c10::Half", "c10::Half", "Scalar"])",
     "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half, float>("
     "int, float, c10::Half const*, c10::Half const*, c10::Half const*, float*, float*, "
     "c10::Half*)",
     7},
    {"aten::linear", "aten::addmm", "[[3072], [512, 768], [768, 3072], [], []]", kHalf3, kGemm, 52},
    {nullptr, "aten::gelu", "[[4, 128, 3072], []]", R"(["c10::Half", ""])",
     "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl(at::"
     "TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::{lambda(c10::"
     "Half)#1}, at::detail::Array<char*, 2> >(int, at::native::GeluCUDAKernelImpl, "
     "at::detail::Array<char*, 2>)",
     15},
    {"aten::linear", "aten::addmm", "[[768], [512, 3072], [3072, 768], [], []]", kHalf3, kGemm, 50},
    {nullptr, "aten::add", "[[4, 128, 768], [4, 128, 768], []]",
     R"(["c10::Half", "c10::Half", "Scalar"])", kAdd, 12},
};

// Writes the trace through a large stdio buffer, event by event: never held in memory.
uint64_t write_trace(const std::string& path, uint64_t json_bytes, uint64_t& kernels) {
  FILE* out = std::fopen(path.c_str(), "wb");
  if (!out) throw std::runtime_error("cannot write " + path);
  static char buffer[1 << 22];
  std::setvbuf(out, buffer, _IOFBF, sizeof buffer);
  uint64_t written = 0;
  auto put = [&](const std::string& text) {
    std::fwrite(text.data(), 1, text.size(), out);
    written += text.size();
  };
  put("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA "
      "A100-SXM4-80GB\", \"numSms\": 108}],\n  \"traceEvents\": [\n");
  double cpu_us = 100, gpu_us = 130;
  int64_t correlation = 1, external = 1;
  bool first = true;
  auto event = [&](const std::string& e) {
    put(first ? "  " + e : ",\n  " + e);
    first = false;
  };
  for (int64_t step = 0; written < json_bytes; ++step) {
    const double step_start = cpu_us;
    for (int layer = 0; layer < 12 && written < json_bytes; ++layer)
      for (const GeneratedKernel& g : kLayer) {
        const double start = cpu_us;
        if (g.outer) {
          event(fmt::format(
              R"({{"ph": "X", "cat": "cpu_op", "name": "{}", "pid": 4242, "tid": 4242, "ts": {:.3f}, "dur": 10.000, "args": {{"External id": {}, "Record function id": 0, "Ev Idx": {}}}}})",
              g.outer, start, external, external - 1));
          ++external;
        }
        const double inner = g.outer ? start + 2 : start;
        event(fmt::format(
            R"({{"ph": "X", "cat": "cpu_op", "name": "{}", "pid": 4242, "tid": 4242, "ts": {:.3f}, "dur": 6.000, "args": {{"External id": {}, "Record function id": 0, "Ev Idx": {}, "Input Dims": {}, "Input type": {}}}}})",
            g.op, inner, external, external - 1, g.dims, g.types));
        const double launch = inner + 0.5;
        event(fmt::format(
            R"({{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 4242, "tid": 4242, "ts": {:.3f}, "dur": 5.000, "args": {{"External id": {}, "cbid": 211, "correlation": {}}}}})",
            launch, external, correlation));
        gpu_us = std::max(gpu_us, launch + 20);
        event(fmt::format(
            R"({{"ph": "X", "cat": "kernel", "name": "{}", "pid": 0, "tid": 7, "ts": {:.3f}, "dur": {:.3f}, "args": {{"External id": {}, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": {}, "registers per thread": 128, "shared memory": 49152, "blocks per SM": 0.888889, "warps per SM": 3.555556, "grid": [24, 4, 1], "block": [128, 1, 1], "est. achieved occupancy %": 6}}}})",
            g.kernel, gpu_us, g.us, external, correlation));
        event(fmt::format(
            R"({{"ph": "s", "id": {}, "pid": 4242, "tid": 4242, "ts": {:.3f}, "cat": "ac2g", "name": "launch"}})",
            correlation, launch));
        event(fmt::format(
            R"({{"ph": "f", "id": {}, "pid": 0, "tid": 7, "ts": {:.3f}, "cat": "ac2g", "name": "launch", "bp": "e"}})",
            correlation, gpu_us));
        gpu_us += g.us + 1;
        cpu_us = start + 13;
        ++external;
        ++correlation;
        ++kernels;
      }
    event(fmt::format(
        R"({{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#{}", "pid": 4242, "tid": 4242, "ts": {:.3f}, "dur": {:.3f}, "args": {{"External id": 0}}}})",
        step, step_start - 1, cpu_us - step_start + 1));
  }
  put("\n  ],\n  \"traceName\": \"bench.pt.trace.json\",\n  \"baseTimeNanoseconds\": "
      "1700000000000000000\n}\n");
  if (std::fclose(out) != 0) throw std::runtime_error("cannot write " + path + " (disk full?)");
  return written;
}

// The process's peak resident memory in bytes (VmHWM), 0 when /proc does not say.
uint64_t peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;  // kB
  return 0;
}

// Starts the peak above over from the memory now in use (Linux 4.0 on: "5" to clear_refs), so
// that the peak printed is one read's and its import's, not the repetitions' before it.
void reset_peak_resident() {
  ::malloc_trim(0);  // the heap the reads before freed goes back first, as in a fresh process
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

// CPU seconds (user + system) this process has used: on a shared machine the wall clock also
// counts the time other processes held the cores.
double cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// The trace gzip-compressed as tensorboard_trace_handler(use_gzip=True) leaves it (zlib's
// default level: inflating costs about the same at any level); returns the compressed bytes.
uint64_t gzip_file(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  gzFile out = gzopen(to.c_str(), "wb6");
  if (!in || !out) throw std::runtime_error("cannot write " + to);
  gzbuffer(out, 1 << 22);
  std::vector<char> chunk(1 << 22);
  while (in.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) || in.gcount() > 0)
    if (gzwrite(out, chunk.data(), static_cast<unsigned>(in.gcount())) <= 0)
      throw std::runtime_error("cannot write " + to + " (disk full?)");
  if (gzclose(out) != Z_OK) throw std::runtime_error("cannot write " + to);
  return fs::file_size(to);
}

struct InflateRun {
  double cpu_s = 0;
  uint64_t bytes = 0;  // inflated
  uint64_t peak = 0;   // resident bytes
};

// zlib streaming, as the reader inflates: 4 MiB buffers, memory bounded by them.
InflateRun inflate_with_zlib(const std::string& path) {
  reset_peak_resident();
  InflateRun run;
  const double start = cpu_seconds();
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) throw std::runtime_error("cannot read " + path);
  gzbuffer(in, 1 << 22);
  std::vector<char> chunk(1 << 22);
  for (int n; (n = gzread(in, chunk.data(), static_cast<unsigned>(chunk.size()))) > 0;)
    run.bytes += static_cast<uint64_t>(n);
  gzclose(in);
  run.cpu_s = cpu_seconds() - start;
  run.peak = peak_resident_bytes();
  return run;
}

// libdeflate: the whole member in memory, compressed and inflated (its size from the gzip
// trailer, which holds it modulo 2^32: a member of 4 GiB or more cannot be sized this way).
InflateRun inflate_with_libdeflate(const std::string& path) {
  reset_peak_resident();
  InflateRun run;
  const double start = cpu_seconds();
  std::ifstream in(path, std::ios::binary);
  std::vector<char> packed(fs::file_size(path));
  in.read(packed.data(), static_cast<std::streamsize>(packed.size()));
  const auto* tail = reinterpret_cast<const unsigned char*>(packed.data() + packed.size() - 4);
  const uint32_t size =
      tail[0] | tail[1] << 8 | tail[2] << 16 | static_cast<uint32_t>(tail[3]) << 24;
  std::vector<char> out(size);
  libdeflate_decompressor* d = libdeflate_alloc_decompressor();
  size_t inflated = 0;
  const libdeflate_result r = libdeflate_gzip_decompress(d, packed.data(), packed.size(),
                                                         out.data(), out.size(), &inflated);
  libdeflate_free_decompressor(d);
  if (r != LIBDEFLATE_SUCCESS) throw std::runtime_error("libdeflate could not inflate " + path);
  run.bytes = inflated;
  run.cpu_s = cpu_seconds() - start;
  run.peak = peak_resident_bytes();
  return run;
}

// The .json.gz of the same trace: the reader's rate on it (the JSON's megabytes per second of
// CPU), and inflating alone with zlib streaming (what the reader uses) against libdeflate on the
// whole member, each the best of three.
void gzip_figures(const std::string& trace, uint64_t json_bytes) {
  const std::string gz = trace + ".gz";
  const uint64_t packed = gzip_file(trace, gz);
  constexpr int kRepetitions = 3;
  double read_cpu_s = 0;
  uint64_t read_peak = 0;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    reset_peak_resident();
    const double start = cpu_seconds();
    const TraceEvents events = read_kineto_trace(gz);
    const double cpu = cpu_seconds() - start;
    if (rep == 0 || cpu < read_cpu_s) read_cpu_s = cpu;
    read_peak = std::max(read_peak, peak_resident_bytes());
  }
  InflateRun zlib_best, deflate_best;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    const InflateRun z = inflate_with_zlib(gz);
    if (rep == 0 || z.cpu_s < zlib_best.cpu_s) zlib_best = z;
    const InflateRun d = inflate_with_libdeflate(gz);
    if (rep == 0 || d.cpu_s < deflate_best.cpu_s) deflate_best = d;
  }
  std::cout << fmt::format(
      "gzip: {:.0f} MB compressed; inflate alone: zlib streaming (4 MiB buffers) {:.0f} MB/s, "
      "peak {:.0f} MB; libdeflate whole member {:.0f} MB/s, peak {:.0f} MB\n",
      packed / 1e6, zlib_best.bytes / 1e6 / zlib_best.cpu_s, zlib_best.peak / 1e6,
      deflate_best.bytes / 1e6 / deflate_best.cpu_s, deflate_best.peak / 1e6);
  std::cout << fmt::format(
      "import .json.gz (read, zlib): {:.0f} MB/s of JSON on CPU time, peak {:.0f} MB\n",
      json_bytes / 1e6 / read_cpu_s, read_peak / 1e6);
}

}  // namespace

int run_import_bench(uint64_t json_bytes) {
  const BenchFolder bench_folder("import");
  const std::string folder = bench_folder.path().string();
  const std::string trace = folder + "/bench.pt.trace.json";
  uint64_t kernels = 0;
  auto start = Clock::now();
  const uint64_t bytes = write_trace(trace, json_bytes, kernels);
  std::cout << fmt::format("generated {:.0f} MB of Kineto JSON ({} kernels) in {:.1f} s\n",
                           bytes / 1e6, kernels,
                           std::chrono::duration<double>(Clock::now() - start).count());

  ImportRequest request;
  request.file = trace;
  request.db_path = folder + "/results.sqlite";
  request.options["workload-out"] = folder + "/step.yaml";
  // The read three times, the fastest kept: on a shared machine one run's time also holds what
  // other processes took (docs/development.md, "Benchmarks"). Each read is whole, from the
  // file (the page cache holds it after the first, as it would after a profiler wrote it).
  constexpr int kRepetitions = 3;
  double read_s = 0, read_cpu_s = 0;
  TraceEvents events;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    events = TraceEvents{};
    if (rep == kRepetitions - 1) reset_peak_resident();
    const auto rep_start = Clock::now();
    const double rep_cpu_start = cpu_seconds();
    events = read_kineto_trace(trace);
    const double wall = std::chrono::duration<double>(Clock::now() - rep_start).count();
    const double cpu = cpu_seconds() - rep_cpu_start;
    if (rep == 0 || cpu < read_cpu_s) {
      read_s = wall;
      read_cpu_s = cpu;
    }
  }
  const size_t operators = events.operators.size();
  const uint64_t read_peak = peak_resident_bytes();
  const auto stored_start = Clock::now();
  const double store_cpu_start = cpu_seconds();
  const ImportResult result = import_trace(std::move(events), request);
  const double store_s = std::chrono::duration<double>(Clock::now() - stored_start).count();
  const double store_cpu_s = cpu_seconds() - store_cpu_start;
  const double total_s = read_s + store_s;
  const double total_cpu_s = read_cpu_s + store_cpu_s;
  std::cout << fmt::format(
      "read {:.2f} s ({:.2f} s of CPU, the best of {}; {} operators kept after merging repeats; "
      "peak {:.0f} MB), match and store {:.2f} s ({:.2f} s of CPU): {} measurements\n",
      read_s, read_cpu_s, kRepetitions, operators, read_peak / 1e6, store_s, store_cpu_s,
      result.runs.empty() ? 0 : result.runs.front().measurements);
  std::cout << fmt::format(
      "on CPU time: {:.0f} MB/s (the wall-clock rate below also counts the "
      "time other processes held the cores)\n",
      bytes / 1e6 / total_cpu_s);
  for (const std::string& note : result.notes) std::cout << "note: " << note << "\n";
  std::cout << fmt::format("import: {:.0f} MB/s, peak {:.0f} MB\n", bytes / 1e6 / total_s,
                           peak_resident_bytes() / 1e6);
  gzip_figures(trace, bytes);
  return 0;
}

}  // namespace ts::cli
