// Tensor-parallel communication as Megatron-LM runs it (issue 19): sequence parallelism's
// all-gathers and reduce-scatters each move (p-1)/p of the activations once, on the critical
// path forward; backward, the collectives Megatron-LM overlaps with the column-parallel GEMMs'
// input and weight gradients (TensorParallelOverlap.hpp). Every expected figure is worked by hand
// in the comments, from the links' rates and latencies.
#include <catch2/catch.hpp>
#include <string>

#include "SamplePath.hpp"
#include "training/GroupCollective.hpp"
#include "training/TensorParallelOverlap.hpp"
#include "training/TrainingSimulation.hpp"

using namespace ts;
using ts::test::sample;

namespace {

double seconds_of(const TrainingSimulation& r, const std::string& what) {
  for (const TimeShare& t : r.breakdown)
    if (t.what == what) return t.seconds;
  return -1.0;
}

ParallelStrategy strategy(const std::string& body) {
  return parse_parallel_strategy("version: 1\nkind: strategy\nname: s\n" + body, "s.yaml");
}

// The forward time of one operator of a layer, by the same operator-time source.
double operator_s(const LayerTime& layer, const std::string& name) {
  for (const OperatorTime& op : layer.operators)
    if (op.name == name) return op.seconds;
  return -1.0;
}

}  // namespace

TEST_CASE("a sequence-parallel all-gather or reduce-scatter is half an all-reduce's steps",
          "[dist][tp-overlap]") {
  // Selene: NVLink 230 GB/s. S = 4 x 2048 x 6144 x 2 = 100663296 B among 8 ranks, each
  // collective as NCCL picks it (NcclTuning.hpp), here ring/Simple: its steps at the link's
  // rate and its latency once. All-gather: 7 steps of S/8 = 12582912 B, 7 x 54.70831 =
  // 382.95819 us, and 8.4 + 7 x 3.4 = 32.2 us: 415.15819 us; the reduce-scatter the same; the
  // all-reduce both sets of steps, 765.91638 us, and 8.4 + 14 x 3.4 = 56 us: 821.91638 us.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const double S = 100663296;
  CHECK(group_collective_s(CollectiveKind::all_gather, selene, {8, 0, 1}, S, 1) * 1e6 ==
        Approx(415.15819).epsilon(1e-7));
  CHECK(group_collective_s(CollectiveKind::reduce_scatter, selene, {8, 0, 1}, S, 1) * 1e6 ==
        Approx(415.15819).epsilon(1e-7));
  CHECK(group_collective_s(CollectiveKind::all_reduce, selene, {8, 0, 1}, S, 1) * 1e6 ==
        Approx(821.91638).epsilon(1e-7));
}

TEST_CASE("a layer's tensor-parallel collectives: critical forward, overlapped backward",
          "[dist][tp-overlap]") {
  // One region, all-gather and reduce-scatter 300 us each, all-reduce 600 us, its column GEMM
  // 200 us, interference 0.1. A collective of C beside a GEMM of W ends after
  // max(C, W) + 0.1 min(C, W).
  const std::vector<TensorParallelRegion> short_gemm{{600e-6, 300e-6, 300e-6, 200e-6}};
  // Sequence parallelism. Forward: 300 + 300 = 600 us. Backward: the output gradient's
  // all-gather, 300; the input's all-gather beside the input-gradient GEMM, 300 + 20 - 200 = 120;
  // the reduce-scatter beside the weight-gradient GEMM, 120 again: 540 us, 400 us hidden.
  const LayerTensorParallelTime sp = layer_tensor_parallel_time(short_gemm, true, 0.1);
  CHECK(sp.forward_s * 1e6 == Approx(600));
  CHECK(sp.backward_s * 1e6 == Approx(540));
  CHECK(sp.backward_hidden_s * 1e6 == Approx(400));
  CHECK(sp.forward_kernels == 2);
  CHECK(sp.backward_kernels == 3);
  // Without: the all-reduce forward, 600 us; backward the input gradient's all-reduce beside the
  // weight-gradient GEMM, 600 + 20 - 200 = 420 us, 200 us hidden.
  const LayerTensorParallelTime plain = layer_tensor_parallel_time(short_gemm, false, 0.1);
  CHECK(plain.forward_s * 1e6 == Approx(600));
  CHECK(plain.backward_s * 1e6 == Approx(420));
  CHECK(plain.backward_hidden_s * 1e6 == Approx(200));
  // A GEMM of 1000 us hides each collective whole and pays only the interference: with
  // sequence parallelism 300 + 30 + 30 = 360 us; without, 60 us.
  const std::vector<TensorParallelRegion> long_gemm{{600e-6, 300e-6, 300e-6, 1000e-6}};
  CHECK(layer_tensor_parallel_time(long_gemm, true, 0.1).backward_s * 1e6 == Approx(360));
  CHECK(layer_tensor_parallel_time(long_gemm, false, 0.1).backward_s * 1e6 == Approx(60));
}

