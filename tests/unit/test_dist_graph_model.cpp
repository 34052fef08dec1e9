// Graph models (`family: graph`): a layer written as a block of operators instead of a
// transformer. The checks: errors where the file is wrong; GPT-22B's layer restated as a block
// gives the transformer path's operators, times, FLOPs, parameters and collectives; tensor
// parallelism splits the work as each operator's `split` says; selective and full recomputation
// change the time and the saved activations as docs/dist.md says.
#include <catch2/catch.hpp>
#include <string>

#include "InputErrorCapture.hpp"
#include "SamplePath.hpp"
#include "training/ActivationMemory.hpp"
#include "training/GroupCollective.hpp"
#include "training/LayerOperators.hpp"
#include "training/LayerTimes.hpp"
#include "training/ModelState.hpp"
#include "training/TrainingSimulation.hpp"

using namespace ts;
using ts::test::input_error_of;
using ts::test::sample;

namespace {

const std::string kHead =
    "version: 1\nkind: model\nname: g\nfamily: graph\nlayers: 4\nseq_len: 128\nhidden: 512\n";

// GPT-22B's layer (Korthikanti et al. 2022, Table 5: h 6144, 64 heads of 96, ffn 4h, s 2048)
// as LayerOperators.cpp builds it, written as a block: Megatron's split and fused kernels.
const std::string kGpt22bBlock = R"(version: 1
kind: model
name: gpt-22b-graph
family: graph
layers: 48
seq_len: 2048
hidden: 6144
block:
  - {name: ln_attn, type: layernorm, rows: tokens, cols: hidden}
  - {name: qkv, type: gemm, M: tokens, N: 3*hidden, K: hidden, split: column}
  - {name: attn_score, type: batched_gemm, B: samples*64, M: seq_len, N: seq_len, K: 96, split: batch, recompute: selective}
  - {name: attn_softmax, type: fused, steps: [scale, mask, softmax], rows: samples*64*seq_len, cols: seq_len, split: batch, recompute: selective}
  - {name: attn_dropout, type: mul, rows: samples*64*seq_len, cols: seq_len, split: batch, recompute: selective}
  - {name: attn_context, type: batched_gemm, B: samples*64, M: seq_len, N: 96, K: seq_len, split: batch, recompute: selective}
  - {name: attn_proj, type: gemm, M: tokens, N: hidden, K: hidden, split: row}
  - {name: attn_bias_dropout_add, type: fused, steps: [bias, mul, add], rows: tokens, cols: hidden}
  - {name: ln_mlp, type: layernorm, rows: tokens, cols: hidden}
  - {name: mlp_up, type: gemm, M: tokens, N: 24576, K: hidden, split: column}
  - {name: mlp_act, type: fused, steps: [bias, gelu], rows: tokens, cols: 24576, split: column}
  - {name: mlp_down, type: gemm, M: tokens, N: hidden, K: 24576, split: row}
  - {name: mlp_bias_dropout_add, type: fused, steps: [bias, mul, add], rows: tokens, cols: hidden}
# biases 4h (attention) + ffn + h (MLP), two layernorms 4h
parameters_per_layer: 79872
)";

// A small block with a selectively recomputed part (two operators) for the recomputation tests.
const std::string kTiny = kHead + R"(block:
  - {name: norm, type: layernorm, rows: tokens, cols: hidden}
  - {name: up, type: gemm, M: tokens, N: 2048, K: hidden, split: column}
  - {name: mix, type: batched_gemm, B: samples*8, M: seq_len, N: seq_len, K: 256, split: batch, recompute: selective}
  - {name: mix_norm, type: softmax, rows: samples*8*seq_len, cols: seq_len, split: batch, recompute: selective}
  - {name: down, type: gemm, M: tokens, N: hidden, K: 2048, split: row}
  - {name: residual, type: add, rows: tokens, cols: hidden}
)";

ParallelStrategy strategy(int64_t tp, const std::string& recompute, bool sequence_parallel,
                          int64_t micro = 4) {
  return parse_parallel_strategy(
      "version: 1\nkind: strategy\ntensor_parallel: {degree: " + std::to_string(tp) +
          ", sequence_parallel: " + (sequence_parallel ? "true" : "false") +
          "}\nbatch: {global: 8, micro: " + std::to_string(micro) + "}\nrecompute: " + recompute +
          "\n",
      "s.yaml");
}

