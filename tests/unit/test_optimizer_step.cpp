// The rest of an iteration (issue 42, item 3): Megatron-LM's optimizer step, its loss and
// embedding steps and its per-micro-batch framework work, counted by hand from the sources
// cited in core/training/OptimizerStep.cpp and MicroBatchWork.cpp.
//
// The model throughout: a GPT of 24 layers, hidden 1024, 16 heads, ffn 4096, vocabulary 51200,
// sequence 2048 (GPT-2 medium's shape, the 0.355B model of issue 42's worst case).
// Parameters per layer (TransformerModel::parameters): QKV 3h x h + 3h, attention output
// h x h + h, MLP 4h x h + 4h and h x 4h + h, two norms 2h each:
//   3,145,728 + 3,072 + 1,048,576 + 1,024 + 4,194,304 + 4,096 + 4,194,304 + 1,024 + 4,096
//   = 12,596,224;
// outside the layers: word embeddings 51200 x 1024 = 52,428,800, positions 2048 x 1024 =
// 2,097,152, final norm 2,048. In all N = 24 x 12,596,224 + 52,428,800 + 2,097,152 + 2,048 =
// 302,309,376 + 54,528,000 = 356,837,376 parameters.
// Tensors: 2 + 24 x 12 + 2 = 292; in the weight-decay group the embeddings and four GEMM
// weights a layer (2 + 96 = 98), in the other the 8 biases and norms a layer and the final
// norm (194).
//
// The device: samples/arch/nvidia-a100-fitted.yaml, HBM bandwidth 1.73436635731636 TB/s
// (its `HBM` node, fitted to streaming kernels), the rate hbm_bytes_per_s returns.
#include <catch2/catch.hpp>
#include <string>

#include "SamplePath.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "training/MicroBatchWork.hpp"
#include "training/OptimizerStep.hpp"

using namespace ts;
using ts::test::sample;

namespace {

TransformerModel gpt_355m() {
  TransformerModel m;
  m.name = "gpt-355m";
  m.family = ModelFamily::gpt;
  m.layers = 24;
  m.hidden = 1024;
  m.heads = 16;
  m.ffn = 4096;
  m.vocab = 51200;
  m.seq_len = 2048;
  return m;
}

ParallelStrategy split_over(int64_t dp, int64_t tp, int64_t pp, int zero) {
  ParallelStrategy s;
  s.dp.value = dp;
  s.tp.value = tp;
  s.pp.value = pp;
  s.zero.value = zero;
  s.micro_batch.value = 1;
  s.global_batch.value = dp * 8;
  return s;
}

constexpr double kA100FittedHbm = 1.73436635731636e12;  // bytes/s, nvidia-a100-fitted.yaml's HBM

const FrameworkWork* piece_named(const std::vector<FrameworkWork>& pieces,
                                 const std::string& what) {
  for (const FrameworkWork& p : pieces)
    if (p.what == what) return &p;
  return nullptr;
}

}  // namespace

TEST_CASE("multi_tensor_apply launches as apex chunks them", "[iteration-steps]") {
  // apex csrc/multi_tensor_apply.cuh: chunks of 65536, at most 320 per launch, at most
  // {110, 64, 48, 36, 30}[depth - 1] tensors per launch.
  // One tensor of 320 x 65536 elements: one launch; one element more: a 321st chunk, two.
  CHECK(multi_tensor_apply_launches({320.0 * 65536}, 4) == 1);
  CHECK(multi_tensor_apply_launches({320.0 * 65536 + 1}, 4) == 2);
  // 37 one-chunk tensors at depth 4: the 36th fills a launch, the 37th is the last: two.
  CHECK(multi_tensor_apply_launches(std::vector<double>(37, 1024), 4) == 2);
  // The same at depth 1 (110 tensors a launch): one.
  CHECK(multi_tensor_apply_launches(std::vector<double>(37, 1024), 1) == 1);
  // 36 tensors exactly: the tensor limit and the last chunk at once, one launch.
  CHECK(multi_tensor_apply_launches(std::vector<double>(36, 1024), 4) == 1);
  CHECK(multi_tensor_apply_launches({}, 4) == 0);
}

