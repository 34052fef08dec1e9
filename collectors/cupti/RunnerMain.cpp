// tilescope-cupti-runner: measures the jobs of a plan (or calibrates the device) through the
// CUPTI Activity API and writes JSON lines (docs/cupti.md). Exit status: 0 all jobs measured and
// checked, 1 some job failed or disagreed with its reference (the others are written), 2 bad
// command line or plan, or no CUDA device.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "ActivitySession.hpp"
#include "Calibration.hpp"
#include "DeviceError.hpp"
#include "DeviceJob.hpp"
#include "DeviceProperties.hpp"
#include "JobTimer.hpp"
#include "RunnerPlan.hpp"
#include "RunnerVersion.hpp"

namespace ts::cupti {
namespace {

struct Options {
  std::string plan, out = "-";
  bool calibrate = false;
  bool launch_only = false;  // for an external profiler (ncu), which CUPTI's activity API excludes
  int device = 0;
  int warmup = 3;
};

const char* kUsage =
    "usage: tilescope-cupti-runner --plan FILE [--out FILE] [--device N] [--warmup N]\n"
    "                              [--launch-only]\n"
    "       tilescope-cupti-runner --calibrate [--out FILE] [--device N]\n"
    "Measures a tilescope plan with CUPTI and writes JSON lines (default: stdout).\n"
    "--launch-only runs each job's kernels (warm-up and repetitions) and checks them, without\n"
    "CUPTI and without timing records: for a profiler such as ncu, which cannot share CUPTI.\n";

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::cerr << "tilescope-cupti-runner: " << name << " expects a value\n" << kUsage;
        return nullptr;
      }
      return argv[++i];
    };
    const char* v = nullptr;
    if (a == "--plan") {
      if (!(v = value("--plan"))) return false;
      o.plan = v;
    } else if (a == "--out") {
      if (!(v = value("--out"))) return false;
      o.out = v;
    } else if (a == "--device") {
      if (!(v = value("--device"))) return false;
      o.device = std::atoi(v);
    } else if (a == "--warmup") {
      if (!(v = value("--warmup"))) return false;
      o.warmup = std::atoi(v);
    } else if (a == "--calibrate") {
      o.calibrate = true;
    } else if (a == "--launch-only") {
      o.launch_only = true;
    } else if (a == "--version") {
      std::cout << "tilescope-cupti-runner results version " << kRunnerVersion << ", plan version "
                << kPlanVersion << ", built with CUDA " << CUDART_VERSION << "\n";
      std::exit(0);
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      std::cerr << "tilescope-cupti-runner: unknown argument '" << a << "'\n" << kUsage;
      return false;
    }
  }
  if (o.plan.empty() == !o.calibrate) {
    std::cerr << "tilescope-cupti-runner: give exactly one of --plan FILE and --calibrate\n"
              << kUsage;
    return false;
  }
  if (o.launch_only && o.calibrate) {
    std::cerr << "tilescope-cupti-runner: --launch-only runs a plan; calibration needs CUPTI\n"
              << kUsage;
    return false;
  }
  return true;
}

// Without a driver or a device, cudaGetDeviceCount fails or finds none; nothing else touches the
// device before this check, so that the runner never hangs or crashes there.
bool device_visible(int device) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    std::cerr << "no CUDA device visible: " << cudaGetErrorString(err) << "\n";
    return false;
  }
  if (count == 0) {
    std::cerr << "no CUDA device visible: cudaGetDeviceCount found 0 devices\n";
    return false;
  }
  if (device < 0 || device >= count) {
    std::cerr << "no CUDA device visible: device " << device << " asked for, " << count
              << " present\n";
    return false;
  }
  return true;
}

std::string summary_object(const SampleSummary& s) {
  JsonLine j;
  j.add("min", s.min).add("median", s.median).add("max", s.max).add("spread", s.spread);
  return j.str();
}

