// Networks as they are built (issue 19): collectives whose ranks span nodes run in two levels,
// NVLink inside a node and the node's NICs between nodes; the GPUs of a node share its NICs; and
// the host's per-kernel cost bounds a run of short kernels. Every expected figure is worked out
// by hand in the comments, from the links' rates and latencies.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "SamplePath.hpp"
#include "training/DataParallelOverlap.hpp"
#include "training/GroupCollective.hpp"
#include "training/ModelState.hpp"
#include "training/TrainingSimulation.hpp"

using namespace ts;
using ts::test::input_error_of;
using ts::test::sample;

namespace {

double network_seconds_of(const TrainingSimulation& r, const std::string& what) {
  for (const TimeShare& t : r.breakdown)
    if (t.what == what) return t.seconds;
  return -1.0;
}

// Two nodes of 8 GPUs: NVLink 200 GB/s and 2 us per hop, NICs of 25 GB/s and 5 us per hop.
Cluster two_nodes(int64_t nics_per_node) {
  Cluster c;
  c.nodes = 2;
  c.devices_per_node = 8;
  c.intra_node = {200e9, 2e-6, {}};
  c.nic = {25e9, 5e-6, {}};
  c.nics_per_node = nics_per_node;
  return c;
}

ParallelStrategy strategy(const std::string& body) {
  return parse_parallel_strategy("version: 1\nkind: strategy\nname: s\n" + body, "s.yaml");
}

}  // namespace

TEST_CASE("a tensor-parallel group of 16 on 8-GPU nodes: NVLink inside, the NICs between",
          "[dist][network]") {
  // All-reduce of S = 64 MiB among 16 ranks, 8 per node. NCCL's choice (NcclTuning.hpp): bus
  // bandwidth min(200, 8 NICs x 25) = 200 GB/s; ring/Simple 8.4 + 28 x 3.4 + 2 x 9.6 = 122.8 us
  // + S / (200 x 16/30 GB/s) = 629.1456 us: 751.9456 us, against ring/LL128 71.2 + 683.8539 =
  // 755.0539 and tree/LL128 38.9 + 778.0738 = 816.9738. Ring/Simple: the steps at the links'
  // full rates, no latency per step (the links' 2 us and 5 us are not charged), 122.8 us once.
  // The executor keeps its two levels:
  // - reduce-scatter in the node: 7 steps of S/8 = 8388608 B on NVLink:
  //   7 x 8388608 / 200e9 = 7 x 41.94304 us = 293.60128 us;
  // - all-reduce of the node's S/8 between the 2 nodes, one ring per local index, the 8 rings
  //   at once on the node's 8 NICs (25 GB/s each): 2 steps of S/16 = 4194304 B:
  //   2 x 4194304 / 25e9 = 2 x 167.77216 us = 335.54432 us;
  // - all-gather in the node: 293.60128 us again.
  // 922.74688 + 122.8 = 1045.54688 us in all. A flat ring timing every hop at a NIC's rate took
  // 30 steps of S/16: 30 x 167.77216 + 122.8 = 5155.9648 us, 4.9 times as long.
  const Cluster c = two_nodes(8);
  const double S = 64.0 * 1024 * 1024;
  CHECK(nccl_choice_name(nccl_collective(CollectiveKind::all_reduce, 16, 2, S, 200e9, 200e9)) ==
        "ring/Simple");
  CHECK(group_collective_s(CollectiveKind::all_reduce, c, {16, 0, 1}, S, 1) * 1e6 ==
        Approx(1045.54688).epsilon(1e-9));
  // Reduce-scatter: 15 ring steps, 1 between the nodes: ring/Simple 8.4 + 14 x 3.4 + 9.6 =
  // 65.6 us + S / (200 x 16/15 GB/s) = 314.5728: 380.1728 us (ring/LL128 40.6 + 341.9270 =
  // 382.5270). The node's 7 NVLink steps, then 1 step of S/16 between the nodes:
  // 293.60128 + 167.77216 + 65.6 = 526.97344 us; all-gather the same steps in the other order.
  CHECK(group_collective_s(CollectiveKind::reduce_scatter, c, {16, 0, 1}, S, 1) * 1e6 ==
        Approx(526.97344).epsilon(1e-9));
  CHECK(group_collective_s(CollectiveKind::all_gather, c, {16, 0, 1}, S, 1) * 1e6 ==
        Approx(526.97344).epsilon(1e-9));
  // Inside one node (8 ranks), a ring on NVLink: ring/Simple (56 us: 8.4 + 14 x 3.4; LL128
  // would take 36.6 + 638.2612 = 674.8612 us), 14 steps of S/8: 14 x 41.94304 + 56 =
  // 643.20256 us.
  CHECK(group_collective_s(CollectiveKind::all_reduce, c, {8, 0, 1}, S, 1) * 1e6 ==
        Approx(643.20256).epsilon(1e-9));
}

