#pragma once
// A model's forward pass from its operators' predictions (docs/analysis.md, "Time per token"):
// each operator's device time times its runs per pass (Operator::count), summed; the time
// per token and tokens per second that follow; and, per operator type, its share and what
// bounds it.
#include <string>
#include <vector>

#include "analysis/Prediction.hpp"
#include "workload/Operator.hpp"

namespace ts {

struct OperatorClassTime {
  std::string type;      // the operator type (gemm, decode_attention, rmsnorm, ...)
  int64_t kernels = 0;   // kernels of this type in one pass
  double device_s = 0;   // their device time in one pass
  std::string bound_by;  // the bound of the operator of this type that takes the most time
  double bytes = 0;      // traffic in and out of the graph's largest memory, in one pass
};

struct ForwardPass {
  std::string phase;  // decode or prefill
  int64_t tokens_per_pass = 0;
  int64_t kernels = 0;  // kernel launches in one pass
  double device_s = 0;  // one pass on the device
  double launch_s = 0;  // the launch overhead of its kernels, reported apart
  // decode: the pass (each sequence's next token waits for it); prefill: the pass over its
  // tokens. tokens_per_s counts every token a pass produces.
  double time_per_token_s = 0;
  double tokens_per_s = 0;
  std::vector<OperatorClassTime> classes;  // by device time, largest first
};

// `predictions` are those of `workload.operators`, in their order.
ForwardPass forward_pass(const Workload& workload, const std::vector<Prediction>& predictions,
                         const std::string& main_memory);

}  // namespace ts
