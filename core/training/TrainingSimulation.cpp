#include "training/TrainingSimulation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "mapper/OperatorPrediction.hpp"
#include "training/ActivationMemory.hpp"
#include "training/Collectives.hpp"
#include "training/DataParallelOverlap.hpp"
#include "training/FrameworkTiming.hpp"
#include "training/GroupCollective.hpp"
#include "training/HostTimeline.hpp"
#include "training/LayerOperators.hpp"
#include "training/LayerTimes.hpp"
#include "training/MegatronKernels.hpp"
#include "training/MemoryTimeline.hpp"
#include "training/MicroBatchWork.hpp"
#include "training/ModelState.hpp"
#include "training/NcclTuning.hpp"
#include "training/NetworkRoutes.hpp"
#include "training/OptimizerStep.hpp"
#include "training/PipelineOrder.hpp"
#include "training/PipelineSends.hpp"
#include "training/TensorParallelOverlap.hpp"

namespace ts {

namespace {

// A share of the iteration found as what is left of a total after its other parts: never below
// zero, and zero where only rounding is left (1e-16 s printed as "-0.000 s" misleads).
double time_left_over(double total, double parts) {
  const double left = total - parts;
  return left > 1e-12 * std::max(std::abs(total), std::abs(parts)) ? left : 0.0;
}

// Gradients a GPU all-reduces with its data-parallel peers: the dense part with every replica,
// the experts' part with the replicas that hold the same experts (every ep-th).
struct GradientBytes {
  double dense = 0, experts = 0;
  int64_t ep = 1;
};

// The gradient all-reduce of one pipeline stage among its dp replicas, each rank starting after
// `after[r]`. Replicas sit tp GPUs apart (Megatron's tp-dp-pp order), so a node holds
// devices_per_node / tp of a group: all of it (a ring on NVLink), one (a ring over the NICs), or
// some (NCCL's hierarchical all-reduce): add_group_collective. Then the experts' gradients among
// each expert group (every ep-th replica), on the same links. Rank r sits on GPU first_gpu + r tp;
// rings across nodes cross the switch levels through `network`. Returns, per rank, when it is
// done.
std::vector<int> add_gradient_sync(TaskGraph& g, int64_t dp, const GradientBytes& gradients,
                                   const Cluster& c, int64_t tp, const std::vector<int>& after,
                                   int64_t first_gpu, NetworkRoutes& network) {
  const GroupLinks links = group_links(g, c, {dp, first_gpu, tp});
  std::vector<int> done =
      add_group_collective(g, CollectiveKind::all_reduce, links, gradients.dense, after, network);
  if (gradients.experts <= 0 || gradients.ep >= dp) return done;
  const bool in_node = links.per_node == dp;
  const std::vector<Link>& expert_links = in_node ? links.intra : links.nic;
  for (int64_t group = 0; group < gradients.ep; ++group) {
    std::vector<Link> members;
    std::vector<int> wait;
    for (int64_t r = group; r < dp; r += gradients.ep) {
      members.push_back(expert_links[static_cast<size_t>(r)]);
      wait.push_back(done[static_cast<size_t>(r)]);
    }
    const std::vector<int> end = add_collective(
        g, CollectiveKind::all_reduce, members, gradients.experts, wait,
        in_node ? nullptr : &network,
        nccl_timing(nccl_ring_choice(CollectiveKind::all_reduce, members, gradients.experts)));
    for (size_t k = 0; k < end.size(); ++k)
      done[static_cast<size_t>(group + static_cast<int64_t>(k) * gradients.ep)] = end[k];
  }
  return done;
}

// Every data-parallel replica's pipeline on one executor, and per stage the gradient
// all-reduce among the replicas (add_gradient_sync), each rank starting when its replica's last
// task on that stage ends. Returns the executor's run (makespan: the end of the last
// all-reduce) and sets `tasks`.
TaskTimes run_all_replicas(const TaskGraph& pipeline, int64_t stages, int64_t replicas,
                           const GradientBytes& gradients, const Cluster& cluster, int64_t tp,
                           const PipelineSendTimes& send_times, double send_bytes_per_s,
                           int64_t& tasks) {
  TaskGraph all;
  all.interference = pipeline.interference;
  // Each replica's sends between its own stages' nodes; the other tp - 1 ranks of a stage send
  // theirs at once.
  NetworkRoutes sends(cluster, all, pipeline_send_copies(cluster, tp), send_bytes_per_s);
  std::vector<std::vector<int>> last(static_cast<size_t>(stages));  // per stage, per replica
  for (int64_t r = 0; r < replicas; ++r) {
    const int stream0 = all.streams;
    const size_t task0 = all.tasks.size();
    for (int st = 0; st < pipeline.streams; ++st) all.add_stream();
    // Add in each stream's order so that the copy keeps the order of the original.
    std::vector<int> id(pipeline.tasks.size(), -1);
    for (int st = 0; st < pipeline.streams; ++st)
      for (int t : pipeline.order[static_cast<size_t>(st)]) {
        Task copy = pipeline.tasks[static_cast<size_t>(t)];
        copy.stream += stream0;
        if (copy.device >= 0) copy.device += static_cast<int>(r * stages);  // this replica's GPUs
        copy.label = "r" + std::to_string(r) + " " + copy.label;
        id[static_cast<size_t>(t)] = all.add(std::move(copy));
      }
    for (size_t t = 0; t < pipeline.tasks.size(); ++t)
      for (int& d : all.tasks[static_cast<size_t>(id[t])].after) d = id[static_cast<size_t>(d)];
    place_pipeline_sends(all, stream0, task0, cluster, {stages, tp, replicas, r}, send_times,
                         sends);
    for (int64_t st = 0; st < stages; ++st)
      last[static_cast<size_t>(st)].push_back(
          id[static_cast<size_t>(pipeline.order[static_cast<size_t>(st)].back())]);
  }
  // Megatron's tp-dp-pp order: stage st's replicas start at GPU st x replicas x tp. The other
  // tp - 1 ranks of each replica run the same all-reduce at once on their own NICs.
  NetworkRoutes network(cluster, all, tp, cluster.nic_share_bytes_per_s());
  for (int64_t st = 0; st < stages; ++st)
    add_gradient_sync(all, replicas, gradients, cluster, tp, last[static_cast<size_t>(st)],
                      st * replicas * tp, network);
  tasks = static_cast<int64_t>(all.tasks.size());
  return run_task_graph(all);
}

}  // namespace

TrainingSimulation simulate_training(const TransformerModel& m, const ParallelStrategy& s,
                                     const Cluster& cluster, const OperatorTimeSource& times,
                                     const SimulationOptions& options) {
  check_strategy_fits(s, m, s.gpus());
  if (s.gpus() > cluster.gpus())
    throw InputError(s.dp.where, "the strategy needs " + std::to_string(s.gpus()) +
                                     " GPUs, but cluster '" + cluster.name + "' has " +
                                     std::to_string(cluster.gpus()));
  const ArchitectureGraph& device = cluster.device;
  const int64_t tp = s.tp.value, pp = s.pp.value, v = s.chunks.value, mb = s.micro_batch.value;
  const int64_t micro_batches = s.micro_batches();
  const double act_bytes = static_cast<double>(mb * m.seq_len * m.hidden) * 2;  // fp16/bf16

  // Expert parallelism: each MoE layer sends every routed token to its expert's rank and the
  // result back, two all-to-alls forward and two backward among the ep ranks (a tp-th of the
  // routed tokens per rank), inside a node when the tp x ep GPUs fit in one.
  double ep_per_layer_fwd = 0;
  if (m.experts > 1 && s.ep.value > 1) {
    const double routed_bytes = act_bytes * static_cast<double>(m.top_k) / static_cast<double>(tp);
    // the other tp - 1 ranks run their own all-to-all at once
    ep_per_layer_fwd = 2 * group_collective_s(CollectiveKind::all_to_all, cluster,
                                              {s.ep.value, 0, tp}, routed_bytes, tp);
  }

  // One layer's operators on one shard, from the tile model. With sequence parallelism the
  // vector operators outside the tensor-parallel regions (a transformer's outside the attention
  // core, a graph block's replicated ones) run on a tp-th of the tokens. `core_fwd` is what
  // selective recomputation runs again.
  const LayerTime layer = layer_forward_time(m, mb, tp, device, false, times);
  double layer_fwd = 0, core_fwd = 0;
  UnconvergedSearches unconverged;
  for (const OperatorTime& op : layer.operators) {
    unconverged.note(op.name, true, op.search_converged);
    const double t = (s.sequence_parallel && op.split_by_sequence_parallelism)
                         ? op.seconds / static_cast<double>(tp)
                         : op.seconds;
    layer_fwd += t;
    if (op.recomputed_selectively) core_fwd += t;
  }
  // Per layer, the tensor-parallel collectives as Megatron-LM's linear layers run them
  // (TensorParallelOverlap.hpp): per region (a transformer's attention and MLP, a graph block's
  // row-split operators) an all-reduce forward, or with sequence parallelism an all-gather and
  // a reduce-scatter, on the critical path; backward, the collectives that Megatron-LM overlaps
  // with the column-parallel GEMM's input and weight gradients, and with sequence parallelism
  // the all-gather of the output gradient on the critical path. A group larger than a node runs
  // in two levels, NVLink inside and the NICs between (GroupCollective).
  const std::vector<double> tp_bytes = tensor_parallel_all_reduce_bytes(m, mb, tp);
  const std::vector<double> column_s = column_parallel_gemm_s(m, layer);
  std::vector<TensorParallelRegion> regions;
  for (size_t i = 0; i < tp_bytes.size(); ++i) {
    auto time = [&](CollectiveKind kind) {
      return group_collective_s(kind, cluster, {tp, 0, 1}, tp_bytes[i], 1);
    };
    regions.push_back({time(CollectiveKind::all_reduce), time(CollectiveKind::all_gather),
                       time(CollectiveKind::reduce_scatter),
                       i < column_s.size() ? column_s[i] : 0.0});
  }
  const LayerTensorParallelTime tp_layer =
      layer_tensor_parallel_time(regions, s.sequence_parallel, cluster.interference);
  const double tp_per_layer_fwd = tp_layer.forward_s;
  const double layers_per_chunk = static_cast<double>(m.layers) / static_cast<double>(pp * v);
  const double chunk_fwd = layers_per_chunk * (layer_fwd + tp_per_layer_fwd + ep_per_layer_fwd);
  // What the backward recomputes: whole layers (full) or their attention core (selective), for
  // the share of a chunk's layers that do (the strategy's, or an override's for the first ones).
  const int64_t chunk_layers = m.layers / (pp * v);
  const double full_share = s.recompute_share(Recompute::full, chunk_layers);
  const double selective_share = s.recompute_share(Recompute::selective, chunk_layers);
  const double recompute = full_share * chunk_fwd + selective_share * layers_per_chunk * core_fwd;
  // Backward: gradients for inputs and for weights, each as long as the forward compute, plus
  // what the tensor-parallel collectives add (tp_layer) and the expert all-to-alls again.
  const double chunk_bwd =
      layers_per_chunk * (2 * layer_fwd + tp_layer.backward_s + ep_per_layer_fwd) + recompute;

  // The output layer and loss on the last stage: its own GEMM (split by vocabulary columns),
  // forward and twice that backward. Spread over the stage's chunks as an approximation.
  // A graph model has no output layer.
  double logits_fwd = 0;
  if (!m.is_graph()) {
    const OperatorTime logits =
        operator_time(logits_operator(m, mb, s.embedding_tensor_parallel()), device, times);
    logits_fwd = logits.seconds;
    unconverged.note(logits.name, true, logits.search_converged);
  }

  // Activations and gradients between stages: a tp-th of the activations per rank (Megatron's
  // scatter-gather), over NVLink when the two stages share a node, else over the NICs and the
  // switch levels between their nodes (PipelineSends.hpp). Each of a stage's tp ranks sends its
  // slice to its peer of the next stage over a NIC of its own while the node has enough; tp
  // ranks sharing fewer NICs share their rate.
  const double send_bytes = act_bytes / static_cast<double>(tp);
  const double nic_send_bytes_per_s =
      std::min(cluster.nic.bandwidth_bytes_per_s,
               cluster.nic.bandwidth_bytes_per_s * static_cast<double>(cluster.nics_per_node) /
                   static_cast<double>(std::min(tp, cluster.devices_per_node)));
  const PipelineSendTimes send_times{
      point_to_point_s(send_bytes, cluster.intra_node.bandwidth_bytes_per_s, 1,
                       cluster.intra_node.latency_s),
      point_to_point_s(send_bytes, nic_send_bytes_per_s, 1, cluster.nic.latency_s)};
  const double transfer = pp > 1 ? send_times.network_s : 0;
  // Device time of a step: a chunk's layers, and a share of the output layer's GEMM.
  const double fwd_device = chunk_fwd + logits_fwd / static_cast<double>(pp * v);
  const double bwd_device = chunk_bwd + 2 * logits_fwd / static_cast<double>(pp * v);
  // The host's issuing of a step (HostTimeline.hpp). A transformer layer as Megatron-LM calls
  // it (MegatronKernels.hpp: its ATen ops, GEMMs, fused ops, collectives, views and modules
  // forward; backward the autograd nodes and their kernels), at the cluster's cost per call
  // (HostDispatch.hpp); the recomputed forward again. A graph model: one eager op per operator
  // forward, two backward (gradients for inputs and for weights), and its collectives. The
  // output layer's one GEMM forward and two backward, shared out like its time.
  const double launch = device.launch_overhead_s;
  const double eager_call = cluster.host.aten_op_s + launch;
  const double collective_call = cluster.host.collective_s + launch;
  const double layer_kernels = static_cast<double>(layer.operators.size());
  double selective_kernels = 0;
  for (const OperatorTime& op : layer.operators)
    if (op.recomputed_selectively) selective_kernels += 1;
  HostWork layer_fwd_host, layer_bwd_host;
  if (!m.is_graph()) {
    layer_fwd_host =
        host_work(megatron_layer_calls(PassKind::forward, tp, s.sequence_parallel, s.fusions),
                  cluster.host, launch);
    layer_bwd_host =
        host_work(megatron_layer_calls(PassKind::backward, tp, s.sequence_parallel, s.fusions),
                  cluster.host, launch);
  } else {
    const double fwd_comm = tp > 1 ? tp_layer.forward_kernels : 0;
    const double bwd_comm = tp > 1 ? tp_layer.backward_kernels : 0;
    layer_fwd_host = {layer_kernels + fwd_comm,
                      layer_kernels * eager_call + fwd_comm * collective_call};
    layer_bwd_host = {2 * layer_kernels + bwd_comm,
                      2 * layer_kernels * eager_call + bwd_comm * collective_call};
  }
  // Selective recomputation runs the attention core's share of the layer's operators again.
  const double selective_host =
      layer_kernels > 0 ? layer_fwd_host.host_s * selective_kernels / layer_kernels : 0;
  const double ep_host = ep_per_layer_fwd > 0 ? 2 * collective_call : 0;
  const double logits_share = m.is_graph() ? 0 : 1 / static_cast<double>(pp * v);
  const double logits_call = cluster.host.gemm_s + launch;
  const double fwd_host =
      layers_per_chunk * (layer_fwd_host.host_s + ep_host) + logits_share * logits_call;
  const double bwd_host = layers_per_chunk * (layer_bwd_host.host_s + ep_host +
                                              full_share * (layer_fwd_host.host_s + ep_host) +
                                              selective_share * selective_host) +
                          2 * logits_share * logits_call;
  // What Megatron-LM's schedules add to each step besides the layers (MicroBatchWork.hpp):
  // get_batch on every stage's forward, the embedding on the first stage and the loss on the
  // last (shared out over the steps like the output layer), the timers' waits, and with stages
  // the exchange's call and its synchronisation. Its collectives hold the GPU's stream too.
  FrameworkOptions framework;
  framework.timers_synchronize = s.timers_synchronize;
  TimedWork fwd_extra, bwd_extra;
  auto add = [&](TimedWork& to, const FrameworkWork& w, double share) {
    const TimedWork t = time_framework_work(w, cluster, s);
    to.device_s += share * t.device_s;
    to.collective_s += share * t.collective_s;
    to.host_s += share * t.host_s;
    to.syncs_host = to.syncs_host || (share > 0 && t.syncs_host);
  };
  // A graph model is not a GPT: it has no tokens, embedding or loss of Megatron's; its steps
  // carry the schedules' own work only.
  const double end_share = 1 / static_cast<double>(pp * v);
  if (!m.is_graph()) add(fwd_extra, batch_step(m, s, device), 1);
  for (PassKind pass : {PassKind::forward, PassKind::backward}) {
    TimedWork& extra = pass == PassKind::forward ? fwd_extra : bwd_extra;
    if (!m.is_graph()) {
      add(extra, embedding_step(pass, m, s, device), end_share);
      add(extra, loss_step(pass, m, s, device, framework), end_share);
      add(extra, loss_reduction_step(pass, m, s, device), end_share);
    }
    add(extra, step_timers(pass, framework), 1);
    if (pp > 1) add(extra, pipeline_communicate_work(m, s, true), 1);
  }
  const StepWork fwd_work{fwd_device + fwd_extra.device_s + fwd_extra.collective_s,
                          fwd_host + fwd_extra.host_s};
  const StepWork bwd_work{bwd_device + bwd_extra.device_s + bwd_extra.collective_s,
                          bwd_host + bwd_extra.host_s};
  // With stages the host synchronises with its GPU at every exchange between them
  // (HostTimeline.hpp): each step lasts the longer of its device work and its issuing.
  const double fwd_step = synchronised_step_s(fwd_work);
  const double bwd_step = synchronised_step_s(bwd_work);
  // What one chunk's forward keeps until its backward, on one GPU.
  const double layer_bytes = mean_layer_saved_bytes(m, s);
  TaskGraph pipeline = pipeline_task_graph(s.schedule.value, pp, micro_batches, v, fwd_step,
                                           bwd_step, transfer, layers_per_chunk * layer_bytes);
  pipeline.interference = cluster.interference;
  // With one stage and no timers that synchronise, nothing makes the host wait until the
  // optimizer step: it issues step after step and the GPU follows, each step on the device
  // stream ending when the GPU finished it.
  // Each stage's steps in its stream's order (pipeline_task_graph adds them in this order).
  const std::vector<std::vector<PipelineStep>> steps =
      pipeline_order(s.schedule.value, pp, micro_batches, v);
  auto work_of = [&](const PipelineStep& step) {
    return step.kind == PassKind::forward ? fwd_work : bwd_work;
  };
  std::vector<HostIssue> one_stage_host;
  if (pp == 1 && !fwd_extra.syncs_host && !bwd_extra.syncs_host) {
    const std::vector<int>& order = pipeline.order.front();
    std::vector<StepWork> work;
    for (const PipelineStep& step : steps.front()) work.push_back(work_of(step));
    const HostTimeline host = run_ahead_steps(work);
    double before = 0;
    for (size_t k = 0; k < order.size(); ++k) {
      pipeline.tasks[static_cast<size_t>(order[k])].duration_s = host.device_end_s[k] - before;
      before = host.device_end_s[k];
    }
    one_stage_host = host.host;
  }
  if (pp > 1) {
    NetworkRoutes sends(cluster, pipeline, pipeline_send_copies(cluster, tp * s.dp.value),
                        nic_send_bytes_per_s);
    place_pipeline_sends(pipeline, 0, 0, cluster, {pp, tp, s.dp.value, 0}, send_times, sends);
  }
  const TaskTimes run = run_task_graph(pipeline);
  // One stage's device stream, busy from its first step to its last (with one stage the steps'
  // lengths differ: the host ran ahead of some).
  double busy = 0;
  for (int id : pipeline.order.front()) busy += pipeline.tasks[static_cast<size_t>(id)].duration_s;

  // Data parallelism: one all-reduce of the gradients (bf16) of a GPU's shard after the
  // pipeline drains (add_gradient_sync: in the node, over the NICs, or hierarchical).
  const ModelState state = model_state_per_gpu(m, s);
  const GradientBytes gradients{2 * (state.parameters - state.expert_parameters),
                                2 * state.expert_parameters, s.ep.value};
  double dp_time = 0;
  if (s.dp.value > 1) {
    TaskGraph sync;
    NetworkRoutes network(cluster, sync, tp, cluster.nic_share_bytes_per_s());
    add_gradient_sync(sync, s.dp.value, gradients, cluster, tp,
                      std::vector<int>(static_cast<size_t>(s.dp.value), -1), 0, network);
    dp_time = run_task_graph(sync).makespan_s;
  }
  // With Megatron-LM's --overlap-grad-reduce the buckets go during the stage's last backward
  // step (one chunk's), and only what outlasts it shows (DataParallelOverlap.hpp).
  double dp_hidden = 0;
  if (s.overlap_grad_reduce && dp_time > 0) {
    const double exposed = exposed_gradient_all_reduce_s(dp_time, bwd_step, state.parameters,
                                                         megatron_bucket_parameters(s.dp.value));
    dp_hidden = dp_time - exposed;
    dp_time = exposed;
  }
  // After the backward, before the optimizer (Megatron-LM's train_step): with sequence
  // parallelism the norms' gradients all-reduced over tp, with stages the tied word embedding's
  // gradients between the first and the last (MicroBatchWork.hpp).
  TimedWork grad_syncs;
  for (const FrameworkWork& w :
       {sequence_parallel_grad_sync(m, s, device), embedding_grad_sync(m, s)}) {
    const TimedWork t = time_framework_work(w, cluster, s);
    grad_syncs.device_s += t.elapsed_s();
    grad_syncs.host_s += t.host_s;
  }
  const double grad_sync_s = grad_syncs.device_s;
  // The optimizer step as Megatron-LM's mixed-precision optimizer runs it (OptimizerStep.hpp):
  // unscale and inf check, clipping's norm and scale, Adam, the copies back, zeroing the
  // gradients; piece after piece, each ending where the host waits for the device.
  // The iteration of a run in its steady state: the gradient norm below --clip-grad (1.0), so
  // clip_grad_norm_fp32 computes it but does not scale (clip_coeff >= 1).
  OptimizerOptions optimizer_options;
  optimizer_options.clip_scales = false;
  double optimizer = 0, optimizer_host = 0;
  for (const FrameworkWork& piece : optimizer_step_pieces(m, s, device, optimizer_options)) {
    const TimedWork t = time_framework_work(piece, cluster, s);
    optimizer += t.elapsed_s();
    optimizer_host += t.host_s;
  }

  TrainingSimulation r;
  r.unconverged = std::move(unconverged);
  r.stage_forward_s = fwd_step * static_cast<double>(v);
  r.stage_backward_s = bwd_step * static_cast<double>(v);
  r.simulated_tasks = static_cast<int64_t>(pipeline.tasks.size());
  r.iteration_s = run.makespan_s + dp_time + grad_sync_s + optimizer;
  if (!options.exploit_symmetry && s.dp.value > 1) {
    const TaskTimes all = run_all_replicas(pipeline, pp, s.dp.value, gradients, cluster, tp,
                                           send_times, nic_send_bytes_per_s, r.simulated_tasks);
    r.iteration_s = all.makespan_s - dp_hidden + grad_sync_s + optimizer;
  }
  // Idle over busy; where the stage never idles, what is left is rounding (a -0.0 % misleads).
  r.bubble_fraction = time_left_over(run.makespan_s, busy) / busy;
  const double tokens = static_cast<double>(s.global_batch.value * m.seq_len);
  r.tokens_per_s = tokens / r.iteration_s;
  r.model_flops = iteration_matmul_flops(m, s.global_batch.value, Recompute::none);
  // Hardware FLOPs grow linearly with the recomputed layers: weigh each kind by its share.
  r.hardware_flops = 0;
  for (Recompute kind : {Recompute::none, Recompute::selective, Recompute::full})
    r.hardware_flops += s.recompute_share(kind, chunk_layers) *
                        iteration_matmul_flops(m, s.global_batch.value, kind);
  // 16-bit training: the device's fp16 matmul peak as its datasheet gives it (not a fitted
  // efficiency's, which would count the efficiency twice), 2 FLOPs per multiply-accumulate.
  const double peak = 2 * datasheet_peak_ops_per_s(device, OpClass::matmul, DataType::fp16) *
                      static_cast<double>(s.gpus());
  r.peak_flops_per_gpu = peak / static_cast<double>(s.gpus());
  r.mfu = r.model_flops / (r.iteration_s * peak);
  r.hfu = r.hardware_flops / (r.iteration_s * peak);
  r.model_state_bytes = state.total_bytes();
  r.activation_bytes = activation_bytes_per_gpu(m, s);
  for (const ArchNode& n : device.nodes)
    if (n.kind == NodeKind::memory)
      r.device_memory_bytes = std::max(r.device_memory_bytes, n.capacity_bytes);
  // Memory over the iteration on each stage's GPU, as the schedule ran: the model state all
  // the time, and each chunk's activations from its forward to its backward.
  for (int64_t st = 0; st < pp; ++st) {
    r.stage_memory.push_back(
        memory_over_time(pipeline, run, static_cast<int>(st), r.model_state_bytes));
    r.peak_memory_bytes = std::max(r.peak_memory_bytes, peak_bytes(r.stage_memory.back()));
  }
  r.out_of_memory = r.peak_memory_bytes > r.device_memory_bytes;
  // The collectives of the forward pass, what they add to the backward pass, and those of the
  // recomputed forward.
  const double tp_passes = 2 + full_share;
  const double per_step_tp = layers_per_chunk *
                             ((1 + full_share) * tp_per_layer_fwd + tp_layer.backward_s) *
                             static_cast<double>(micro_batches * v);
  const double per_step_ep =
      layers_per_chunk * tp_passes * ep_per_layer_fwd * static_cast<double>(micro_batches * v);
  // What the device waits for the host to issue kernels, where a step's kernels are shorter.
  const double host_wait = time_left_over(
      busy, static_cast<double>(micro_batches * v) * (fwd_work.device_s + bwd_work.device_s));
  // The schedules' own work inside the steps (loss, embedding, batches, timers, exchanges).
  const double framework_in_steps =
      static_cast<double>(micro_batches * v) *
      (fwd_extra.device_s + fwd_extra.collective_s + bwd_extra.device_s + bwd_extra.collective_s);
  // The host's issuing over the iteration, per stage and step in the schedule's order: from the
  // run-ahead timeline with one stage, else from each step's start (it synchronised there).
  r.host_issue.resize(static_cast<size_t>(pp));
  if (!one_stage_host.empty())
    r.host_issue.front() = one_stage_host;
  else
    for (size_t st = 0; st < steps.size(); ++st) {
      const std::vector<int>& order = pipeline.order[st];
      for (size_t k = 0; k < order.size() && k < steps[st].size(); ++k) {
        const double start = run.start_s[static_cast<size_t>(order[k])];
        r.host_issue[st].push_back({start, start + work_of(steps[st][k]).host_s});
      }
    }
  r.schedule = steps;
  const double tp_bytes_per_layer =
      tp > 1 ? std::accumulate(tp_bytes.begin(), tp_bytes.end(), 0.0) : 0;
  const double collectives = tp > 1 ? static_cast<double>(tp_bytes.size()) : 0;
  const double logits_flops =
      m.is_graph() ? 0 : logits_operator(m, mb, s.embedding_tensor_parallel()).matmul_flops();
  r.forward_step = {
      fwd_step,
      layers_per_chunk,
      collectives,
      tp_per_layer_fwd,
      tp_bytes_per_layer,
      layers_per_chunk * layer.matmul_flops + logits_flops / static_cast<double>(pp * v),
      fwd_extra.device_s + fwd_extra.collective_s};
  // Backward: twice the forward's GEMMs, and the recomputed forward's (whole layers, or the
  // attention core).
  double selective_flops = 0;
  for (const OperatorTime& op : layer.operators)
    if (op.recomputed_selectively) selective_flops += op.matmul_flops;
  r.backward_step = {bwd_step,
                     layers_per_chunk,
                     collectives * (1 + full_share),
                     tp_layer.backward_s + tp_per_layer_fwd * full_share,
                     tp_bytes_per_layer * (1 + full_share),
                     layers_per_chunk * (layer.matmul_flops * (2 + full_share) +
                                         selective_share * selective_flops) +
                         2 * logits_flops / static_cast<double>(pp * v),
                     bwd_extra.device_s + bwd_extra.collective_s};
  r.data_parallel_s = dp_time + dp_hidden;
  r.data_parallel_hidden_s = dp_hidden;
  r.gradient_bytes = s.dp.value > 1 ? gradients.dense + gradients.experts : 0;
  r.optimizer_s = optimizer;
  r.optimizer_host_s = optimizer_host;
  r.grad_sync_s = grad_sync_s;
  r.pipeline = std::move(pipeline);
  r.pipeline_times = run;
  r.breakdown = {
      {"compute", time_left_over(busy, per_step_tp + per_step_ep + host_wait + framework_in_steps)},
      {"tensor-parallel communication", per_step_tp},
      {"expert-parallel communication", per_step_ep},
      {"host-bound idle", host_wait},
      {"pipeline bubble and transfers", time_left_over(run.makespan_s, busy)},
      // What the all-reduce adds after the pipeline: dp_time, or in a run of all replicas
      // whatever the last stage's ring adds after the last pipeline task ends.
      {"data-parallel all-reduce",
       time_left_over(r.iteration_s, run.makespan_s + grad_sync_s + optimizer)},
      {"loss, embedding and framework", framework_in_steps + grad_sync_s},
      {"optimizer step", optimizer},
  };
  return r;
}

}  // namespace ts