TEST_CASE("a simulated TP 16 run on Selene times its collectives in two levels",
          "[dist][network][simulate]") {
  // GPT-22B (48 layers, h 6144, s 2048) with TP 16 on two Selene nodes, 2 micro-batches of 1,
  // sequence parallelism. Each region (attention, MLP) of a layer moves its activations,
  // S = 2048 x 6144 x 2 = 25165824 B, by all-gathers and reduce-scatters of two levels. NCCL's
  // choice for 16 ranks on 2 nodes, bus min(230, 8 x 25) = 200 GB/s, 15 steps, 1 between nodes:
  // ring/LL128 10 + 14 x 1.9 + 4.0 = 40.6 us + S / (184 x 16/15 GB/s) = 128.2227: 168.8227 us,
  // against ring/Simple 65.6 + 117.9648 = 183.5648. LL128: the steps at 0.92 of the links:
  // - in the node, 7 NVLink steps of S/8 = 3145728 B at 0.92 x 230 = 211.6 GB/s:
  //   7 x 14.86639 us = 104.06473 us;
  // - between the nodes, 1 step of S/16 = 1572864 B at 0.92 x 25 = 23 GB/s (8 NICs for 8 GPUs):
  //   68.38539 us;
  // ag = rs = 172.45012 + 40.6 = 213.05012 us.
  // Forward, on the critical path: 2 regions x (ag + rs) = 852.20047 us a layer.
  // Backward (TensorParallelOverlap.hpp, interference 0.1): per region the output gradient's
  // all-gather, then the input's all-gather beside the column GEMM's input gradient and the
  // reduce-scatter beside its weight gradient, each max(c, w) + 0.1 min(c, w) - w. At 0.8 of the
  // A100 graph's 221.209 TFLOP/s, QKV (2048 x 1152 x 6144) takes w1 = 163.82141 us < ag:
  // ag + 2 (ag - 0.9 w1) = 344.27182 us; MLP-up (2048 x 1536 x 6144) w2 = 218.42855 us > ag:
  // ag + 0.2 ag = 255.66014 us. 599.93196 us a layer.
  // 48 layers x 2 micro-batches x (852.20047 + 599.93196) us = 139.40471 ms.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const ParallelStrategy s = strategy(R"(data_parallel: {degree: 1}
tensor_parallel: {degree: 16, sequence_parallel: true}
pipeline_parallel: {degree: 1}
batch: {global: 2, micro: 1}
recompute: selective
)");
  const TrainingSimulation r =
      simulate_training(m, s, selene, parse_operator_time_source("roofline:0.8"));
  CHECK(network_seconds_of(r, "tensor-parallel communication") * 1e3 ==
        Approx(139.40471).epsilon(1e-6));
}