TEST_CASE("a GPU's parameter tensors as Megatron-LM holds them", "[iteration-steps]") {
  const TransformerModel m = gpt_355m();
  const std::vector<ParameterTensor> t1 = parameter_tensors_per_gpu(m, split_over(1, 1, 1, 0));
  CHECK(t1.size() == 292);
  double n = 0, wd = 0;
  for (const ParameterTensor& t : t1) {
    n += t.numel;
    wd += t.weight_decay ? 1 : 0;
  }
  CHECK(n == 356837376.0);
  CHECK(n == m.parameters());
  CHECK(wd == 98);
  // tp 8: per layer QKV 384 x 1024 = 393,216 + 384, attention output 1024 x 128 = 131,072 +
  // 1,024 (replicated), MLP 512 x 1024 = 524,288 + 512 and 1024 x 512 = 524,288 + 1,024, norms
  // 4,096 (replicated): 1,579,904; words 6,400 x 1024 = 6,553,600; positions and final norm
  // as before: N8 = 24 x 1,579,904 + 6,553,600 + 2,097,152 + 2,048 = 46,570,496.
  double n8 = 0;
  for (const ParameterTensor& t : parameter_tensors_per_gpu(m, split_over(1, 8, 1, 0)))
    n8 += t.numel;
  CHECK(n8 == 46570496.0);
}

TEST_CASE("the optimizer step of a 0.355B GPT on one A100", "[iteration-steps]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100-fitted.yaml"));
  const TransformerModel m = gpt_355m();
  const double N = 356837376;
  // bf16, fp32 main grads, clipping that scales (OptimizerOptions' defaults), tp 1, no ZeRO.
  const std::vector<FrameworkWork> p = optimizer_step_pieces(m, split_over(1, 1, 1, 0), a100);
  // Chunks of 65536 per tensor: words 800, positions 32, per layer QKV 48, attention output 16,
  // each MLP GEMM 64, the 8 biases and norms 1 each (200 a layer), final norm 2:
  // 832 + 4,800 + 2 = 5,634. In model order, 320 chunks span under two layers (< 25
  // tensors), so the tensor limits (110, 64) never bind: ceil(5634 / 320) = 18 launches at
  // depths 1 and 2.
  // Clip, norm: IntTensor([0]) copy, zeros(320), 18 launches, cleanup, ** 2: 22 kernels,
  // reading 4 N bytes; no collective over one model-parallel rank; .item() waits.
  const FrameworkWork* norm = piece_named(p, "optimizer: clip: grad norm");
  REQUIRE(norm);
  CHECK(norm->kernels == 22);
  CHECK(norm->hbm_bytes == 4 * N);
  CHECK(norm->collectives.empty());
  CHECK(norm->syncs_host);
  // Clip, scale: IntTensor([0]) and 18 multi_tensor_scale launches, 8 N bytes.
  const FrameworkWork* scale = piece_named(p, "optimizer: clip: scale grads");
  REQUIRE(scale);
  CHECK(scale->kernels == 19);
  CHECK(scale->hbm_bytes == 8 * N);
  // Adam, weight-decay group: 800 + 32 + 24 x (48 + 16 + 64 + 64) = 5,440 chunks = 17 x 320
  // in 98 tensors (7 at most per launch, under 36): 17 launches. The other group: 194
  // one-chunk tensors, 36 a launch: 5 full and 14 left, 6. 23 kernels, 28 N bytes
  // (1,427,349,504 x 7 = 9,991,446,528), 9,991,446,528 / 1.7343664e12 = 5.7609 ms.
  const FrameworkWork* adam = piece_named(p, "optimizer: adam");
  REQUIRE(adam);
  CHECK(adam->kernels == 23);
  CHECK(adam->hbm_bytes == 9991446528.0);
  CHECK(adam->device_s == Approx(5.7609e-3).epsilon(1e-4));
  // Copy to the 16-bit model parameters: a copy_ per tensor (292), reading 4 and writing 2.
  const FrameworkWork* copy = piece_named(p, "optimizer: copy main params to model params");
  REQUIRE(copy);
  CHECK(copy->kernels == 292);
  CHECK(copy->hbm_bytes == 6 * N);
  // Zeroing the fp32 gradient buffer: one fill, 4 N bytes.
  const FrameworkWork* zero = piece_named(p, "zero grad buffer");
  REQUIRE(zero);
  CHECK(zero->kernels == 1);
  CHECK(zero->hbm_bytes == 4 * N);
  // bf16 has no unscale; the whole: 22 + 19 + 23 + 292 + 1 = 357 kernels, (4 + 8 + 28 + 6 + 4)
  // N = 50 N = 17,841,868,800 bytes, 10.2873 ms.
  CHECK(p.size() == 5);
  const FrameworkWork all = optimizer_step(m, split_over(1, 1, 1, 0), a100);
  CHECK(all.kernels == 357);
  CHECK(all.hbm_bytes == 50 * N);
  CHECK(all.device_s == Approx(50 * N / kA100FittedHbm));
  CHECK(all.device_s == Approx(10.2873e-3).epsilon(1e-4));
  CHECK(all.collectives.empty());
}

