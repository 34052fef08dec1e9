#pragma once
// What the host spent per framework call in a profile, by the kinds of call the training
// simulator's host prices (training/HostDispatch.hpp and a cluster file's `host:` section):
// each call's time on its thread less the launch calls it made (cudaLaunchKernel and the like,
// which the simulator prices apart as the device graph's launch_overhead per kernel).
//
// A call is an outermost framework operator (a name with "::", or a collective's), or one run
// directly by an autograd node in backward. Its kind:
//   collective     c10d::, nccl or record_param_comms in the name
//   view           it launched no GPU work (view, transpose, split, empty)
//   gemm           one of its kernels is a GEMM (gemm, cutlass, xmma, cublas in the name)
//   aten_op        any other aten:: call
//   fused_op       any other call (a TorchScript fusion, a custom op)
// An autograd node ("autograd::engine::evaluate_function: ...") costs its own time: its span
// less its calls'. nn.Module calls are python_function events, which the importer does not keep:
// a profile says nothing of python_module.
#include <array>
#include <cstdint>
#include <string_view>

#include "trace/RankTrace.hpp"

namespace ts {

inline constexpr std::array<std::string_view, 6> kProfiledHostCallKinds = {
    "aten_op", "gemm", "fused_op", "collective", "autograd_node", "view"};

struct HostCallKindCost {
  int64_t calls = 0;
  int64_t p10_ns = 0, median_ns = 0, p90_ns = 0;  // per call, its launch calls left out
};

struct HostCallCosts {
  int rank = 0;
  int64_t step = -1;  // ProfilerStep#N, -1 for the whole trace
  std::array<HostCallKindCost, kProfiledHostCallKinds.size()> kinds{};
  int64_t launch_calls = 0;      // launch calls inside the calls counted
  int64_t launch_median_ns = 0;  // their median duration: what launch_overhead stands for
};

// Over the calls starting in ProfilerStep#`step`'s CPU span (the whole trace for -1). Throws
// std::out_of_range naming the steps the rank has when it has no step `step`.
HostCallCosts host_call_costs(const RankTrace& rank, int64_t step = -1);

}  // namespace ts
