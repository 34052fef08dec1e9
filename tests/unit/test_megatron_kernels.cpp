// The host side of a training step: the kernels and host calls of one Megatron-LM GPT layer
// (MegatronKernels.hpp), their host time (HostDispatch.hpp), and the cluster's `host:` and the
// strategy's `fusions:` keys. Every count below is worked out from Megatron-LM v3.0's code, the
// functions MegatronKernels.cpp cites; every time from HostDispatch.cpp's default figures.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "InputErrorCapture.hpp"
#include "SamplePath.hpp"
#include "training/Cluster.hpp"
#include "training/MegatronKernels.hpp"
#include "training/ParallelStrategy.hpp"

using namespace ts;
using ts::test::input_error_of;
using ts::test::sample;

namespace {

// Calls of each kind, and kernels in all.
struct LayerTally {
  std::map<HostCallKind, double> calls;
  double kernels = 0;

  double of(HostCallKind k) const {
    const auto it = calls.find(k);
    return it == calls.end() ? 0 : it->second;
  }
};

LayerTally tally_calls(const std::vector<HostCall>& list) {
  LayerTally t;
  for (const HostCall& c : list) {
    t.calls[c.kind] += c.count;
    t.kernels += c.kernels();
  }
  return t;
}

const MegatronFusions kMegatronFused{};  // Megatron-LM v3.0's defaults: all five on
const MegatronFusions kMegatronUnfused{false, false, false, false, false};
constexpr double kA100Launch = 4e-6;  // the A100 graph's launch_overhead (arch/nvidia-a100.yaml)

}  // namespace

// Forward, tp 1, v3.0 defaults. Kernels, in the order ParallelTransformerLayer.forward runs:
//   input layer norm (FastLayerNormFN)                          1 fused_op
//   qkv GEMM + its bias add (qkv keeps its bias)                1 gemm + 1 aten_op
//   QK^T baddbmm, fused causal softmax, dropout, PV bmm         2 gemm + 1 fused_op + 1 aten_op
//   permute(...).contiguous()                                   1 aten_op
//   dense GEMM, bias_dropout_add_fused_train                    1 gemm + 1 fused_op
//   post-attention layer norm                                   1 fused_op
//   h->4h GEMM, bias_gelu, 4h->h GEMM, bias_dropout_add          2 gemm + 2 fused_op
// = 6 gemm + 6 fused_op + 3 aten_op = 15 kernels.
// Host-only calls: 12 nn.Module calls (layer, 2 layer norms, attention, core attention, softmax,
// dropout, MLP, 4 linears); fused_op without a kernel: 4 LinearWith...apply, 3
// MakeViewlessTensor.apply (2 layer norms, the layer output), 2 _CopyToModelParallelRegion and 2
// _ReduceFromModelParallelRegion (identities at tp 1) = 11; views: 4 of make_viewless for the
// layer norms, 4 weight.t(), view + split 2, core attention 7 (q, k view, buffer, 3 transposes,
// scores view), softmax 3 (2 views, torch.tensor([scale])), RNG fork 4, context 6, 2 expand_as,
// 2 of the output's make_viewless = 34.
TEST_CASE("one GPT layer forward at tp 1 with Megatron-LM's fusions: 15 kernels",
          "[host-dispatch]") {
  const LayerTally t =
      tally_calls(megatron_layer_calls(PassKind::forward, 1, false, kMegatronFused));
  CHECK(t.kernels == 15);
  CHECK(t.of(HostCallKind::gemm) == 6);
  CHECK(t.of(HostCallKind::aten_op) == 3);
  CHECK(t.of(HostCallKind::fused_op) == 6 + 11);
  CHECK(t.of(HostCallKind::collective) == 0);
  CHECK(t.of(HostCallKind::python_module) == 12);
  CHECK(t.of(HostCallKind::view) == 34);
  CHECK(t.of(HostCallKind::autograd_node) == 0);
  // Sequence parallelism needs tp > 1: at tp 1 it changes nothing.
  CHECK(tally_calls(megatron_layer_calls(PassKind::forward, 1, true, kMegatronFused)).kernels ==
        15);
}