double relative(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

}  // namespace

TEST_CASE("graph models are read with their sizes, splits and parameters", "[dist][graph]") {
  const TransformerModel m = load_transformer_model(sample("/dist/models/mlp-mixer-b16.yaml"));
  CHECK(m.is_graph());
  CHECK(m.name == "mlp-mixer-b16");
  CHECK(m.layers == 12);
  CHECK(m.block.operators.size() == 10);
  const BlockOperator& token_up = m.block.operators[1];
  CHECK(token_up.split == TensorSplit::column);
  CHECK(token_up.size("M", 32) == 32 * 768);                 // samples*hidden
  CHECK(token_up.size("K", 32) == 196);                      // seq_len
  CHECK(m.block.operators[0].size("rows", 32) == 32 * 196);  // tokens
  // Tolstikhin et al. 2021, Table 1: 59M parameters with the patch embedding (590,592); the 12
  // layers: token MLP 2 x 196 x 384, channel MLP 2 x 768 x 3072, and the 7,492 biases and norms.
  CHECK(m.parameters() == 12.0 * (2 * 196 * 384 + 2 * 768 * 3072 + 7492));
  CHECK((m.parameters() + 590592) / 1e6 == Approx(59).epsilon(0.01));
}

TEST_CASE("graph model errors point at the line and say what was expected", "[dist][graph]") {
  auto model_error = [](const std::string& text) {
    return input_error_of([&] { parse_transformer_model(text, "g.yaml"); });
  };
  SECTION("an unknown symbol") {
    const InputError e =
        model_error(kHead + "block:\n  - {name: up, type: gemm, M: token, N: 64, K: 64}\n");
    CHECK(e.where().file == "g.yaml");
    CHECK(e.where().line == 9);
    CHECK_THAT(e.message(), Catch::StartsWith("unknown symbol 'token' in `M` of operator 'up'"));
  }
  SECTION("an unknown symbol inside a product") {
    const InputError e =
        model_error(kHead + "block:\n  - {name: up, type: gemm, M: samples*heads, N: 64, K: 64}\n");
    CHECK(e.where().line == 9);
    CHECK_THAT(e.message(), Catch::StartsWith("unknown symbol 'heads'"));
  }
  SECTION("a split that is not one of the four") {
    const InputError e =
        model_error(kHead +
                    "block:\n  - {name: a, type: gelu, rows: tokens, cols: 64}\n"
                    "  - {name: up, type: gemm, M: tokens, N: 64, K: 64, split: columns}\n");
    CHECK(e.where().line == 10);
    CHECK(e.message() ==
          "unknown split 'columns'; expected column (N or cols / tp), row (K / tp, output "
          "all-reduced), batch (B or rows / tp) or none (replicated)");
  }
  SECTION("a split a vector operator does not have") {
    const InputError e = model_error(
        kHead + "block:\n  - {name: act, type: gelu, rows: tokens, cols: 64, split: row}\n");
    CHECK(e.where().line == 9);
    CHECK_THAT(e.message(), Catch::StartsWith("`split: row` divides a GEMM's K"));
  }
  SECTION("a block with no operators") {
    const InputError e = model_error(kHead + "block: []\n");
    CHECK(e.where().line == 8);
    CHECK_THAT(e.message(), Catch::StartsWith("`block` is empty"));
  }
  SECTION("no block") {
    const InputError e = model_error(kHead);
    CHECK_THAT(e.message(), Catch::Contains("block"));
  }
  SECTION("a weight that scales with the micro-batch") {
    const InputError e =
        model_error(kHead + "block:\n  - {name: up, type: gemm, M: 64, N: 64, K: tokens}\n");
    CHECK(e.where().line == 9);
    CHECK_THAT(e.message(), Catch::StartsWith("`K` of operator 'up' scales with the micro-batch"));
  }
  SECTION("a transformer's key in a graph model") {
    const InputError e = model_error(kHead +
                                     "heads: 8\nblock:\n  - {name: a, type: gelu, rows: "
                                     "tokens, cols: 64}\n");
    CHECK(e.where().line == 8);
  }
  SECTION("a duplicate operator") {
    const InputError e = model_error(kHead +
                                     "block:\n  - {name: a, type: gelu, rows: tokens, cols: 64}\n"
                                     "  - {name: a, type: relu, rows: tokens, cols: 64}\n");
    CHECK(e.where().line == 10);
    CHECK(e.message() == "duplicate operator name 'a' (first at line 9)");
  }
}