TEST_CASE("8 GPUs sharing 4 NICs all-reduce their gradients at the shared rate",
          "[dist][network][simulate]") {
  // Data-parallel ranks 8 GPUs apart (TP 8), one per node, 2 nodes: a ring over the NICs. All 8
  // GPUs of a node run such a ring at once (one per tensor-parallel rank), so 4 NICs of 25 GB/s
  // give each 4 x 25 / 8 = 12.5 GB/s. All-reduce of 1 GB between 2 ranks, as NCCL picks it:
  // ring/Simple, 2 steps both between nodes, latency 8.4 + 2 x 9.6 = 27.6 us (ring/LL128 at
  // 0.7 of the link, one rank per node, takes 114 ms): 2 steps of 0.5 GB, 2 x 0.5e9 / 12.5e9 +
  // 27.6 us = 80.0276 ms. With 8 NICs, 25 GB/s each: 2 x 20 ms + 27.6 us.
  CHECK(group_collective_s(CollectiveKind::all_reduce, two_nodes(4), {2, 0, 8}, 1e9, 8) * 1e3 ==
        Approx(80.0276).epsilon(1e-9));
  CHECK(group_collective_s(CollectiveKind::all_reduce, two_nodes(8), {2, 0, 8}, 1e9, 8) * 1e3 ==
        Approx(40.0276).epsilon(1e-9));

  // In a simulation: GPT-22B, TP 8 x DP 2 on two Selene nodes given 4 NICs each. The gradients
  // of a GPU's shard, G = 2 bytes x its parameters, go round the 2-rank ring (ring/Simple):
  // 2 (2 - 1)/2 x G / (4 x 25e9 / 8) + 8.4 + 2 x 9.6 us.
  Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  selene.nics_per_node = 4;
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const ParallelStrategy s = strategy(R"(data_parallel: {degree: 2}
tensor_parallel: {degree: 8, sequence_parallel: true}
pipeline_parallel: {degree: 1}
batch: {global: 2, micro: 1}
recompute: selective
)");
  const double G = 2 * model_state_per_gpu(m, s).parameters;
  const TrainingSimulation r =
      simulate_training(m, s, selene, parse_operator_time_source("roofline:0.8"));
  CHECK(network_seconds_of(r, "data-parallel all-reduce") ==
        Approx(G / 12.5e9 + 27.6e-6).epsilon(1e-9));
}

TEST_CASE("many small kernels on one GPU run no faster than the host issues them",
          "[dist][network][launch]") {
  // One GPU, a graph model of 200 layers of 4 vector operators over 64 elements (device times
  // far below the host's cost per kernel). The host spends the A100 graph's launch_overhead (4 us)
  // plus the cluster's cost of an eager ATen call (20 us here) per kernel: 24 us. One micro-batch
  // runs 200 x 4 = 800 kernels forward and 2 x 800 = 1600 backward: 2400 x 24 us = 57.6 ms. The
  // model has no parameters, yet Megatron's optimizer step still computes the gradient norm (the
  // overflow buffer's copy, zeros, the l2norm's cleanup, the square: 4 kernels, no launch over
  // no tensors) and zeroes the empty gradient buffer (1): 5 more eager calls, 0.12 ms, each
  // while its tiny kernel runs; the collectives are over one rank (none). 57.72 ms.
  Cluster one = load_cluster(sample("/dist/clusters/selene.yaml"));
  one.nodes = 1;
  one.devices_per_node = 1;
  one.host.aten_op_s = 20e-6;
  one.device.launch_overhead_s = 4e-6;  // as the A100 graph says, held here for the figure
  const TransformerModel m = parse_transformer_model(R"(version: 1
kind: model
name: small-kernels
family: graph
layers: 200
seq_len: 1
hidden: 64
block:
  - {name: norm, type: layernorm, rows: tokens, cols: hidden}
  - {name: probabilities, type: softmax, rows: tokens, cols: hidden}
  - {name: scale, type: mul, rows: tokens, cols: hidden}
  - {name: residual, type: add, rows: tokens, cols: hidden}
)",
                                                     "small.yaml");
  const ParallelStrategy s = strategy(R"(data_parallel: {degree: 1}
tensor_parallel: {degree: 1}
pipeline_parallel: {degree: 1}
batch: {global: 1, micro: 1}
recompute: none
)");
  const TrainingSimulation r = simulate_training(m, s, one);
  CHECK(r.iteration_s * 1e3 == Approx(57.72).epsilon(1e-9));
  // The device's own work is what the host-bound time leaves over.
  CHECK(network_seconds_of(r, "host-bound idle") > 0.9 * r.iteration_s);
  // Without host cost, the same run takes only its device time, far less.
  one.host = HostDispatchCosts{0, 0, 0, 0, 0, 0, 0};
  one.device.launch_overhead_s = 0;
  CHECK(simulate_training(m, s, one).iteration_s < 0.1 * r.iteration_s);
}

