#pragma once
// Runs operators on the host CPU and times them with a wall clock around each call
// (timing_scope host_call). Jobs are measured in groups: every job of a group is warmed up, then
// the group's repetitions are interleaved (round r of every job before round r+1 of any), so that
// drift and neighbours on a shared machine spread over all operators; each group's results are
// handed over as soon as the group ends, so a stopped run keeps every finished group.
// Every result is checked against a simple reference implementation before it counts.
#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "measure/MeasurementRecord.hpp"
#include "plan/SuiteEntry.hpp"
#include "workload/Operator.hpp"

namespace ts::host {

enum class HostKernel {
  tiled,     // gemm / batched_gemm through TiledGemm, driven by `program`
  openblas,  // gemm / batched_gemm through cblas_sgemm, a black box
  vector     // vector operators and fused chains (one pass per row block for a fused chain)
};
std::string_view to_string(HostKernel kernel);

struct HostJob {
  Operator op;  // fp32
  HostKernel kernel = HostKernel::vector;
  std::optional<MappingProgram> program;  // tiled only: concrete, on the host graph
  std::optional<MappingRecord> mapping;   // copied into the measurement
  std::string suite;
};

// The job that measures a planned suite entry (plan/HostSuitePlan); its implementation names
// the kernel (to_string). Throws std::invalid_argument for an implementation the host lacks.
HostJob host_job(const SuiteEntry& entry);

// How many repetitions a job gets: at least `repetitions`; then, while the 95 % interval of its
// median (measure/MedianConfidence) is wider than +-`tolerance`, further interleaved rounds,
// until `max_repetitions` or until its repetitions have taken `seconds_per_point`. A job that
// ends outside the tolerance, or whose group ran while other processes took more than
// `busy_cores` of the cores it uses, is delivered with Measurement::unstable saying why.
struct HostCollectorOptions {
  int repetitions = 7;  // timed, per job, at least (at least 5 are enforced)
  int max_repetitions = 40;
  double tolerance = 0.05;
  double seconds_per_point = 1.0;
  double busy_cores = 0.25;
  int warmup = 1;
  int threads = 0;           // 0: one per core
  int group_size = 8;        // jobs whose repetitions are interleaved
  bool flush_caches = true;  // stream through 2x the last-level cache before every repetition
  uint64_t seed = 42;        // operand values
};

struct HostProgress {
  size_t done = 0;      // jobs whose repetitions are over
  size_t total = 0;     // the jobs: fixed before the first repetition runs
  std::string current;  // operator name and its repetition under way
};

// Whether a job with these timings so far gets another round (the rule above).
bool wants_another_repetition(const std::vector<double>& times_ns,
                              const HostCollectorOptions& options);
// Why a finished job is not trusted: `disturbed` when the machine was busy, else its median's
// interval (none: too few repetitions) against the tolerance; kind none and "" when trusted.
struct UnstableVerdict {
  Instability kind = Instability::none;
  std::string reason;
};
UnstableVerdict unstable_verdict(std::optional<double> median_ci, int repetitions,
                                 const std::string& disturbed, const HostCollectorOptions& options);

// Measures every job, with the calling thread and the OpenMP workers bound one per core
// (HostTopology) for the whole call; returns the number of measurements delivered. Stops between
// repetitions when `cancel` becomes true (results of unfinished groups are dropped). A result that
// disagrees with its reference is delivered with checked = false and its max_error, never silently.
size_t run_host_jobs(const std::vector<HostJob>& jobs, const HostCollectorOptions& options,
                     const std::function<void(const Measurement&)>& on_result,
                     const std::function<void(const HostProgress&)>& on_progress,
                     const std::atomic<bool>* cancel);

}  // namespace ts::host