// tp 8: the row-parallel linears' outputs are all-reduced (2 collectives); the column-parallel
// inputs go in as they are (async all-reduce in backward), so the 2 _CopyToModelParallelRegion
// calls go: fused_op 17 - 2 = 15. 15 + 2 = 17 kernels.
// With sequence parallelism: 2 all-gathers in the column linears and 2 reduce-scatters after the
// row linears = 4 collectives, 19 kernels; views 34 - 4 (no RNG fork around the attention
// dropout) + 2 (the all-gathers' buffers) + 4 (torch.empty and contiguous of each
// reduce-scatter) = 36.
TEST_CASE("one GPT layer forward at tp 8: 2 all-reduces, or 2 all-gathers and 2 reduce-scatters",
          "[host-dispatch]") {
  const LayerTally t =
      tally_calls(megatron_layer_calls(PassKind::forward, 8, false, kMegatronFused));
  CHECK(t.kernels == 17);
  CHECK(t.of(HostCallKind::collective) == 2);
  CHECK(t.of(HostCallKind::fused_op) == 15);
  CHECK(t.of(HostCallKind::view) == 34);
  const LayerTally sp =
      tally_calls(megatron_layer_calls(PassKind::forward, 8, true, kMegatronFused));
  CHECK(sp.kernels == 19);
  CHECK(sp.of(HostCallKind::collective) == 4);
  CHECK(sp.of(HostCallKind::view) == 36);
  CHECK(sp.of(HostCallKind::fused_op) == 15);
}

// Unfused, tp 1: layer norms are torch's native_layer_norm (2 aten_op); the softmax is float,
// x scale, masked_fill_, softmax, half (5 aten_op, and an nn.Softmax module call); bias-GeLU is
// add + gelu (2); each bias-dropout-add is add, dropout, add (6 for two). Kernels: 6 gemm +
// aten_op 2 + 1 (qkv bias) + 5 + 1 (dropout) + 1 (contiguous) + 2 + 6 = 18 -> 24.
// Host-only: 13 module calls; fused_op 4 + 2 + 2 = 8 (no make_viewless); views 34 - 4 - 3 - 2 = 25.
TEST_CASE("one GPT layer forward at tp 1 without fusions: 24 kernels", "[host-dispatch]") {
  const LayerTally t =
      tally_calls(megatron_layer_calls(PassKind::forward, 1, false, kMegatronUnfused));
  CHECK(t.kernels == 24);
  CHECK(t.of(HostCallKind::aten_op) == 18);
  CHECK(t.of(HostCallKind::gemm) == 6);
  CHECK(t.of(HostCallKind::fused_op) == 8);
  CHECK(t.of(HostCallKind::python_module) == 13);
  CHECK(t.of(HostCallKind::view) == 25);
}

