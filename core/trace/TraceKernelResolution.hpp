#pragma once
// What each kernel of a trace becomes: a measurement of a tilescope operator, or one of the
// reasons it cannot be (its operator recorded no shapes, tilescope has no model of its operator,
// it has no operator and only its name says what it is, nothing matches it). The counts and
// examples of every reason become the import's notes; nothing is dropped silently.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "trace/KernelNameRules.hpp"
#include "trace/TraceEvents.hpp"
#include "workload/Operator.hpp"

namespace ts {

enum class KernelFate {
  measured,             // its operator is a tilescope operator: stored
  lacks_shapes,         // its operator (and those around it) recorded no input shapes
  operator_unmodelled,  // shapes were recorded, but for an operator tilescope has no model of
  name_only,            // no operator launched it that the trace shows; its name gives a class
  unmatched,            // no operator, and no name rule knows it
};

struct ResolvedTrace {
  // The distinct tilescope operators that ran, in the order first seen, and how many times each
  // ran (launches of its framework operator, not kernels: an operator of two kernels counts once).
  std::vector<Operator> operators;
  std::vector<int64_t> operator_runs;
  // Per kernel (index into TraceEvents::kernels): its operator (index into `operators`, -1 when
  // none) and its fate.
  std::vector<int> kernel_operator;
  std::vector<KernelFate> kernel_fate;
  // Per kernel: the framework operator (index into TraceEvents::operators) whose run it belongs
  // to, the one it is stored under (its shapes made the operator); -1 when not stored. The
  // kernels of one run of an operator (a GEMM and its split-K reduction) are one measurement.
  std::vector<int64_t> kernel_instance;
  // Per fate other than measured: up to 5 example names (kernel names; for
  // operator_unmodelled, the operators' names), and for name_only the count per class.
  std::map<KernelFate, size_t> fate_counts;
  std::map<KernelFate, std::vector<std::string>> examples;
  std::map<std::string, size_t> name_only_classes;
};

// Ties kernels by enclosing span first (KernelOperatorMatch), then stores each kernel under the
// innermost operator around its launch that recorded shapes (`aten::mm` under `aten::matmul`
// under `aten::linear` is stored as the mm), converted by TraceOperatorConversion. Name rules
// classify the kernels without an operator, and read operators whose names tilescope does not
// know (a custom op launching a cutlass GEMM is a gemm over its shapes).
ResolvedTrace resolve_trace(TraceEvents& events, const KernelNameRules& rules);

// The notes an import reports for a resolved trace ("3 kernels lack shapes ...").
std::vector<std::string> resolution_notes(const ResolvedTrace& resolved);

}  // namespace ts
