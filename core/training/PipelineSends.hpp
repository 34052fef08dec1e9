#pragma once
// Where a pipeline's sends go on the cluster. In Megatron-LM's rank order (tensor-parallel
// ranks innermost, then data-parallel, then pipeline) stage st of replica r starts at GPU
// st x tp x dp + r x tp, so two neighbouring stages share a node only when a stage holds fewer
// GPUs than a node. A send inside a node goes over NVLink; one between nodes over the sender's
// share of its node's NICs, and, where the two nodes hang from different switches, up and down
// the switch levels between them (NetworkRoutes), which the sends of the stage's other ranks
// share.
#include <cstdint>

#include "training/Cluster.hpp"
#include "training/NetworkRoutes.hpp"
#include "training/TaskGraph.hpp"

namespace ts {

struct PipelinePlacement {
  int64_t stages = 1, tp = 1, dp = 1;
  int64_t replica = 0;
};

struct PipelineSendTimes {
  double nvlink_s = 0, network_s = 0;  // one send alone, inside a node and between nodes
};

// The first GPU of a stage of a replica (Megatron-LM's rank order).
inline int64_t stage_first_gpu(const PipelinePlacement& p, int64_t stage) {
  return stage * p.tp * p.dp + p.replica * p.tp;
}

// Gives every send of a pipeline_task_graph (its streams from `first_stream`: the stages'
// compute streams, then per stage a stream down and one up) its time and the switch links it
// crosses. Tasks before `first_task` are left alone.
void place_pipeline_sends(TaskGraph& graph, int first_stream, size_t first_task,
                          const Cluster& cluster, const PipelinePlacement& placement,
                          const PipelineSendTimes& times, NetworkRoutes& network);

// How many of a stage's sends one simulated send stands for where they meet in the network: all
// of a stage's tp x dp ranks (`ranks`) send at once, but no more of them than a leaf switch's
// nodes hold hang from one switch.
int64_t pipeline_send_copies(const Cluster& cluster, int64_t ranks);

}  // namespace ts