// Backward, tp 1, v3.0 defaults (gradient accumulation fused into the wgrad GEMM).
// Kernels:
//   2 residual gradient adds (hidden_states and layernorm_input are each read twice)  2 aten_op
//   2 bias_dropout_add backward (TorchScript)                                          2 fused_op
//   2 ExpandBackward sums (dense and 4h->h biases)                                     2 aten_op
//   4 linears x (dgrad + wgrad) GEMMs                                                  8 gemm
//   qkv bias gradient grad_output.sum(0)                                               1 aten_op
//   bias_gelu_back, h->4h bias gradient sum_to                                 1 fused_op + 1 aten
//   PV bmm backward (2 bmm), dropout backward                                  2 gemm + 1 aten_op
//   fused softmax backward                                                             1 fused_op
//   QK^T baddbmm backward: 2 bmm and 2 x alpha                                 2 gemm + 2 aten_op
//   cat of the q, k, v gradients (SplitBackward)                                       1 aten_op
//   2 layer norm backwards, apex ln_bwd: 2 kernels each                  2 fused_op calls, 4
//   kernels main_grad.add_ for the 8 parameters that are not linear weights                    8
//   aten_op
// = 12 gemm + 18 aten_op + 8 fused_op kernels (6 calls) = 38 kernels.
// Autograd nodes: 2 DifferentiableGraph + 1 MakeViewlessTensor + 2 Expand (5), 2
// _ReduceFromModelParallelRegion, 4 linears, 2 _CopyToModelParallelRegion, 1 GeLUFunction, the
// attention's 14 view nodes + Bmm + NativeDropout + softmax and its 2 views + Baddbmm + Split
// (21), 2 layer norms and 2 MakeViewlessTensor (4), 8 AccumulateGrad = 47.
// Views: 8 (grad_output and total_input to 2-D in 4 linears) + 8 param.grad = None = 16.
TEST_CASE("one GPT layer backward at tp 1 with Megatron-LM's fusions: 38 kernels",
          "[host-dispatch]") {
  const LayerTally t =
      tally_calls(megatron_layer_calls(PassKind::backward, 1, false, kMegatronFused));
  CHECK(t.kernels == 38);
  CHECK(t.of(HostCallKind::gemm) == 12);
  CHECK(t.of(HostCallKind::aten_op) == 18);
  CHECK(t.of(HostCallKind::fused_op) == 6);
  CHECK(t.of(HostCallKind::autograd_node) == 47);
  CHECK(t.of(HostCallKind::view) == 16);
  CHECK(t.of(HostCallKind::collective) == 0);
  CHECK(t.of(HostCallKind::python_module) == 0);
}

// tp 8: the column linears' input gradients are all-reduced asynchronously (2 collectives),
// no _CopyToModelParallelRegion nodes (47 - 2 = 45): 40 kernels. Sequence parallelism: each
// column linear all-gathers its input again and reduce-scatters its input gradient (4), each
// _ReduceScatterToSequenceParallelRegion backward all-gathers the gradient (2): 6 collectives,
// 44 kernels; views 16 + 2 x 2 (buffer, empty) + 2 (empty) = 22.
TEST_CASE("one GPT layer backward at tp 8: 2 all-reduces, or 4 all-gathers and 2 reduce-scatters",
          "[host-dispatch]") {
  const LayerTally t =
      tally_calls(megatron_layer_calls(PassKind::backward, 8, false, kMegatronFused));
  CHECK(t.kernels == 40);
  CHECK(t.of(HostCallKind::collective) == 2);
  CHECK(t.of(HostCallKind::autograd_node) == 45);
  const LayerTally sp =
      tally_calls(megatron_layer_calls(PassKind::backward, 8, true, kMegatronFused));
  CHECK(sp.kernels == 44);
  CHECK(sp.of(HostCallKind::collective) == 6);
  CHECK(sp.of(HostCallKind::autograd_node) == 45);
  CHECK(sp.of(HostCallKind::view) == 22);
}