TEST_CASE("the optimizer step at tensor parallelism 8, bf16 and fp16", "[iteration-steps]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100-fitted.yaml"));
  const TransformerModel m = gpt_355m();
  const double N8 = 46570496;  // the tp-8 shard, test above
  const ParallelStrategy s = split_over(1, 8, 1, 0);
  const std::vector<FrameworkWork> p = optimizer_step_pieces(m, s, a100);
  // Chunks per tp-8 tensor: words 100, positions 32, QKV 6, attention output 2, MLP GEMMs 8
  // each, every bias and norm 1: 32 a layer of 12 tensors.
  // Depth 1 (110 tensors, 320 chunks a launch), from (2 tensors, 132 chunks) after the
  // embeddings, 12 and 32 a layer: after layer 5 (62, 292); layer 6's MLP output weight
  // reaches 320 at its 5th chunk (launch 1, the tensor carried over: 3 chunks, then its bias:
  // (2, 4)); 9 layers more reach 110 tensors at layer 15's last (launch 2); layers 16-24 and
  // the final norm: (110, 290), full and last (launch 3). 3 launches.
  const FrameworkWork* norm = piece_named(p, "optimizer: clip: grad norm");
  REQUIRE(norm);
  CHECK(norm->kernels == 4 + 3);
  CHECK(norm->hbm_bytes == 4 * N8);
  // The norm all-reduced (sum) over the model-parallel group, tp x pp = 8 ranks, one float.
  REQUIRE(norm->collectives.size() == 1);
  CHECK(norm->collectives[0].kind == CollectiveKind::all_reduce);
  CHECK(norm->collectives[0].group == "model-parallel");
  CHECK(norm->collectives[0].ranks == 8);
  CHECK(norm->collectives[0].bytes == 4);
  // Depth 2 (64 tensors): 64 at layer 6's norm-1 bias (launch 1), at layer 11's attention
  // output bias (2), at layer 16's first MLP bias (3), at layer 22's norm-1 bias (4); the
  // rest (36 tensors) ends (5). 1 + 5 kernels.
  const FrameworkWork* scale = piece_named(p, "optimizer: clip: scale grads");
  REQUIRE(scale);
  CHECK(scale->kernels == 1 + 5);
  // Adam, depth 4 (36 tensors): weight-decay group from (2, 132), 4 tensors and 24 chunks a
  // layer: after layer 7 (30, 300); layer 8's MLP output weight cut at 320 (launch 1, (1, 4)
  // carried); 36 tensors at layer 17's first MLP weight (launch 2); layer 17's last weight and
  // layers 18-24 end (launch 3). Other group: 194 one-chunk tensors, 6 launches. 9 kernels.
  const FrameworkWork* adam = piece_named(p, "optimizer: adam");
  REQUIRE(adam);
  CHECK(adam->kernels == 9);
  CHECK(adam->hbm_bytes == 28 * N8);
  // 7 + 6 + 9 + 292 + 1 = 315 kernels, 50 N8 = 2,328,524,800 bytes, 1.34258 ms.
  const FrameworkWork all = optimizer_step(m, s, a100);
  CHECK(all.kernels == 315);
  CHECK(all.hbm_bytes == 2328524800.0);
  CHECK(all.device_s == Approx(1.34258e-3).epsilon(1e-4));

  // fp16 (DynamicGradScaler): before the clip, found_inf.fill_, inv_scale's double(),
  // reciprocal(), float(), and 3 depth-1 launches of the unscale: 7 kernels, 8 N8 bytes, an
  // all-reduce (max) of one float over the 8 model-parallel ranks and a wait (.item()); the
  // copy to model parameters tests the overflow buffer first (a wait, no kernel).
  OptimizerOptions fp16;
  fp16.precision = MixedPrecision::fp16;
  const std::vector<FrameworkWork> q = optimizer_step_pieces(m, s, a100, fp16);
  const FrameworkWork* unscale = piece_named(q, "optimizer: unscale and inf check");
  REQUIRE(unscale);
  CHECK(unscale->kernels == 7);
  CHECK(unscale->hbm_bytes == 8 * N8);
  CHECK(unscale->syncs_host);
  REQUIRE(unscale->collectives.size() == 1);
  CHECK(unscale->collectives[0].ranks == 8);
  CHECK(unscale->collectives[0].bytes == 4);
  const FrameworkWork* check = piece_named(q, "optimizer: copy: overflow buffer test");
  REQUIRE(check);
  CHECK(check->syncs_host);
  CHECK(check->kernels == 0);
  const FrameworkWork fp16_all = total_work(q, "fp16");
  CHECK(fp16_all.kernels == 315 + 7);
  CHECK(fp16_all.hbm_bytes == 58 * N8);
  // A 16-bit main_grad buffer: a cast per tensor (292 kernels, read 2, write 4: 6 N8) before
  // all, and the buffer's zeroing writes 2 bytes a parameter instead of 4.
  fp16.fp32_main_grads = false;
  const FrameworkWork cast_all = optimizer_step(m, s, a100, fp16);
  CHECK(cast_all.kernels == 315 + 7 + 292);
  CHECK(cast_all.hbm_bytes == (58 + 6 - 2) * N8);
}