TEST_CASE("a tensor-parallel degree that does not divide a split dimension is named",
          "[dist][graph]") {
  const TransformerModel m = load_transformer_model(sample("/dist/models/mlp-mixer-b16.yaml"));
  // 384 is the first split size that 5 does not divide: token_up's N, column-split.
  const ParallelStrategy s = strategy(5, "none", false, 4);
  const InputError e = input_error_of([&] { check_strategy_fits(s, m, 5); });
  CHECK(e.where().file == "s.yaml");
  CHECK(e.where().line == 3);
  CHECK_THAT(e.message(),
             Catch::StartsWith("tensor_parallel.degree 5 does not divide N = 384 of operator "
                               "'token_up' (split: column, ") &&
                 Catch::Contains("mlp-mixer-b16.yaml:22:") &&
                 Catch::EndsWith(") of model 'mlp-mixer-b16'"));
  // A dimension that scales with the micro-batch is checked at the strategy's micro-batch.
  const TransformerModel tiny = parse_transformer_model(kTiny, "g.yaml");
  CHECK_NOTHROW(check_strategy_fits(strategy(2, "none", false, 1), tiny, 2));
  const InputError b =
      input_error_of([&] { check_strategy_fits(strategy(16, "none", false, 1), tiny, 16); });
  CHECK_THAT(b.message(), Catch::StartsWith("tensor_parallel.degree 16 does not divide B = 8 of "
                                            "operator 'mix' (split: batch"));
  // A graph has no embedding to override.
  ParallelStrategy o = strategy(2, "none", false);
  o.embedding_tp.value = 1;
  CHECK_THROWS_AS(check_strategy_fits(o, tiny, 2), InputError);
}

TEST_CASE("GPT-22B's layer as a graph block matches the transformer path", "[dist][graph][slow]") {
  const TransformerModel gpt = load_transformer_model(sample("/dist/models/gpt-22b.yaml"));
  const TransformerModel graph = parse_transformer_model(kGpt22bBlock, "gpt-22b-graph.yaml");
  const double h = static_cast<double>(gpt.hidden), V = static_cast<double>(gpt.vocab);
  const double s = static_cast<double>(gpt.seq_len);

  // The same operators, shape for shape, on a shard of 8.
  const std::vector<Operator> a = layer_forward_operators(gpt, 4, 8);
  const std::vector<Operator> b = layer_forward_operators(graph, 4, 8);
  REQUIRE(a.size() == b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    INFO(a[k].name);
    CHECK(a[k].name == b[k].name);
    CHECK(a[k].type == b[k].type);
    CHECK(a[k].shape_text() == b[k].shape_text());
    CHECK(recomputed_selectively(gpt, a[k].name) == recomputed_selectively(graph, b[k].name));
  }

  // Parameters: the transformer's, less the embedding (V h), positions (s h), final norm (2h).
  CHECK(relative(graph.parameters(), gpt.parameters() - V * h - s * h - 2 * h) < 1e-9);

  // FLOPs: the transformer's less the output layer's (forward and backward, never recomputed).
  const double logits_flops = logits_operator(gpt, 4, 1).matmul_flops();
  for (Recompute r : {Recompute::none, Recompute::selective, Recompute::full}) {
    INFO(to_string(r));
    CHECK(relative(iteration_matmul_flops(graph, 4, r),
                   iteration_matmul_flops(gpt, 4, r) - 3 * logits_flops) < 1e-9);
  }

  // The tensor-parallel all-reduces: two of the layer's activations.
  CHECK(tensor_parallel_all_reduce_bytes(graph, 4, 8) ==
        tensor_parallel_all_reduce_bytes(gpt, 4, 8));

  // Times from the tile model on Selene's A100, and the whole Table 5 "full" run (TP 8, no
  // sequence parallelism): the same forward and backward work per stage but for the output
  // layer, the same tensor-parallel communication and saved activations.
  const Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  const LayerTime ta = layer_forward_time(gpt, 4, 8, selene.device);
  const LayerTime tb = layer_forward_time(graph, 4, 8, selene.device);
  CHECK(relative(tb.forward_s, ta.forward_s) < 1e-9);
  CHECK(relative(tb.matmul_flops, ta.matmul_flops) < 1e-9);

  const ParallelStrategy full =
      load_parallel_strategy(sample("/dist/strategies/gpt-22b-full.yaml"));
  const TrainingSimulation ra = simulate_training(gpt, full, selene);
  const TrainingSimulation rb = simulate_training(graph, full, selene);
  const double logits_s = operator_time(logits_operator(gpt, 4, 8), selene.device, {}).seconds;
  // The GPT's steps also carry Megatron's own work (its batch, embedding and loss); the graph
  // model's none.
  CHECK(rb.forward_step.framework_s == 0);
  CHECK(ra.forward_step.framework_s > 0);
  CHECK(relative(rb.stage_forward_s, ra.stage_forward_s - logits_s - ra.forward_step.framework_s) <
        1e-9);
  CHECK(relative(rb.stage_backward_s,
                 ra.stage_backward_s - 2 * logits_s - ra.backward_step.framework_s) < 1e-9);
  CHECK(rb.breakdown[1].what == "tensor-parallel communication");
  CHECK(relative(rb.breakdown[1].seconds, ra.breakdown[1].seconds) < 1e-9);
  CHECK(relative(rb.activation_bytes, ra.activation_bytes) < 1e-9);
  // MFU counts the model FLOPs per iteration: the transformer's less the output layer.
  CHECK(relative(rb.model_flops, ra.model_flops - 3 * logits_flops) < 1e-9);
}

