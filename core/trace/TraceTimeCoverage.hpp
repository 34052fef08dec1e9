#pragma once
// How much of a trace's kernel time an import turned into measurements of operators tilescope
// models, by class, and what the rest was and why, by time: so that a predicted total is never
// read as the trace's total. A count of kernels hides that one unmodelled collective can be half
// of a step; time does not. Stored with the run (its settings, "trace_time"), so that correlate
// states the share of the trace its figures cover.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "trace/KernelNameRules.hpp"
#include "trace/TraceEvents.hpp"
#include "trace/TraceKernelResolution.hpp"

namespace ts {

struct TraceTimeCoverage {
  struct ClassTime {
    double total_ns = 0;
    double stored_ns = 0;
  };
  double total_ns = 0;   // every kernel's duration, summed
  double stored_ns = 0;  // of kernels stored as measurements
  // By class: an operator's class (matmul, elementwise, reduction, ...) where stored, else what
  // the kernel's name says (communication for collectives, a kernel-rule class), else "other".
  std::map<std::string, ClassTime> classes;
  // Time not stored, by why (KernelFate): "lack shapes", "operator not modelled", ...
  std::map<std::string, double> left_out_ns;
};

TraceTimeCoverage trace_time_coverage(const TraceEvents& events, const ResolvedTrace& resolved,
                                      const KernelNameRules& rules);

// "coverage by time: 412 of 453 us of kernel time stored (91.0 %): matmul 300 of 300 us, ...;
// left out: 20.0 us lack shapes, ...".
std::string coverage_text(const TraceTimeCoverage& coverage);

nlohmann::json coverage_json(const TraceTimeCoverage& coverage);
// None when `j` is not what coverage_json writes (a run stored before coverage was recorded).
std::optional<TraceTimeCoverage> coverage_from_json(const nlohmann::json& j);

}  // namespace ts
