#include "training/PipelineSends.hpp"

#include <algorithm>

namespace ts {

void place_pipeline_sends(TaskGraph& g, int first_stream, size_t first_task, const Cluster& c,
                          const PipelinePlacement& p, const PipelineSendTimes& times,
                          NetworkRoutes& network) {
  for (size_t i = first_task; i < g.tasks.size(); ++i) {
    Task& t = g.tasks[i];
    const int64_t local = t.stream - first_stream - p.stages;
    if (!t.transfer || local < 0) continue;
    // pipeline_task_graph adds per stage a stream down (to stage + 1) and one up (to stage - 1).
    const int64_t from = local / 2;
    const int64_t to = local % 2 == 0 ? (from + 1) % p.stages : (from + p.stages - 1) % p.stages;
    const int64_t a = c.node_of_gpu(stage_first_gpu(p, from));
    const int64_t b = c.node_of_gpu(stage_first_gpu(p, to));
    t.duration_s = a == b ? times.nvlink_s : times.network_s;
    t.links = network.between(a, b);
  }
}

int64_t pipeline_send_copies(const Cluster& c, int64_t ranks) {
  if (c.switch_levels.empty()) return ranks;
  return std::clamp<int64_t>(c.devices_per_node * c.switch_levels.front().nodes, 1, ranks);
}

}  // namespace ts