TEST_CASE("the distributed optimizer (ZeRO-1) steps a dp-th and gathers", "[iteration-steps]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100-fitted.yaml"));
  const TransformerModel m = gpt_355m();
  const double N = 356837376;
  SECTION("tp 1, dp 8") {
    // Each rank's shard: S = N / 8 = 44,604,672 parameters of the gradient buffer, which holds
    // the parameters last first: final norm, layers 24 to 1 (each in reverse: MLP output bias
    // and weight, MLP input bias and weight, norm 2, attention output bias and weight, QKV
    // bias and weight, norm 1), positions, words. In layers (L = 12,596,224) after the final
    // norm, rank r covers [r S - 2048, (r + 1) S - 2048) / L, 3.54 layers: rank 0 [0, 3.541):
    // the final norm, layers 24-22, layer 21 to inside its MLP input weight (4): 42 tensors;
    // rank 1 [3.541, 7.082): the rest of layer 21 (9), layers 20-18 (36), layer 17's MLP output
    // bias and 1,032,704 of its weight (2): 47; likewise ranks 2-7: 39, 47, 43, 43, 37, 1. The
    // first with the most, rank 1: weight-decay pieces 16 + 576 + 48 + 16 + 25 (1,579,776 of
    // layer 21's MLP input weight) = 681 chunks in 16 tensors, 3 launches; the other group 1 +
    // 24 + 6 = 31 one-chunk tensors, 1 launch. Depths 1 and 2: 712 chunks in 47 tensors, 3
    // launches each.
    const ParallelStrategy s = split_over(8, 1, 1, 1);
    const double S = 44604672;
    const std::vector<FrameworkWork> p = optimizer_step_pieces(m, s, a100);
    const FrameworkWork* norm = piece_named(p, "optimizer: clip: grad norm");
    REQUIRE(norm);
    CHECK(norm->kernels == 4 + 3);
    CHECK(norm->hbm_bytes == 4 * S);
    // The norm's all-reduce spans every GPU (the distributed optimizer's model-parallel group).
    REQUIRE(norm->collectives.size() == 1);
    CHECK(norm->collectives[0].group == "world");
    CHECK(norm->collectives[0].ranks == 8);
    const FrameworkWork* adam = piece_named(p, "optimizer: adam");
    REQUIRE(adam);
    CHECK(adam->kernels == 4);
    CHECK(adam->hbm_bytes == 28 * S);
    // Shard main params copied into the fp32 gradient buffer: 47 kernels, 8 bytes each.
    const FrameworkWork* into = piece_named(p, "optimizer: copy main params into the grad buffer");
    REQUIRE(into);
    CHECK(into->kernels == 47);
    CHECK(into->hbm_bytes == 8 * S);
    // All-gather of the whole fp32 buffer over dp: 4 N = 1,427,349,504 bytes; then a copy_ per
    // model parameter (292), reading 4 and writing 2: 6 N.
    const FrameworkWork* gather = piece_named(p, "optimizer: gather model params");
    REQUIRE(gather);
    REQUIRE(gather->collectives.size() == 1);
    CHECK(gather->collectives[0].kind == CollectiveKind::all_gather);
    CHECK(gather->collectives[0].group == "dp");
    CHECK(gather->collectives[0].ranks == 8);
    CHECK(gather->collectives[0].bytes == 1427349504.0);
    CHECK(gather->kernels == 292);
    CHECK(gather->hbm_bytes == 6 * N);
    // 7 + 4 + 4 + 47 + 292 + 1 = 355 kernels; (4 + 8 + 28 + 8) S + (6 + 4) N = 2,141,024,256 +
    // 3,568,373,760 = 5,709,398,016 bytes, 3.29192 ms.
    const FrameworkWork all = total_work(p, "zero-1");
    CHECK(all.kernels == 355);
    CHECK(all.hbm_bytes == 5709398016.0);
    CHECK(all.device_s == Approx(3.29192e-3).epsilon(1e-4));
  }
  SECTION("tp 8, dp 2") {
    // N8 = 46,570,496 (test above), S = 23,285,248. Rank 0 holds the final norm, layers 24 to
    // 11 (14 x 1,579,904) and 1,164,544 - 1,053,184 = 111,360 of layer 10's attention output
    // weight: 2 + 168 + 8 = 178 tensors; rank 1 115. Weight-decay pieces: layer 10's attention
    // output (2 chunks) and MLP weights (8, 8), then 4 tensors and 24 chunks a layer: 36
    // tensors at layer 19's QKV (launch 1), the rest (launch 2). The other group: 5 + 112 + 2 =
    // 119 one-chunk tensors: 4 launches. Depth 1: 110 tensors at layer 19's attention output
    // bias, 2 launches; depth 2: 64 tensors at layer 15's norm-2 bias and at layer 20's end,
    // 3 launches.
    const ParallelStrategy s = split_over(2, 8, 1, 1);
    const double N8 = 46570496, S = 23285248;
    const std::vector<FrameworkWork> p = optimizer_step_pieces(m, s, a100);
    const FrameworkWork* norm = piece_named(p, "optimizer: clip: grad norm");
    REQUIRE(norm);
    CHECK(norm->kernels == 4 + 2);
    REQUIRE(norm->collectives.size() == 1);
    CHECK(norm->collectives[0].ranks == 16);
    CHECK(piece_named(p, "optimizer: clip: scale grads")->kernels == 1 + 3);
    CHECK(piece_named(p, "optimizer: adam")->kernels == 6);
    CHECK(piece_named(p, "optimizer: copy main params into the grad buffer")->kernels == 178);
    const FrameworkWork* gather = piece_named(p, "optimizer: gather model params");
    REQUIRE(gather);
    CHECK(gather->collectives[0].bytes == 4 * N8);
    // 6 + 4 + 6 + 178 + 292 + 1 = 487 kernels; 48 S + 10 N8 bytes.
    const FrameworkWork all = total_work(p, "zero-1");
    CHECK(all.kernels == 487);
    CHECK(all.hbm_bytes == 48 * S + 10 * N8);
  }
}