std::string kernel_record(const PlanJob& job, const Plan& plan, const Options& o,
                          const JobTiming& t, const CheckOutcome& check,
                          const std::string& algorithm, const DeviceSummary& dev) {
  std::string shape, steps, names;
  for (const auto& [d, n] : job.shape)
    shape += (shape.empty() ? "" : ",") + d + ":" + std::to_string(n);
  for (const auto& s : job.steps) steps += (steps.empty() ? "" : ",") + s;
  for (const auto& n : t.kernel_names) names += (names.empty() ? "" : ";") + n;
  JsonLine device, host, checked;
  device.add("min", t.device_ns.min)
      .add("median", t.device_ns.median)
      .add("max", t.device_ns.max)
      .add("spread", t.device_ns.spread);
  host.add("min", t.host_call_ns.min)
      .add("median", t.host_call_ns.median)
      .add("max", t.host_call_ns.max)
      .add("spread", t.host_call_ns.spread);
  checked.add("reference", check.reference)
      .add("max_error", check.max_error)
      .add("tolerance", check.tolerance)
      .add("passed", check.passed());
  JsonLine j;
  j.add("record", "kernel")
      .add("runner_version", kRunnerVersion)
      .add("plan", plan.file)
      .add("plan_line", job.line)
      .add("suite", job.suite)
      .add("operator", job.op)
      .add("type", job.type)
      .add("steps", steps)
      .add("shape", shape)
      .add("dtype", job.dtype)
      .add("implementation", to_string(job.impl))
      .add("mapping_hash", job.mapping_hash)
      .add("mapping_name", job.mapping_name)
      .add("spec", job.spec)
      .add("mapping_yaml", job.mapping_yaml);
  if (job.impl == Implementation::tilescope)
    j.add("block", std::to_string(job.block_m) + "x" + std::to_string(job.block_n) + "x" +
                       std::to_string(job.block_k))
        .add("warp", std::to_string(job.warp_m) + "x" + std::to_string(job.warp_n))
        .add("stages", job.stages);
  j.add("l2", job.cold_l2 ? "cold" : "warm")
      .add("repetitions", job.repetitions)
      .add("warmup", o.warmup)
      .add_object("device_ns", device)
      .add_object("host_call_ns", host)
      .add("kernels_per_repetition", t.kernels_per_repetition)
      .add("kernel_names", names)
      .add("algorithm", algorithm)
      .add_object("check", checked)
      .add("device", dev.name)
      .add("compute_capability", dev.compute_capability)
      .add("cuda_runtime", dev.cuda_runtime)
      .add("cuda_driver", dev.cuda_driver)
      .add("dropped_records", static_cast<int64_t>(t.dropped_records));
  return j.str();
}

std::string error_record(const PlanJob& job, const std::string& message) {
  JsonLine j;
  j.add("record", "error")
      .add("runner_version", kRunnerVersion)
      .add("plan_line", job.line)
      .add("operator", job.op)
      .add("implementation", to_string(job.impl))
      .add("message", message);
  return j.str();
}

