#include "training/FrameworkTiming.hpp"

#include "training/GroupCollective.hpp"

namespace ts {

GroupPlacement framework_group_placement(const SmallCollective& c, const ParallelStrategy& s,
                                         const Cluster& cluster) {
  const int64_t tp = s.tp.value, dp = s.dp.value, pp = s.pp.value;
  if (c.group == "dp") return {c.ranks, 0, tp};
  if (c.group == "pp") return {c.ranks, 0, tp * dp};
  if (c.group == "embedding") return {c.ranks, 0, (pp - 1) * tp * dp};
  // The model-parallel group (tp x pp) is tp consecutive GPUs per stage, stages tp x dp apart:
  // in one node when it fits, else its stages' spread over nodes is what NCCL's latency sees.
  if (c.group == "model-parallel" && dp > 1 && c.ranks * dp > cluster.devices_per_node)
    return {pp, 0, tp * dp};
  // "tp", "world", and "model-parallel" with consecutive ranks.
  return {c.ranks, 0, 1};
}

TimedWork time_framework_work(const FrameworkWork& w, const Cluster& cluster,
                              const ParallelStrategy& s) {
  TimedWork t;
  t.device_s = w.device_s;
  t.syncs_host = w.syncs_host;
  // Each kernel is one eager call (the pieces are ATen ops and apex's multi-tensor launches).
  t.host_s = w.host_s + w.kernels * (cluster.host.aten_op_s + cluster.device.launch_overhead_s);
  for (const SmallCollective& c : w.collectives) {
    const GroupPlacement group = framework_group_placement(c, s, cluster);
    if (group.ranks <= 1) continue;
    // A broadcast moves the whole buffer down a ring once: as an all-gather's steps, each of
    // bytes / n, it has the same latency and a near bandwidth term.
    const CollectiveKind kind = c.broadcast ? CollectiveKind::all_gather : c.kind;
    t.collective_s +=
        group_collective_s(kind, cluster, group, c.bytes, c.group == "dp" ? s.tp.value : 1);
    t.host_s += cluster.host.collective_s;
  }
  return t;
}

}  // namespace ts