// Unfused backward, tp 1: bias-dropout-add's AddBackward, NativeDropoutBackward, AddBackward
// twice (6 nodes, 2 dropout kernels); GeluBackward and AddBackward (2 nodes, gelu_backward); the
// softmax's 5 nodes and 5 kernels; torch's layer norm backward (1 node and 2 kernels each); the 4
// linear weights' gradients through AccumulateGrad and main_grad.add_ too (12 parameters), and
// grad_output.t() for each plain wgrad GEMM.
// aten_op calls: 2 residual + 2 dropout + 2 bias sums + 1 qkv bias + 1 gelu_backward + 1 h->4h
// bias + 1 dropout + 5 softmax + 2 x alpha + 1 cat + 2 layer norm + 12 main_grad = 32, launching
// 34 kernels (the layer norms 2 each); + 12 gemm = 46 kernels.
// Nodes: 8 + 2 + 4 + 2 + 2 + (14 + 1 + 1 + 5 + 1 + 1) + 2 + 12 = 55. Views: 8 + 4 + 12 = 24.
TEST_CASE("one GPT layer backward at tp 1 without fusions: 46 kernels", "[host-dispatch]") {
  const LayerTally t =
      tally_calls(megatron_layer_calls(PassKind::backward, 1, false, kMegatronUnfused));
  CHECK(t.kernels == 46);
  CHECK(t.of(HostCallKind::aten_op) == 32);
  CHECK(t.of(HostCallKind::gemm) == 12);
  CHECK(t.of(HostCallKind::fused_op) == 0);
  CHECK(t.of(HostCallKind::autograd_node) == 55);
  CHECK(t.of(HostCallKind::view) == 24);
}

// Host time at the default costs (HostDispatch.cpp: aten_op 7, gemm 19.6, fused_op 7,
// collective 7, autograd_node 3, view 2, python_module 3 us) and the A100's 4 us launch:
// forward tp 1: modules 12 x 3 = 36; views 34 x 2 = 68; fused_op without a kernel 11 x 7 = 77,
//   with one 6 x (7 + 4) = 66; aten_op 3 x 11 = 33; gemm 6 x 23.6 = 141.6; total 421.6 us.
// forward tp 8: fused_op without a kernel 9 x 7 = 63 (-14); 2 all-reduces x 11 = 22: 429.6 us.
// forward tp 8, sequence parallel: views 36 x 2 = 72 (+4), 4 collectives 44: 455.6 us.
// backward tp 1: nodes 47 x 3 = 141; aten_op 18 x 11 = 198; fused_op 6 x 7 + 8 kernels x 4 = 74;
//   gemm 12 x 23.6 = 283.2; views 16 x 2 = 32; total 728.2 us.
// backward tp 8: nodes 45 x 3 = 135 (-6); 2 collectives 22: 744.2 us.
// backward tp 8, sequence parallel: 135 + 198 + 74 + 283.2 + views 22 x 2 = 44 + 6 x 11 = 66:
//   800.2 us.
// Unfused, tp 1: forward 13 x 3 + 25 x 2 + 8 x 7 + 18 x 11 + 141.6 = 39 + 50 + 56 + 198 + 141.6
//   = 484.6 us; backward 55 x 3 + (32 x 7 + 34 x 4) + 283.2 + 24 x 2 = 165 + 360 + 283.2 + 48
//   = 856.2 us.
TEST_CASE("a GPT layer's host time at the default costs, worked out by hand", "[host-dispatch]") {
  const HostDispatchCosts costs;
  auto host_us = [&](PassKind pass, int64_t tp, bool sp, const MegatronFusions& f) {
    return host_work(megatron_layer_calls(pass, tp, sp, f), costs, kA100Launch).host_s * 1e6;
  };
  CHECK(host_us(PassKind::forward, 1, false, kMegatronFused) == Approx(421.6));
  CHECK(host_us(PassKind::forward, 8, false, kMegatronFused) == Approx(429.6));
  CHECK(host_us(PassKind::forward, 8, true, kMegatronFused) == Approx(455.6));
  CHECK(host_us(PassKind::backward, 1, false, kMegatronFused) == Approx(728.2));
  CHECK(host_us(PassKind::backward, 8, false, kMegatronFused) == Approx(744.2));
  CHECK(host_us(PassKind::backward, 8, true, kMegatronFused) == Approx(800.2));
  CHECK(host_us(PassKind::forward, 1, false, kMegatronUnfused) == Approx(484.6));
  CHECK(host_us(PassKind::backward, 1, false, kMegatronUnfused) == Approx(856.2));
  CHECK(host_work(megatron_layer_calls(PassKind::backward, 8, true, kMegatronFused), costs,
                  kA100Launch)
            .kernels == 44);
}