// The per-micro-batch work below: micro-batch 1, so T = 2048 tokens and E = T x h = 2,097,152
// elements of an activation (16-bit).

TEST_CASE("get_batch on every stage, every micro-batch", "[iteration-steps]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100-fitted.yaml"));
  const TransformerModel m = gpt_355m();
  // tp 1: the sizes' copy there and back (2, a wait), the tokens' copy (1), labels and tokens
  // (2) and the five mask kernels: 10. Bytes: 32 T + 4 T (int64 copies, the loss mask) +
  // 17 s^2 (ones, tril, < 0.5 on the 2048 x 2048 mask) + 8 s (arange) = 73,728 + 71,303,168 +
  // 16,384 = 71,393,280, 41.164 us at 1.7343664 TB/s.
  const FrameworkWork b1 = batch_step(m, split_over(1, 1, 1, 0), a100);
  CHECK(b1.kernels == 10);
  CHECK(b1.hbm_bytes == 71393280.0);
  CHECK(b1.device_s == Approx(41.164e-6).epsilon(1e-4));
  CHECK(b1.syncs_host);
  CHECK(b1.collectives.empty());
  // tp 8: the two broadcasts over tp, 5 x 8 = 40 bytes and 8 x 2049 = 16,392 bytes.
  const FrameworkWork b8 = batch_step(m, split_over(1, 8, 1, 0), a100);
  REQUIRE(b8.collectives.size() == 2);
  CHECK(b8.collectives[0].broadcast);
  CHECK(b8.collectives[0].bytes == 40);
  CHECK(b8.collectives[1].bytes == 16392);
  CHECK(b8.collectives[1].ranks == 8);
  CHECK(b8.collectives[1].group == "tp");
}