int run(const Options& o) {
  Plan plan;
  if (!o.calibrate) {
    try {
      plan = read_plan(o.plan);
    } catch (const PlanError& e) {
      std::cerr << e.what() << "\n";
      return 2;
    }
  }
  if (!device_visible(o.device)) return 2;

  std::ofstream file;
  if (o.out != "-") {
    file.open(o.out);
    if (!file) {
      std::cerr << o.out << ":0: cannot write the results: " << std::strerror(errno) << "\n";
      return 2;
    }
  }
  std::ostream& out = o.out == "-" ? std::cout : file;
  auto emit = [&](const std::string& line) { out << line << "\n" << std::flush; };
  auto log = [](const std::string& line) { std::cerr << line << "\n" << std::flush; };

  TS_CUDA(cudaSetDevice(o.device));
  std::optional<ActivitySession> session;
  if (!o.launch_only) session.emplace();
  TS_CUDA(cudaFree(nullptr));  // create the context now, not inside the first timed job
  const DeviceSummary dev = device_summary(o.device);
  LibraryHandles handles;
  TS_CUBLAS(cublasCreate(&handles.blas));
  TS_CUBLAS(cublasLtCreate(&handles.blas_lt));
  handles.workspace_bytes = 32u << 20;
  DeviceBuffer workspace(handles.workspace_bytes);
  handles.workspace = workspace.get();
  TS_CUBLAS(cublasSetWorkspace(handles.blas, handles.workspace, handles.workspace_bytes));

  {
    JsonLine j;
    j.add("record", "run")
        .add("runner_version", kRunnerVersion)
        .add("mode", o.calibrate ? "calibrate" : "plan")
        .add("plan", o.plan)
        .add("jobs", static_cast<int64_t>(plan.jobs.size()))
        .add("timing",
             "CUPTI activity CONCURRENT_KERNEL durations (device); steady_clock "
             "around launch + stream synchronize (host_call)")
        .add_object("device", device_properties(o.device));
    emit(j.str());
  }
  log("device " + dev.name + " (sm_" + dev.compute_capability + ", " +
      std::to_string(dev.sm_count) + " SMs), CUDA runtime " + std::to_string(dev.cuda_runtime) +
      ", driver " + std::to_string(dev.cuda_driver));

  if (o.calibrate) {
    run_calibration(o.device, *session, handles, emit, log);
    cublasLtDestroy(handles.blas_lt);
    cublasDestroy(handles.blas);
    return 0;
  }

  cudaStream_t stream = nullptr;
  TS_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  L2Flusher flusher(dev.l2_bytes);
  int failed = 0;
  for (size_t i = 0; i < plan.jobs.size(); ++i) {
    const PlanJob& job = plan.jobs[i];
    char head[200];
    std::snprintf(head, sizeof head, "[%zu/%zu] %s %s %s", i + 1, plan.jobs.size(), job.op.c_str(),
                  to_string(job.impl).c_str(), job.dtype.c_str());
    try {
      std::unique_ptr<DeviceJob> dj;
      if (job.impl != Implementation::vector)
        dj = make_gemm_job(job, handles);
      else if (is_llm_row_type(job.type))
        dj = make_llm_row_job(job);
      else if (job.type == "decode_attention")
        dj = make_decode_attention_job(job);
      else
        dj = make_vector_job(job);
      if (o.launch_only) {
        for (int r = 0; r < o.warmup + job.repetitions; ++r) {
          if (job.cold_l2) flusher.flush(stream);
          dj->launch(stream);
        }
        TS_CUDA(cudaStreamSynchronize(stream));
        const CheckOutcome check = dj->check(stream);
        log(std::string(head) + ": launched " + std::to_string(o.warmup + job.repetitions) +
            " times (no timing), " + (check.passed() ? "agrees" : "DISAGREES") +
            " with the reference");
        if (!check.passed()) ++failed;
        continue;
      }
      const JobTiming t = time_job(
          *session, [&](cudaStream_t s) { dj->launch(s); }, job.repetitions, o.warmup,
          job.cold_l2 ? &flusher : nullptr, stream);
      const CheckOutcome check = dj->check(stream);
      emit(kernel_record(job, plan, o, t, check, dj->algorithm(), dev));
      char line[600];
      std::snprintf(
          line, sizeof line,
          "%s: device median %.2f us (spread %.1f %%), host_call %.2f us, max error %.2g%s", head,
          t.device_ns.median * 1e-3, t.device_ns.spread * 100, t.host_call_ns.median * 1e-3,
          check.max_error, check.passed() ? "" : " DISAGREES WITH THE REFERENCE");
      log(line);
      if (!check.passed()) ++failed;
    } catch (const DeviceError& e) {
      ++failed;
      emit(error_record(job, e.what()));
      log(std::string(head) + ": " + e.what());
      cudaGetLastError();  // clear a sticky launch error so that the next job can run
    }
  }
  cudaStreamDestroy(stream);
  cublasLtDestroy(handles.blas_lt);
  cublasDestroy(handles.blas);
  if (failed) log(std::to_string(failed) + " job(s) failed or disagreed with the reference");
  return failed ? 1 : 0;
}

}  // namespace
}  // namespace ts::cupti

int main(int argc, char** argv) {
  ts::cupti::Options options;
  if (!ts::cupti::parse_args(argc, argv, options)) return 2;
  try {
    return ts::cupti::run(options);
  } catch (const ts::cupti::DeviceError& e) {
    std::cerr << "tilescope-cupti-runner: " << e.what() << "\n";
    return 1;
  }
}
