#pragma once
// The JSON lines that tilescope-cupti-runner writes (docs/formats.md, "Runner results"), read
// strictly: a malformed line, a record of a newer runner version, or a field of the wrong type is
// an InputError at file:line, so that `import runner` can refuse the whole file before it
// touches a database.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ts {

// The newest results version this tilescope reads (collectors/cupti/RunnerVersion.hpp).
constexpr int kRunnerResultsVersion = 1;

// The implementations the runner measures (its `implementation` field), in the order their runs
// are stored on import: tilescope's own CUDA GEMM, cuBLAS, cuBLASLt, the vector kernels.
inline const std::vector<std::string> kRunnerImplementations = {"tilescope", "cublas", "cublaslt",
                                                                "vector"};

struct RunnerTimes {
  double min_ns = 0, median_ns = 0, max_ns = 0, spread = 0;
};

struct RunnerKernelRecord {
  int line = 0;  // in the results file
  int plan_line = 0;
  std::string suite, op, type, steps, shape, dtype, implementation;
  std::string mapping_hash, mapping_name, block, warp, l2, algorithm, kernel_names;
  std::string spec;          // the operator as one workload entry (workload/OperatorSpec.hpp)
  std::string mapping_yaml;  // tilescope kernel: the mapping file it ran
  int repetitions = 0;
  RunnerTimes device, host_call;
  double max_error = 0;
  bool checked = false;
  std::string device_name;
};

struct RunnerCalibrationRecord {
  int line = 0;
  std::string figure;  // hbm_copy_bandwidth, l2_read_bandwidth, ..., device
  double value = 0;
  std::string unit, method;
  // figure "device": the device's properties; a sweep point (wmma_kernel_sweep): what it ran
  std::string properties_json;
};

struct RunnerResults {
  std::string file;
  std::string run_device_json;  // the "device" object of the first run record, or "{}"
  std::vector<RunnerKernelRecord> kernels;
  std::vector<RunnerCalibrationRecord> calibration;
  std::vector<std::string> job_errors;  // "file:line: operator impl: message" of error records
};

// The most records (non-blank lines) a results file may hold. A run of a bundled suite writes
// hundreds; each record keeps its mapping text, so a million is already about a GiB in memory.
inline constexpr size_t kRunnerRecordLimit = 1'000'000;

// Every fault, including a number past a double (`1e309`), a value of the wrong type and text
// that is not UTF-8, is an InputError at the record's line; more than kRunnerRecordLimit records
// is one at the first line past it.
RunnerResults read_runner_results(const std::string& path);
RunnerResults parse_runner_results(const std::string& text, const std::string& file_name);

}  // namespace ts
