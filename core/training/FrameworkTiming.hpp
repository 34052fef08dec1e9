#pragma once
// Framework work (OptimizerStep.hpp, MicroBatchWork.hpp: counted kernels, HBM bytes, small
// collectives, host waits) timed on a cluster: the collectives among the ranks of their groups,
// placed as Megatron-LM orders ranks (tensor-parallel 1 apart, data-parallel tp apart, pipeline
// stages tp x dp apart) and timed as NCCL runs them (GroupCollective); the host's share as the
// cluster's dispatch costs (HostDispatch.hpp) and the device's launch overhead per kernel.
#include "training/Cluster.hpp"
#include "training/GroupCollective.hpp"
#include "training/OptimizerStep.hpp"
#include "training/ParallelStrategy.hpp"

namespace ts {

struct TimedWork {
  double device_s = 0;      // the kernels on the GPU
  double collective_s = 0;  // the collectives, one after another
  double host_s = 0;        // the host's calls: each kernel, each collective, its own host_s
  bool syncs_host = false;  // the host waits for the device at the end
  // On the device and host together: the kernels while the host issues them, then the
  // collectives (their calls are short beside them).
  double elapsed_s() const { return (device_s > host_s ? device_s : host_s) + collective_s; }
};

TimedWork time_framework_work(const FrameworkWork& work, const Cluster& cluster,
                              const ParallelStrategy& strategy);

// Where a framework collective's group sits (SmallCollective::group), for GroupCollective.
GroupPlacement framework_group_placement(const SmallCollective& c, const ParallelStrategy& s,
                                         const Cluster& cluster);

}  // namespace ts
