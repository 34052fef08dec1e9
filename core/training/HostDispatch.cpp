#include "training/HostDispatch.hpp"

namespace ts {

// Where the default figures of HostDispatchCosts come from. All are host seconds per call on top
// of the launch overhead, which the device graph gives (`launch_overhead`, 4 us on the A100
// graph: cudaLaunchKernel's host time, a few microseconds).
//
// Measured (shared/validation/a100/a100_torch_kernels.csv: LLMCompass artifact, A100 80GB,
// PyTorch fp16, median wall time of one call plus torch.cuda.synchronize()):
// - aten_op 7.0 us: the smallest host-timed op of the set, softmax over 4096 x 32, takes 13.11 us;
//   vector kernels over the same 131072 elements take 2.0 us on the device
//   (a100_llm_operators.csv, CUPTI); 13.11 - 2.0 - 4 (launch) = 7.1 us, the 7 us that
//   Cluster::framework_overhead_s has always defaulted to. The synchronize is inside the figure:
//   an upper estimate for ops issued back to back.
// - gemm 19.6 us: the smallest host-timed GEMM (torch.bmm, batch 1, M 8192, N = K = 64) takes
//   29.6 us; the shortest cuBLAS GEMM kernel of a100_llm_operators.csv takes 6.0 us on the
//   device (M 1, N 4096, K 512), an upper bound for this one's; 29.6 - 6.0 - 4 = 19.6 us. The
//   artifact's own model puts about 21 us on top of a GEMM kernel (a100/README.md). cuBLAS's
//   heuristics and handle and workspace set-up are the difference from an element-wise op.
// Estimates (no public per-call measurement known to us; a profile's figures belong in the
// cluster file's `host:` section):
// - fused_op 7.0 us: as an eager op. A TorchScript call or an autograd.Function.apply adds a
//   Python frame and a graph node to the same dispatcher path.
// - collective 7.0 us: as an eager op (c10d's collectives are dispatcher ops since PyTorch 2.0);
//   ProcessGroupNCCL's events and NCCL's enqueue are not measured apart. NCCL's protocol and
//   synchronisation latency is device time, modelled with the collective (Collectives.hpp).
// - autograd_node 3.0 us: the engine's bookkeeping per node (input buffer, ready queue, output
//   validation; a Python call for a custom Function's backward). The node's kernels are listed
//   apart, each at its own kind.
// - view 2.0 us: a Python binding and a dispatch without allocation, iterator or launch.
// - python_module 3.0 us: nn.Module.__call__'s Python (_call_impl and its hook checks).

std::string_view to_string(HostCallKind k) { return kHostCallKindNames[static_cast<size_t>(k)]; }

std::optional<HostCallKind> host_call_kind(std::string_view name) {
  for (size_t i = 0; i < kHostCallKindNames.size(); ++i)
    if (kHostCallKindNames[i] == name) return static_cast<HostCallKind>(i);
  return std::nullopt;
}

double HostDispatchCosts::seconds(HostCallKind k) const {
  return const_cast<HostDispatchCosts*>(this)->seconds(k);
}

double& HostDispatchCosts::seconds(HostCallKind k) {
  switch (k) {
    case HostCallKind::aten_op:
      return aten_op_s;
    case HostCallKind::gemm:
      return gemm_s;
    case HostCallKind::fused_op:
      return fused_op_s;
    case HostCallKind::collective:
      return collective_s;
    case HostCallKind::autograd_node:
      return autograd_node_s;
    case HostCallKind::view:
      return view_s;
    case HostCallKind::python_module:
      return python_module_s;
  }
  return aten_op_s;
}

HostWork host_work(const std::vector<HostCall>& calls, const HostDispatchCosts& costs,
                   double launch_overhead_s) {
  HostWork w;
  for (const HostCall& c : calls) {
    const double kernels = c.kernels();
    w.kernels += kernels;
    w.host_s += c.count * costs.seconds(c.kind) + kernels * launch_overhead_s;
  }
  return w;
}

}  // namespace ts