TEST_CASE("tensor parallelism splits a graph block as each operator's split says",
          "[dist][graph]") {
  const TransformerModel m = load_transformer_model(sample("/dist/models/mlp-mixer-b16.yaml"));
  auto flops = [&](int64_t tp) {
    double total = 0;
    for (const Operator& op : layer_forward_operators(m, 32, tp)) total += op.matmul_flops();
    return total;
  };
  // Every GEMM of the mixer is split (column or row): the matmul work divides by tp.
  CHECK(flops(1) == 2.0 * 32 * (2 * 768 * 196 * 384 + 2 * 196 * 768 * 3072));
  CHECK(flops(2) == flops(1) / 2);
  CHECK(flops(4) == flops(1) / 4);
  const std::vector<Operator> one = layer_forward_operators(m, 32, 1);
  const std::vector<Operator> four = layer_forward_operators(m, 32, 4);
  for (size_t k = 0; k < one.size(); ++k) {
    INFO(one[k].name);
    const BlockOperator& b = m.block.operators[k];
    const double whole = one[k].tensor_bytes(one[k].stages.back().output);
    const double part = four[k].tensor_bytes(four[k].stages.back().output);
    // Column and batch splits divide the output; a row split (K) and replicated ones keep it.
    const bool divided = b.split == TensorSplit::column || b.split == TensorSplit::batch;
    CHECK(part == (divided ? whole / 4 : whole));
  }
  // A rank holds a tp-th of every split weight and all of the extra parameters.
  const double weights = 2 * 196 * 384 + 2 * 768 * 3072;
  CHECK(m.block.parameters_per_rank(4) == weights / 4 + 7492);
  const ParallelStrategy s = strategy(4, "none", false);
  CHECK(model_state_per_gpu(m, s).parameters == 12 * (weights / 4 + 7492));
  CHECK(model_state_per_gpu(m, s).total_bytes() == 18 * 12 * (weights / 4 + 7492));
  // Per layer forward: an all-reduce of each row-split GEMM's output (micro-batch x 196 x 768
  // values of 2 bytes).
  CHECK(tensor_parallel_all_reduce_bytes(m, 32, 4) ==
        std::vector<double>{32.0 * 768 * 196 * 2, 32.0 * 196 * 768 * 2});
}

