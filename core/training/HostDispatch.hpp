#pragma once
// What the host spends to issue a training step's work: each call a framework makes (an eager
// aten op, a cuBLAS GEMM, a fused op called from Python, a collective, an autograd node, a view,
// an nn.Module call) costs a figure per kind, and a call that launches kernels adds the device's
// launch overhead (cudaLaunchKernel) per kernel. A call that launches no kernel (a view, a split,
// an identity autograd Function) still costs host time: where a step's kernels are short, that is
// what the device waits on (KernelLaunch.hpp).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts {

enum class HostCallKind {
  aten_op,        // an eager ATen op called from Python: binding, dispatcher, allocation
  gemm,           // a cuBLAS GEMM (torch.matmul, bmm, baddbmm, or apex's wgrad GEMM)
  fused_op,       // a TorchScript function or an apex / Megatron autograd.Function from Python
  collective,     // a torch.distributed call (ProcessGroupNCCL), NCCL's latency is device time
  autograd_node,  // one node the autograd engine runs in backward (its kernels are listed apart)
  view,           // a host-only call: view, transpose, split, empty, RNG state: no kernel
  python_module,  // an nn.Module.__call__ (hooks checked, then forward)
};
inline constexpr int kHostCallKinds = 7;
// The kinds in declaration order, under the names the cluster file's `host:` section uses.
inline constexpr std::array<std::string_view, kHostCallKinds> kHostCallKindNames = {
    "aten_op", "gemm", "fused_op", "collective", "autograd_node", "view", "python_module"};
std::string_view to_string(HostCallKind k);
std::optional<HostCallKind> host_call_kind(std::string_view name);

// `count` calls of one kind, each launching `kernels_per_call` kernels when `launches_kernel`
// (apex's layer-norm backward is one call and two kernels). `count` is a double so that a share
// of a call (recomputed layers, a per-iteration call spread over micro-batches) can be written.
struct HostCall {
  std::string what;
  HostCallKind kind = HostCallKind::aten_op;
  double count = 1;
  bool launches_kernel = true;
  int kernels_per_call = 1;

  double kernels() const { return launches_kernel ? count * kernels_per_call : 0; }
};

// Host seconds per call of each kind, not counting the launch overhead (the device graph's
// `launch_overhead`, added per kernel by host_work). Defaults: docs/formats.md ("host") and the
// comments in HostDispatch.cpp, from public measurements on an A100 with PyTorch where there are
// some, estimates otherwise (said so); never fitted to measured training runs.
struct HostDispatchCosts {
  double aten_op_s = 7.0e-6;
  double gemm_s = 19.6e-6;
  double fused_op_s = 7.0e-6;
  double collective_s = 7.0e-6;
  double autograd_node_s = 3.0e-6;
  double view_s = 2.0e-6;
  double python_module_s = 3.0e-6;

  double seconds(HostCallKind k) const;
  double& seconds(HostCallKind k);
};

struct HostWork {
  double kernels = 0;
  double host_s = 0;  // every call's cost by kind, plus launch_overhead_s per kernel
};

HostWork host_work(const std::vector<HostCall>& calls, const HostDispatchCosts& costs,
                   double launch_overhead_s);

}  // namespace ts