TEST_CASE("the embedding on the first stage", "[iteration-steps]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100-fitted.yaml"));
  const TransformerModel m = gpt_355m();
  const double E = 2097152;
  // Forward, tp 1: lookup (4 E), positions and sum (4 E + 6 E), transpose (4 E), dropout
  // (5 E): 5 kernels, 23 E = 48,234,496 bytes.
  const FrameworkWork f1 = embedding_step(PassKind::forward, m, split_over(1, 1, 1, 0), a100);
  CHECK(f1.kernels == 5);
  CHECK(f1.hbm_bytes == 23 * E);
  CHECK(f1.collectives.empty());
  // tp 8: 6 token-mask kernels and the output's masked_fill (4 E) more: 12 kernels, 27 E; the
  // all-reduce of the 16-bit output over tp: 2 E = 4,194,304 bytes.
  const FrameworkWork f8 = embedding_step(PassKind::forward, m, split_over(1, 8, 1, 0), a100);
  CHECK(f8.kernels == 12);
  CHECK(f8.hbm_bytes == 27 * E);
  REQUIRE(f8.collectives.size() == 1);
  CHECK(f8.collectives[0].bytes == 4194304);
  CHECK(f8.collectives[0].ranks == 8);
  // Backward, tp 1 (2048 indices <= 3072: the direct path): dropout and transpose (2, 9 E);
  // positions: zeros of 2048 x 1024 (2 E) and the kernel (4 E), the main_grad add (10 E): 3
  // kernels; words: zeros of 51200 x 1024 16-bit (104,857,600) and the kernel (4 E), the add
  // (10 x 52,428,800 = 524,288,000): 3. 8 kernels, 29 E + 12 x 52,428,800 = 60,817,408 +
  // 629,145,600 = 689,963,008 bytes, 0.39782 ms; no wait.
  const FrameworkWork b1 = embedding_step(PassKind::backward, m, split_over(1, 1, 1, 0), a100);
  CHECK(b1.kernels == 8);
  CHECK(b1.hbm_bytes == 689963008.0);
  CHECK(b1.device_s == Approx(0.39782e-3).epsilon(1e-4));
  CHECK_FALSE(b1.syncs_host);
  // Micro-batch 2: 4096 indices take the sorting path, 12 kernels a table and three waits:
  // 2 + (12 + 1) x 2 = 28 kernels.
  ParallelStrategy mb2 = split_over(1, 1, 1, 0);
  mb2.micro_batch.value = 2;
  const FrameworkWork b2 = embedding_step(PassKind::backward, m, mb2, a100);
  CHECK(b2.kernels == 28);
  CHECK(b2.syncs_host);
}