// host_work on a list written by hand: 3 views (2 us, no launch) and 2 GEMM calls of one kernel
// each at 10 us a call with a 5 us launch: 3 x 2 + 2 x (10 + 5) = 36 us, 2 kernels; a call
// launching 2 kernels per call twice at 1 us: 2 x 1 + 4 x 5 = 22 us, 4 kernels.
TEST_CASE("host_work charges each call its kind's cost and each kernel the launch",
          "[host-dispatch]") {
  HostDispatchCosts costs;
  costs.view_s = 2e-6;
  costs.gemm_s = 10e-6;
  costs.fused_op_s = 1e-6;
  const HostWork w = host_work({{"v", HostCallKind::view, 3, false, 1},
                                {"g", HostCallKind::gemm, 2, true, 1},
                                {"two kernels", HostCallKind::fused_op, 2, true, 2}},
                               costs, 5e-6);
  CHECK(w.kernels == 2 + 4);
  CHECK(w.host_s * 1e6 == Approx(36 + 22));
}

namespace {

std::string host_cluster_text(const std::string& extra) {
  return "version: 1\nkind: cluster\nnodes: 1\ndevices_per_node: 8\ndevice: " +
         sample("/arch/nvidia-a100.yaml") +
         "\nintra_node: {bandwidth: 300GB/s}\ninter_node: {bandwidth: 25GB/s}\n" + extra;
}

}  // namespace

TEST_CASE("the cluster's host: section sets the host time per kind of call", "[host-dispatch]") {
  SECTION("without it, the defaults") {
    const Cluster c = parse_cluster(host_cluster_text(""), "c.yaml");
    CHECK(c.host.aten_op_s == Approx(7e-6));
    CHECK(c.host.gemm_s == Approx(19.6e-6));
    CHECK(c.host.view_s == Approx(2e-6));
    CHECK(c.framework_overhead_s == Approx(7e-6));
  }
  SECTION("its figures, the others at their defaults") {
    const Cluster c = parse_cluster(
        host_cluster_text("host: {aten_op: 9us, gemm: 12us, collective: 25us, autograd_node: 8us, "
                          "view: 0.5us, python_module: 4us, fused_op: 10us}\n"),
        "c.yaml");
    CHECK(c.host.aten_op_s == Approx(9e-6));
    CHECK(c.host.gemm_s == Approx(12e-6));
    CHECK(c.host.fused_op_s == Approx(10e-6));
    CHECK(c.host.collective_s == Approx(25e-6));
    CHECK(c.host.autograd_node_s == Approx(8e-6));
    CHECK(c.host.view_s == Approx(0.5e-6));
    CHECK(c.host.python_module_s == Approx(4e-6));
  }
  SECTION("framework_overhead stands for the kinds that launch kernels that host: leaves out") {
    // framework_overhead 10us: aten_op, fused_op, collective 10 us; gemm 12 us from host:;
    // autograd_node, view, python_module keep 3, 2, 3 us.
    const Cluster c = parse_cluster(
        host_cluster_text("framework_overhead: 10us\nhost: {gemm: 12us}\n"), "c.yaml");
    CHECK(c.framework_overhead_s == Approx(10e-6));
    CHECK(c.host.aten_op_s == Approx(10e-6));
    CHECK(c.host.fused_op_s == Approx(10e-6));
    CHECK(c.host.collective_s == Approx(10e-6));
    CHECK(c.host.gemm_s == Approx(12e-6));
    CHECK(c.host.autograd_node_s == Approx(3e-6));
    CHECK(c.host.view_s == Approx(2e-6));
    CHECK(c.host.python_module_s == Approx(3e-6));
  }
  SECTION("framework_overhead alone, as files before host: were written") {
    const Cluster c = parse_cluster(host_cluster_text("framework_overhead: 0us\n"), "c.yaml");
    CHECK(c.framework_overhead_s == 0);
    CHECK(c.host.gemm_s == 0);
    CHECK(c.host.aten_op_s == 0);
    CHECK(c.host.view_s == Approx(2e-6));
  }
  SECTION("a malformed duration, at its file and line") {
    const InputError e = input_error_of([&] {
      parse_cluster(host_cluster_text("host:\n  aten_op: 9us\n  gemm: fast\n"), "c.yaml");
    });
    CHECK(e.where().file == "c.yaml");
    CHECK(e.where().line == 10);
    CHECK(e.message() ==
          "expected a duration of at least 0 such as `9us` for `host.gemm` (host "
          "time per call), got 'fast'");
  }
  SECTION("a negative duration") {
    const InputError e =
        input_error_of([&] { parse_cluster(host_cluster_text("host: {view: -1us}\n"), "c.yaml"); });
    CHECK(e.where().line == 8);
    CHECK_THAT(e.message(), Catch::Contains("`host.view`"));
  }
  SECTION("an unknown kind") {
    const InputError e = input_error_of([&] {
      parse_cluster(host_cluster_text("host:\n  gemm: 12us\n  kernel: 4us\n"), "c.yaml");
    });
    CHECK(e.where().file == "c.yaml");
    CHECK(e.where().line == 10);
    CHECK_THAT(e.message(), Catch::Contains("kernel"));
  }
  SECTION("host: that is not a map") {
    const InputError e =
        input_error_of([&] { parse_cluster(host_cluster_text("host: 9us\n"), "c.yaml"); });
    CHECK(e.where().line == 8);
  }
}

