#pragma once
// The host thread of a rank issuing its GPU's kernels. CUDA launches are asynchronous: the host
// (PyTorch's dispatch, Megatron's Python, the launch itself) queues each kernel and moves on, and
// the GPU runs the queue. Where a step's kernels are shorter than their issuing, the GPU waits
// for the host (host-bound); where they are longer, the host runs ahead and the queue carries
// the slack over to the next step, until something makes the host wait for the GPU:
// - with pipeline parallelism Megatron-LM synchronises the device after every exchange between
//   stages (megatron/p2p_communication.py, _communicate: "To protect against race condition when
//   using batch_isend_irecv()", torch.cuda.synchronize()), so each step's host starts with its
//   device and the step lasts the longer of the two (`synchronised_steps`);
// - with one stage nothing synchronises until the optimizer reads the gradient norm and the
//   overflow flag (.item()), so the host issues step after step and the GPU follows
//   (`run_ahead_steps`).
#include <vector>

namespace ts {

// One step's work on each side: the GPU's kernels, and the host's issuing of them.
struct StepWork {
  double device_s = 0;
  double host_s = 0;
};

// Where the host was busy issuing a step.
struct HostIssue {
  double start_s = 0;
  double end_s = 0;
};

// Steps in order on one GPU and its host, from time 0. `device_end_s[i]`: when the GPU finished
// step i; `host[i]`: when the host issued it.
struct HostTimeline {
  std::vector<double> device_end_s;
  std::vector<HostIssue> host;
  double end_s() const { return device_end_s.empty() ? 0.0 : device_end_s.back(); }
};

// The host never waits: it ends issuing step i at H_1 + ... + H_i, and the GPU finishes step i
// at max(its end of step i - 1 + D_i, the host's end of step i) (the last kernel queued cannot
// run before it is issued; its own length is in D_i).
HostTimeline run_ahead_steps(const std::vector<StepWork>& steps);

// The host starts each step with its GPU (it synchronised): the step lasts max(D_i, H_i).
inline double synchronised_step_s(const StepWork& w) {
  return w.device_s > w.host_s ? w.device_s : w.host_s;
}

}  // namespace ts
