#pragma once
// Pipeline-parallel schedules as orders of work per stage, and their task graphs: GPipe, 1F1B
// and Megatron-LM's interleaved 1F1B (Narayanan et al. 2021), where each device holds `chunks`
// model chunks and virtual stage c * p + s runs on device s.
#include <cstdint>
#include <vector>

#include "training/ParallelStrategy.hpp"
#include "training/TaskGraph.hpp"

namespace ts {

enum class PassKind { forward, backward };

struct PipelineStep {
  PassKind kind = PassKind::forward;
  int64_t micro_batch = 0;
  int64_t chunk = 0;
};

// The order in which each of `stages` devices runs its forward and backward steps for
// `micro_batches` micro-batches and `chunks` chunks per device. Interleaving needs the
// micro-batch count to be a multiple of the stage count, as in Megatron-LM.
std::vector<std::vector<PipelineStep>> pipeline_order(PipelineSchedule schedule, int64_t stages,
                                                      int64_t micro_batches, int64_t chunks);

// One iteration's pipeline as a task graph: a compute stream per stage running its steps in
// order, each forward of a chunk taking `forward_s` and each backward `backward_s`; a step waits
// for the same micro-batch's previous virtual stage (forward) or next one (backward). With
// `transfer_s` > 0 an activation or gradient crosses between devices as a task of that length on
// the link between them (one stream per direction). Each forward keeps `activation_bytes` on its
// device until the backward of the same micro-batch and chunk ends (Task::memory_bytes).
TaskGraph pipeline_task_graph(PipelineSchedule schedule, int64_t stages, int64_t micro_batches,
                              int64_t chunks, double forward_s, double backward_s,
                              double transfer_s = 0, double activation_bytes = 0);

}  // namespace ts
