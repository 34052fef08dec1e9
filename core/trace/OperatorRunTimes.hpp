#pragma once
// The time of each run of each operator a trace's kernels were stored under. A library may run
// one operator as several kernels (cuBLAS's split-K GEMM and its splitKreduce_kernel, a
// reduction in two passes): the operator's time is their sum, and that is what its prediction is
// compared with. Kernels are grouped by the operator run they belong to
// (ResolvedTrace::kernel_instance); a reader that merged the repeats of an operator
// (TraceOperator::occurrences) tied every run's kernels to one entry, in the order they ran, so
// that entry's kernels split into `occurrences` equal runs. Where they do not split evenly (a run
// launched other kernels) the entry counts as one run of the mean time.
#include <string>
#include <vector>

#include "trace/TraceEvents.hpp"
#include "trace/TraceKernelResolution.hpp"

namespace ts {

// The runs of one operator (an index into ResolvedTrace::operators) that launched the same
// kernels: each run's summed kernel durations, and the kernels' names in the order they ran
// ("gemm + splitKreduce_kernel", "kernel x2").
struct OperatorRunTimes {
  int op = 0;
  std::string kernels;
  std::vector<double> durations_ns;  // one per run
};

// In the order the operators were first seen.
std::vector<OperatorRunTimes> operator_run_times(const TraceEvents& events,
                                                 const ResolvedTrace& resolved);

}  // namespace ts