namespace {

const std::string kFusionsStrategy =
    "version: 1\nkind: strategy\ntensor_parallel: {degree: 8}\nbatch: {global: 8, micro: 1}\n";

}  // namespace

TEST_CASE("the strategy's fusions: section sets Megatron-LM's fusions", "[host-dispatch]") {
  SECTION("without it, Megatron-LM v3.0's defaults: all on") {
    const ParallelStrategy s = parse_parallel_strategy(kFusionsStrategy, "s.yaml");
    CHECK(s.fusions == MegatronFusions{true, true, true, true, true});
  }
  SECTION("each key given, the others at their defaults") {
    const ParallelStrategy s = parse_parallel_strategy(
        kFusionsStrategy + "fusions: {masked_softmax: false, gradient_accumulation: false}\n",
        "s.yaml");
    CHECK_FALSE(s.fusions.masked_softmax);
    CHECK(s.fusions.bias_gelu);
    CHECK(s.fusions.bias_dropout_add);
    CHECK_FALSE(s.fusions.gradient_accumulation);
    CHECK(s.fusions.fused_layernorm);
    const ParallelStrategy all = parse_parallel_strategy(
        kFusionsStrategy +
            "fusions:\n  masked_softmax: false\n  bias_gelu: false\n  bias_dropout_add: "
            "false\n  gradient_accumulation: false\n  fused_layernorm: false\n",
        "s.yaml");
    CHECK(all.fusions == kMegatronUnfused);
  }
  SECTION("a value that is not a boolean, at its file and line") {
    const InputError e = input_error_of([&] {
      parse_parallel_strategy(kFusionsStrategy + "fusions:\n  bias_gelu: yes please\n", "s.yaml");
    });
    CHECK(e.where().file == "s.yaml");
    CHECK(e.where().line == 6);
    CHECK(e.message() == "expected true or false for `bias_gelu`, got 'yes please'");
  }
  SECTION("an unknown fusion") {
    const InputError e = input_error_of([&] {
      parse_parallel_strategy(
          kFusionsStrategy + "fusions:\n  bias_gelu: true\n  flash_attention: true\n", "s.yaml");
    });
    CHECK(e.where().line == 7);
    CHECK_THAT(e.message(), Catch::Contains("flash_attention"));
  }
}