TEST_CASE("GPT-22B on Selene: the backward hides its tensor-parallel collectives behind GEMMs",
          "[dist][tp-overlap][simulate]") {
  // GPT-22B (48 layers, h 6144, s 2048), TP 8 on one Selene node, one micro-batch of 4: each
  // region's activations S = 4 x 2048 x 6144 x 2 B; all-gather or reduce-scatter 415.15819 us,
  // all-reduce 821.91638 us (above). The GEMMs at 0.8 of the A100 graph's peak: QKV (M 8192,
  // N 2304, K 6144) about 1.3 ms, MLP-up longer, so each backward collective is hidden whole and
  // adds its interference, 0.1 of itself.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const TransformerModel m = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const OperatorTimeSource roofline = parse_operator_time_source("roofline:0.8");
  const LayerTime layer = layer_forward_time(m, 4, 8, selene.device, false, roofline);
  REQUIRE(operator_s(layer, "qkv") > 821.91638e-6);
  REQUIRE(operator_s(layer, "mlp_up") > 821.91638e-6);
  const double ag = 415.15819e-6, ar = 821.91638e-6;

  // Seq+sel: forward 2 x (ag + rs) = 1660.63276 us a layer; backward per region ag + 0.1 ag +
  // 0.1 rs = 498.18983 us, 996.37966 us a layer. 48 layers: 127.53660 ms (the forward and
  // backward all-reduces of before: 157.80794 ms).
  const TrainingSimulation sel = simulate_training(m, strategy(R"(data_parallel: {degree: 1}
tensor_parallel: {degree: 8, sequence_parallel: true}
pipeline_parallel: {degree: 1}
batch: {global: 4, micro: 4}
recompute: selective
)"),
                                                   selene, roofline);
  CHECK(seconds_of(sel, "tensor-parallel communication") ==
        Approx(48 * (2 * 2 * ag + 2 * 1.2 * ag)).epsilon(1e-6));
  CHECK(seconds_of(sel, "tensor-parallel communication") * 1e3 == Approx(127.53660).epsilon(1e-6));

  // Full recomputation without sequence parallelism: forward 2 all-reduces, 1643.83277 us, run
  // again by the recomputation; backward 2 x 0.1 ar = 164.38328 us. 48 layers: 48 x 3452.04881
  // us = 165.69834 ms.
  const TrainingSimulation full = simulate_training(m, strategy(R"(data_parallel: {degree: 1}
tensor_parallel: {degree: 8, sequence_parallel: false}
pipeline_parallel: {degree: 1}
batch: {global: 4, micro: 4}
recompute: full
)"),
                                                    selene, roofline);
  CHECK(seconds_of(full, "tensor-parallel communication") ==
        Approx(48 * (2 * 2 * ar + 2 * 0.1 * ar)).epsilon(1e-6));
  CHECK(seconds_of(full, "tensor-parallel communication") * 1e3 == Approx(165.69834).epsilon(1e-6));
}