TEST_CASE("the cluster's NIC count and framework overhead: defaults and errors",
          "[dist][network][cluster]") {
  const std::string head = "version: 1\nkind: cluster\nnodes: 2\ndevices_per_node: 8\ndevice: " +
                           sample("/arch/nvidia-a100.yaml") + "\nintra_node: {bandwidth: 1GB/s}\n";
  // Without `nics_per_node` each GPU has a NIC of its own (what files meant before NICs were
  // shared): a GPU's share is one NIC's rate.
  const Cluster plain = parse_cluster(head + "inter_node: {bandwidth: 1GB/s}\n", "c.yaml");
  CHECK(plain.nics_per_node == 8);
  CHECK(plain.nic_share_bytes_per_s() == Approx(1e9));
  CHECK(plain.framework_overhead_s == Approx(7e-6));
  const Cluster shared = parse_cluster(
      head + "inter_node: {bandwidth: 1GB/s, nics_per_node: 2}\nframework_overhead: 12us\n",
      "c.yaml");
  CHECK(shared.nic_share_bytes_per_s() == Approx(0.25e9));
  CHECK(shared.framework_overhead_s == Approx(12e-6));
  const InputError e = input_error_of([&] {
    parse_cluster(head + "inter_node: {bandwidth: 1GB/s}\nframework_overhead: fast\n", "c.yaml");
  });
  CHECK(e.where().line == 8);
  CHECK_THAT(e.message(), Catch::StartsWith("expected a duration such as `7us`"));
}

TEST_CASE("the gradient all-reduce overlapped with the last backward, in buckets",
          "[dist][network][overlap]") {
  // 200 M parameters in buckets of 40 M: k = 5. A backward step W = 300 ms:
  // - all-reduce A = 100 ms: buckets of 20 ms, each ready every 60 ms, so each runs as it comes;
  //   the last starts when the backward ends: max(60 + 100 - 300, 20) = 20 ms show.
  // - A = 500 ms: buckets of 100 ms back to back from 60 ms: they end at 560 ms, 260 ms after
  //   the backward: max(60 + 500 - 300, 100) = 260 ms.
  CHECK(exposed_gradient_all_reduce_s(0.1, 0.3, 200e6, 40e6) == Approx(0.020));
  CHECK(exposed_gradient_all_reduce_s(0.5, 0.3, 200e6, 40e6) == Approx(0.260));
  CHECK(megatron_bucket_parameters(8) == Approx(40e6));
  CHECK(megatron_bucket_parameters(64) == Approx(64e6));

  // In a simulation (GPT-22B, TP 8 x DP 2, no pipeline), the strategy key turns it on and the
  // all-reduce line shrinks by the formula over the same run's all-reduce and backward step.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const std::string body = R"(tensor_parallel: {degree: 8, sequence_parallel: true}
pipeline_parallel: {degree: 1}
batch: {global: 2, micro: 1}
recompute: selective
)";
  const ParallelStrategy after = strategy("data_parallel: {degree: 2}\n" + body);
  const ParallelStrategy overlapped =
      strategy("data_parallel: {degree: 2, overlap_grad_reduce: true}\n" + body);
  CHECK(overlapped.overlap_grad_reduce);
  const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
  const TrainingSimulation a = simulate_training(m, after, selene, roofline);
  const TrainingSimulation b = simulate_training(m, overlapped, selene, roofline);
  const double A = network_seconds_of(a, "data-parallel all-reduce");
  const double expected = exposed_gradient_all_reduce_s(
      A, b.stage_backward_s, model_state_per_gpu(m, overlapped).parameters, 40e6);
  CHECK(network_seconds_of(b, "data-parallel all-reduce") == Approx(expected).epsilon(1e-9));
  CHECK(b.iteration_s == Approx(a.iteration_s - (A - expected)).epsilon(1e-9));
  CHECK(expected < A);
  // A run of every replica hides the same part.
  SimulationOptions every;
  every.exploit_symmetry = false;
  CHECK(simulate_training(m, overlapped, selene, roofline, every).iteration_s ==
        Approx(b.iteration_s).epsilon(0.001));
}
