#pragma once
// One training iteration of a model under a strategy on a cluster, simulated. The engine times
// each pipeline stage's forward and backward work from the tile model (layer operators on the
// device graph: a transformer's, or a graph model's block), adds the tensor-parallel collectives
// of every layer (on NVLink, or in two levels when a group spans nodes: GroupCollective), holds
// each step to the host's issuing of its kernels (HostTimeline.hpp), runs the pipeline
// schedule on the task-graph executor with activations and gradients crossing between stages,
// then the data-parallel gradient all-reduce (overlapped with the last backward when the
// strategy says so: DataParallelOverlap.hpp), the framework's gradient syncs and the optimizer
// step (OptimizerStep.hpp); each step also carries Megatron-LM's per-micro-batch work
// (MicroBatchWork.hpp). Memory per GPU is the model
// state plus the activations the schedule keeps, traced over the iteration. Data-parallel
// replicas are identical, so one pipeline stands for all of them unless SimulationOptions says
// otherwise.
#include <string>
#include <vector>

#include "mapper/SearchConvergence.hpp"
#include "training/Cluster.hpp"
#include "training/HostTimeline.hpp"
#include "training/LayerTimes.hpp"
#include "training/MemoryTimeline.hpp"
#include "training/ParallelStrategy.hpp"
#include "training/PipelineOrder.hpp"
#include "training/TaskGraph.hpp"
#include "training/TransformerModel.hpp"

namespace ts {

struct TimeShare {
  std::string what;  // "compute", "tensor-parallel communication", "pipeline bubble", ...
  double seconds = 0;
};

// What one pipeline step (a chunk's forward or backward on one GPU) holds, for the timeline's
// spans inside it: its layers, each with its tensor-parallel collectives at its end.
struct StepContents {
  double alone_s = 0;  // the step's time alone (device or host-bound)
  double layers = 0;   // layers of a chunk
  double collectives_per_layer = 0;
  double collective_s_per_layer = 0;      // device time of a layer's tensor-parallel collectives
  double collective_bytes_per_layer = 0;  // what they move, nccl-tests' count summed
  double matmul_flops = 0;                // of the whole step
  // Device time of the schedules' own work in the step (MicroBatchWork.hpp: the batch, a share
  // of the embedding and the loss, the exchange between stages), collectives included.
  double framework_s = 0;
};

struct TrainingSimulation {
  double iteration_s = 0;
  double tokens_per_s = 0;
  double model_flops = 0;         // per iteration, without recomputation (MFU counts these)
  double hardware_flops = 0;      // per iteration, recomputation included (HFU)
  double mfu = 0, hfu = 0;        // of the device graph's datasheet matmul peak, per GPU
  double peak_flops_per_gpu = 0;  // that peak (fp16 matmul, 2 FLOPs per multiply-accumulate)
  double stage_forward_s = 0, stage_backward_s = 0;  // per micro-batch, one device, all chunks
  double bubble_fraction = 0;                        // pipeline idle over busy, on the executor
  double model_state_bytes = 0;                      // heaviest GPU: weights, grads, optimizer
  double activation_bytes = 0;                       // first pipeline stage, at its peak
  double device_memory_bytes = 0;                    // the device graph's largest memory
  // Per pipeline stage, one GPU's memory over the iteration as the schedule ran it (model
  // state, plus each chunk's activations from its forward to its backward), and the peak of all.
  std::vector<std::vector<MemorySample>> stage_memory;
  double peak_memory_bytes = 0;
  bool out_of_memory = false;        // the peak exceeds the device memory
  std::vector<TimeShare> breakdown;  // adds up to the iteration
  // The pipeline as it ran on the executor: one compute stream per stage, then the links; and
  // per stage the steps its compute stream ran, in order (PipelineOrder), for the timeline.
  TaskGraph pipeline;
  TaskTimes pipeline_times;
  std::vector<std::vector<PipelineStep>> schedule;
  // Per stage, when its host issued each step's kernels (in `schedule`'s order), and after the
  // pipeline its optimizer step's issuing (HostTimeline.hpp): the timeline's host track.
  std::vector<std::vector<HostIssue>> host_issue;
  StepContents forward_step, backward_step;
  // After the pipeline: the gradient all-reduce (its whole time alone, and the part hidden in
  // the last backward with overlap_grad_reduce), its bytes per GPU, and the optimizer step.
  double data_parallel_s = 0, data_parallel_hidden_s = 0, gradient_bytes = 0, optimizer_s = 0;
  // Between the all-reduce and the optimizer: the norms' and the tied embedding's gradient
  // all-reduces (MicroBatchWork.hpp); and the host's time issuing the optimizer step.
  double grad_sync_s = 0, optimizer_host_s = 0;
  int64_t simulated_tasks = 0;      // tasks on the executor, all replicas when not symmetric
  UnconvergedSearches unconverged;  // operators whose mapper search ran out of budget
};

struct SimulationOptions {
  // Data-parallel replicas run the same work on the same kind of links, so one pipeline stands
  // for all of them and the gradient all-reduce follows it. Off: every replica's pipeline is on
  // the executor, with each stage's all-reduce as ring steps on its own links, starting when
  // that stage's last backward ends in every replica. Both must give the same iteration time
  // (tests/unit/test_dist_simulation.cpp); off costs dp times the tasks.
  bool exploit_symmetry = true;
};

// Throws InputError when the strategy does not fit the model or the cluster.
TrainingSimulation simulate_training(const TransformerModel& model,
                                     const ParallelStrategy& strategy, const Cluster& cluster,
                                     const OperatorTimeSource& times = {},
                                     const SimulationOptions& options = {});

}  // namespace ts