TEST_CASE("recomputation of a graph block changes its time and memory as marked",
          "[dist][graph][simulate][slow]") {
  const TransformerModel m = parse_transformer_model(kTiny, "g.yaml");
  // The tiny block's kernels are shorter than the host takes to issue them; these checks are of
  // device time, so the host's per-kernel cost is off (test_dist_network.cpp checks it).
  Cluster selene = load_cluster(sample("/dist/clusters/selene.yaml"));
  selene.host = HostDispatchCosts{0, 0, 0, 0, 0, 0, 0};
  selene.device.launch_overhead_s = 0;
  const LayerTime layer = layer_forward_time(m, 4, 2, selene.device);
  REQUIRE(layer.operators.size() == 6);
  double marked_s = 0;
  for (const OperatorTime& t : layer.operators)
    if (t.recomputed_selectively) marked_s += t.seconds;
  CHECK(marked_s == layer.operators[2].seconds + layer.operators[3].seconds);

  const TrainingSimulation none = simulate_training(m, strategy(2, "none", false), selene);
  const TrainingSimulation sel = simulate_training(m, strategy(2, "selective", false), selene);
  const TrainingSimulation full = simulate_training(m, strategy(2, "full", false), selene);
  // Full recomputation runs every layer's forward (and its collectives) again; selective the
  // marked operators of every layer.
  CHECK(full.stage_forward_s == none.stage_forward_s);
  CHECK(relative(full.stage_backward_s - none.stage_backward_s, none.stage_forward_s) < 1e-9);
  CHECK(relative(sel.stage_backward_s - none.stage_backward_s, 4 * marked_s) < 1e-9);
  // Hardware FLOPs: full adds the forward's GEMMs, selective the marked batched GEMM's.
  const double fwd_flops = none.model_flops / 3;
  CHECK(relative(full.hardware_flops, none.model_flops + fwd_flops) < 1e-9);
  // (the global batch of 8 sequences: B = 64 for the whole iteration, 4 layers)
  CHECK(relative(sel.hardware_flops, none.model_flops + 4 * 2.0 * 64 * 128 * 128 * 256) < 1e-9);

  // Saved activations per layer (micro-batch 4 = 512 tokens, tp 2, 2 bytes): the input and every
  // output but the last, each as its split leaves it.
  const double input = 512.0 * 512 * 2;
  const double norm = 512.0 * 512 * 2, up = 512.0 * 1024 * 2;
  const double mix = 16.0 * 128 * 128 * 2, mix_norm = 16.0 * 128 * 128 * 2;
  const double down = 512.0 * 512 * 2;  // a row split leaves the whole output
  auto layer_bytes = [&](const ParallelStrategy& s) {
    double total = 0;
    for (const SavedActivation& a : layer_saved_activations(m, s)) total += a.bytes;
    return total;
  };
  CHECK(layer_bytes(strategy(2, "none", false)) == input + norm + up + mix + mix_norm + down);
  CHECK(layer_bytes(strategy(2, "selective", false)) == input + norm + up + down);
  CHECK(layer_bytes(strategy(2, "full", false)) == input);
  // Sequence parallelism splits the input and the replicated vector operator's output.
  CHECK(layer_bytes(strategy(2, "none", true)) ==
        input / 2 + norm / 2 + up + mix + mix_norm + down);
  // A single pipeline stage holds one micro-batch in flight (1F1B: min(p, m) = 1), 4 layers.
  CHECK(none.activation_bytes == 4 * layer_bytes(strategy(2, "none", false)));
  CHECK(full.activation_bytes == 4 * input);
  CHECK(full.peak_memory_bytes < none.peak_memory_bytes);

  // Sequence parallelism runs the replicated vector operators (norm, residual) on half the
  // tokens; the split ones are unchanged. Each region's all-reduce becomes an all-gather and a
  // reduce-scatter, which NCCL runs with latencies and protocols of their own (NcclTuning.hpp:
  // for these 512 KiB between 2 ranks, tree/LL128 for the all-reduce, ring/LL for the others).
  const TrainingSimulation sp = simulate_training(m, strategy(2, "none", true), selene);
  const double replicated = layer.operators[0].seconds + layer.operators[5].seconds;
  double collectives = 0;  // per layer: the all-reduces less the all-gathers and reduce-scatters
  for (double bytes : tensor_parallel_all_reduce_bytes(m, 4, 2))
    collectives += group_collective_s(CollectiveKind::all_reduce, selene, {2, 0, 1}, bytes, 1) -
                   group_collective_s(CollectiveKind::all_gather, selene, {2, 0, 1}, bytes, 1) -
                   group_collective_s(CollectiveKind::reduce_scatter, selene, {2, 0, 1}, bytes, 1);
  CHECK(relative(none.stage_forward_s - sp.stage_forward_s, 4 * (replicated / 2 + collectives)) <
        1e-9);
}