TEST_CASE("the vocabulary-parallel cross entropy and the loss function", "[iteration-steps]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100-fitted.yaml"));
  const TransformerModel m = gpt_355m();
  // tp 1: 2048 x 51200 = 104,857,600 logits; forward 20 kernels (two transposes, the fp32
  // cast, 17 of the cross entropy), 6 + 8 x 4 = 38 bytes a logit: 3,984,588,800, 2.2974 ms.
  const FrameworkWork f1 = loss_step(PassKind::forward, m, split_over(1, 1, 1, 0), a100);
  CHECK(f1.kernels == 20);
  CHECK(f1.hbm_bytes == 3984588800.0);
  CHECK(f1.device_s == Approx(2.2974e-3).epsilon(1e-4));
  CHECK(f1.collectives.empty());
  // Backward: 9 kernels, 8 + 6 = 14 bytes a logit.
  const FrameworkWork g1 = loss_step(PassKind::backward, m, split_over(1, 1, 1, 0), a100);
  CHECK(g1.kernels == 9);
  CHECK(g1.hbm_bytes == 14 * 104857600.0);
  // tp 8: 13,107,200 logits a rank, 498,073,600 bytes; three all-reduces of 2048 floats
  // (8,192 bytes) over the 8 tp ranks.
  const FrameworkWork f8 = loss_step(PassKind::forward, m, split_over(1, 8, 1, 0), a100);
  CHECK(f8.hbm_bytes == 498073600.0);
  REQUIRE(f8.collectives.size() == 3);
  for (const SmallCollective& c : f8.collectives) {
    CHECK(c.kind == CollectiveKind::all_reduce);
    CHECK(c.bytes == 8192);
    CHECK(c.ranks == 8);
  }
  // The loss function: 8 kernels, 20 bytes a token (40,960); dp 4: one float all-reduced.
  const FrameworkWork l1 = loss_reduction_step(PassKind::forward, m, split_over(1, 1, 1, 0), a100);
  CHECK(l1.kernels == 8);
  CHECK(l1.hbm_bytes == 40960);
  CHECK(l1.collectives.empty());
  const FrameworkWork l4 = loss_reduction_step(PassKind::forward, m, split_over(4, 1, 1, 0), a100);
  REQUIRE(l4.collectives.size() == 1);
  CHECK(l4.collectives[0].group == "dp");
  CHECK(l4.collectives[0].ranks == 4);
  CHECK(l4.collectives[0].bytes == 4);
  CHECK(loss_reduction_step(PassKind::backward, m, split_over(1, 1, 1, 0), a100).kernels == 6);
}

TEST_CASE("once-per-iteration gradient all-reduces and the schedules' waits", "[iteration-steps]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100-fitted.yaml"));
  const TransformerModel m = gpt_355m();
  // Tied embeddings with pp 2: 51200 x 1024 fp32 = 209,715,200 bytes between the first and
  // last stage; at tp 8 a tp-th, 26,214,400; none with pp 1.
  const FrameworkWork e1 = embedding_grad_sync(m, split_over(1, 1, 2, 0));
  REQUIRE(e1.collectives.size() == 1);
  CHECK(e1.collectives[0].group == "embedding");
  CHECK(e1.collectives[0].ranks == 2);
  CHECK(e1.collectives[0].bytes == 209715200.0);
  CHECK(embedding_grad_sync(m, split_over(1, 8, 2, 0)).collectives[0].bytes == 26214400.0);
  CHECK(embedding_grad_sync(m, split_over(1, 8, 1, 0)).collectives.empty());
  // Sequence parallelism at tp 8: per layer 4 norm parameters of 1024 and 2 row-parallel
  // biases of 1024 (6 tensors, 6,144), the final norm (2 tensors, 2,048): 146 tensors, 149,504
  // parameters; a cat and 146 copies (147 kernels), 16 bytes a parameter (2,392,064); an
  // all-reduce of 4 x 149,504 = 598,016 bytes over tp.
  ParallelStrategy sp = split_over(1, 8, 1, 0);
  sp.sequence_parallel = true;
  const FrameworkWork s8 = sequence_parallel_grad_sync(m, sp, a100);
  CHECK(s8.kernels == 147);
  CHECK(s8.hbm_bytes == 2392064);
  REQUIRE(s8.collectives.size() == 1);
  CHECK(s8.collectives[0].bytes == 598016);
  CHECK(sequence_parallel_grad_sync(m, split_over(1, 8, 1, 0), a100).collectives.empty());
  // A received activation at tp 8, pp 2: an all-gather of 2 E = 4,194,304 bytes, then a wait.
  const FrameworkWork p = pipeline_communicate_work(m, split_over(1, 8, 2, 0), true);
  REQUIRE(p.collectives.size() == 1);
  CHECK(p.collectives[0].kind == CollectiveKind::all_gather);
  CHECK(p.collectives[0].bytes == 4194304);
  CHECK(p.syncs_host);
  CHECK_FALSE(pipeline_communicate_work(m, split_over(1, 8, 1, 0), true).syncs_host);
  CHECK(step_timers(PassKind::forward).syncs_host);
  CHECK(step_timers(PassKind::backward).kernels == 0);
}

