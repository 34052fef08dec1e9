#pragma once
// Kernels issued by a host ahead of the device (CUDA launches are asynchronous): the host spends
// `host_per_kernel_s` on each (the device graph's launch_overhead and the framework's own cost,
// Cluster::framework_overhead_s) and queues it; the device runs the queue. Over a run of
// kernels the device finishes after the later of its own work and the host's issuing, so host
// time matters only where kernels are, on average, shorter than it. In a steady stream of
// layers the queue carries the slack of long kernels over to short ones, so the bound holds per
// pipeline step, not per kernel.
#include <algorithm>

namespace ts {

inline double host_bound_s(double device_s, double kernels, double host_per_kernel_s) {
  return std::max(device_s, kernels * host_per_kernel_s);
}

}  // namespace ts