TEST_CASE("every family's parameter tensors add up to its parameters", "[iteration-steps]") {
  // Without parallelism a GPU holds the whole model: the tensors sum to
  // TransformerModel::parameters for every family (its formulas, restated per tensor in
  // parameter_tensors_per_gpu).
  const ParallelStrategy one = split_over(1, 1, 1, 0);
  auto sum = [](const std::vector<ParameterTensor>& tensors) {
    double n = 0;
    for (const ParameterTensor& t : tensors) n += t.numel;
    return n;
  };
  // llama2-7b: 6 tensors a layer (two RMSNorm scales, QKV, output, fused gate-up, down), the
  // embedding, the final norm, the output layer: 32 x 6 + 3 = 195.
  const TransformerModel llama = load_transformer_model(sample("/dist/models/llama2-7b.yaml"));
  const std::vector<ParameterTensor> lt = parameter_tensors_per_gpu(llama, one);
  CHECK(lt.size() == 195);
  CHECK(sum(lt) == llama.parameters());
  const TransformerModel bert = load_transformer_model(sample("/dist/models/bert-large.yaml"));
  CHECK(sum(parameter_tensors_per_gpu(bert, one)) == bert.parameters());
  // T5 and an MoE GPT, written here: 4 layers (2 decoder layers with cross-attention: 12 + 8
  // tensors); 8 experts, each 4 tensors, and a router.
  TransformerModel t5 = gpt_355m();
  t5.family = ModelFamily::t5;
  t5.layers = 4;
  const std::vector<ParameterTensor> tt = parameter_tensors_per_gpu(t5, one);
  CHECK(tt.size() == 1 + 2 * 12 + 2 * 20 + 2);
  CHECK(sum(tt) == t5.parameters());
  TransformerModel moe = gpt_355m();
  moe.experts = 8;
  const std::vector<ParameterTensor> mt = parameter_tensors_per_gpu(moe, one);
  CHECK(mt.size() == 2 + 24 * (8 + 1 + 8 * 4) + 2);
  CHECK(sum(mt) == moe.parameters());
  // A graph model: per layer its four GEMM weights (384 x 196 twice, 3072 x 768 twice) and the
  // 7,492 extra parameters as one tensor: 12 x 5 = 60 tensors; at tp 2 the split weights
  // halve, as GraphBlock::parameters_per_rank says.
  const TransformerModel mixer = load_transformer_model(sample("/dist/models/mlp-mixer-b16.yaml"));
  const std::vector<ParameterTensor> gt = parameter_tensors_per_gpu(mixer, one);
  CHECK(gt.size() == 60);
  CHECK(sum(gt) == mixer.parameters());
  CHECK(sum(parameter_tensors_per_gpu(mixer, split_over(1, 2, 1, 0))) ==
        12 * mixer.block.parameters_per_rank(2));
}

TEST_CASE("a schedule step's work outside the layers, in order", "[iteration-steps]") {
  const ArchitectureGraph a100 = load_architecture(sample("/arch/nvidia-a100-fitted.yaml"));
  const TransformerModel m = gpt_355m();
  const ParallelStrategy s = split_over(1, 1, 1, 0);
  // One stage holds it all (pp 1): forward, the timer's wait, get_batch's three pieces, the
  // embedding; after the layers the cross entropy, the loss function, the timer's wait.
  const StageStepWork f = stage_step_work(PassKind::forward, m, s, a100, true, true);
  REQUIRE(f.before_layers.size() == 5);
  CHECK(f.before_layers[0].syncs_host);
  CHECK(f.before_layers[0].kernels == 0);
  CHECK(f.before_layers[4].what == "embedding forward");
  REQUIRE(f.after_layers.size() == 3);
  CHECK(f.after_layers[0].what == "cross entropy forward");
  CHECK(f.after_layers[2].syncs_host);
  // Kernels: 10 (get_batch) + 5 (embedding) before, 20 + 8 after.
  CHECK(total_work(f.before_layers, "").kernels == 15);
  CHECK(total_work(f.after_layers, "").kernels == 28);
  // A middle stage's backward: the two waits only.
  const StageStepWork b = stage_step_work(PassKind::backward, m, s, a100, false, false);
  CHECK(b.before_layers.size() == 1);
  CHECK(b.after_layers.size() == 1);
  // Without the v2.x timers' synchronisation a middle stage's backward has nothing outside
  // its layers.
  FrameworkOptions quiet;
  quiet.timers_synchronize = false;
  const StageStepWork q = stage_step_work(PassKind::backward, m, s, a100, false, false, quiet);
  CHECK(q.before_layers.empty());
  CHECK(q.after_layers.empty());
}
