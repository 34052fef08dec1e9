#pragma once
// The optimizer step of one GPU as Megatron-LM's mixed-precision optimizer runs it, and the
// result type that it shares with the per-micro-batch framework work (MicroBatchWork.hpp): what
// the device streams through HBM, the kernels the host launches, the host waits, and the small
// collectives, each counted from the sources (Megatron-LM v3.0, megatron/optimizer/; apex,
// csrc/multi_tensor_apply.cuh; PyTorch 1.12, ATen/native/cuda/MultiTensorApply.cuh). The
// caller times the collectives (NCCL's latency model) and the host's dispatch per kernel; this
// file gives counts, bytes and device time only.
#include <cstdint>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "training/Collectives.hpp"
#include "training/ParallelStrategy.hpp"
#include "training/TransformerModel.hpp"

namespace ts {

// One collective of a framework step. `group` names the ranks: "tp", "dp", "pp",
// "model-parallel" (tp x pp, Megatron's mpu.get_model_parallel_group), "world" (every GPU:
// the distributed optimizer's model-parallel group, Megatron-LM v3.0 distrib_optimizer.py
// get_model_parallel_group returns None) or "embedding" (the first and last stage). `bytes`:
// the whole buffer, as nccl-tests counts it. Collectives over one rank are left out (NCCL moves
// nothing; the host's call is not counted).
struct SmallCollective {
  CollectiveKind kind = CollectiveKind::all_reduce;
  // NCCL broadcast from the group's first rank (CollectiveKind has no such kind; `kind` is then
  // all_reduce, which it is not: time it as a broadcast, one ring pass of `bytes`).
  bool broadcast = false;
  std::string group;
  int64_t ranks = 1;
  double bytes = 0;
  std::string what;
};

// A piece of framework work on one GPU, in this order: the host launches `kernels` kernels
// (their device time together `device_s`, `hbm_bytes` through HBM at the device graph's rate),
// then the collectives, one after another; with `syncs_host` the host then waits for the
// device (a .item(), a .cpu(), a blocking copy or a torch.cuda.synchronize) before it goes on.
// `host_s`: host time besides the per-kernel launch (Python, ...); 0 where no public figure
// exists, and the comment says so.
struct FrameworkWork {
  std::string what;
  double device_s = 0;
  double hbm_bytes = 0;
  double kernels = 0;
  double host_s = 0;
  bool syncs_host = false;
  std::vector<SmallCollective> collectives;
};

// The sum of pieces run one after another: times, bytes and kernels add, the collectives are
// listed in order, and it syncs the host if any piece does.
FrameworkWork total_work(const std::vector<FrameworkWork>& pieces, std::string what);

// A parameter tensor as Megatron-LM holds it on one GPU (the shard of a tensor-parallel one).
struct ParameterTensor {
  std::string name;
  double numel = 0;
  // In the weight-decay group (Megatron-LM v3.0 megatron/optimizer/__init__.py
  // _get_params_for_weight_decay_optimization: everything but biases and norms); each group
  // is its own multi_tensor_apply call in apex's FusedAdam.
  bool weight_decay = true;
  // Replicated over the tensor-parallel ranks and, with sequence parallelism, all-reduced over
  // them after the backward (Megatron-LM v3.0 training.py _allreduce_layernorm_grads: norms
  // and row-parallel biases carry `sequence_parallel`).
  bool sequence_parallel = false;
};

// The parameter tensors of the GPU that holds the most: one pipeline stage's layers
// (layers / pp) and, as ModelState's PipelineStage::first, everything outside the layers
// (embedding, positions, final norm, llama's output layer), in the order of
// model.parameters(). Per GPT layer 12 tensors (two norms' scale and shift, QKV and the
// attention output, the two MLP GEMMs, each weight and bias); llama 6 (no biases, RMSNorm
// scale only, gate and up fused in one GEMM as Megatron's --swiglu does); an MoE layer the
// router and each local expert's two GEMMs; a T5 stage's decoder layers (half) add the
// cross-attention's query, key-value and output with biases and its norm. A graph model: each
// block GEMM's weight (its shard where split) and the block's extra parameters as one
// replicated tensor (the file gives only their count).
std::vector<ParameterTensor> parameter_tensors_per_gpu(const TransformerModel& model,
                                                       const ParallelStrategy& strategy);

// Kernels that a multi_tensor_apply call launches over tensors of `numel` elements, for lists
// `depth` deep (1 to 5), as apex's csrc/multi_tensor_apply.cuh (and PyTorch's copy of it)
// splits them: chunks of `chunk_size` elements (apex: 2048 x 32, apex/multi_tensor_apply/
// __init__.py; PyTorch: kChunkSize 65536), at most depth_to_max_tensors[depth - 1] = {110, 64,
// 48, 36, 30} tensors and 320 chunks (blocks) per launch.
int64_t multi_tensor_apply_launches(const std::vector<double>& numel, int depth,
                                    int64_t chunk_size = 65536);

enum class MixedPrecision {
  fp16,  // --fp16: DynamicGradScaler, unscale and inf check every step
  bf16,  // --bf16: no grad scaler (Megatron-LM v3.0 optimizer/__init__.py: grad_scaler None)
};

struct OptimizerOptions {
  MixedPrecision precision = MixedPrecision::bf16;
  // Megatron's main_grad buffer in fp32 (--accumulate-allreduce-grads-in-fp32; bf16 forces it,
  // arguments.py), as ModelState counts the gradients (4 bytes). Off (fp16's default): a 16-bit
  // buffer, cast to fp32 tensor by tensor before the step.
  bool fp32_main_grads = true;
  bool clip_grad = true;  // --clip-grad 1.0 (Megatron's default, > 0: the norm is computed)
  // The norm exceeds --clip-grad, so clip_grad_norm_fp32 scales the gradients
  // (multi_tensor_scale); it does not where the norm is below, often so late in training.
  bool clip_scales = true;
};

// The optimizer step of the GPU that holds the most (parameter_tensors_per_gpu), as
// Megatron-LM v3.0's Float16OptimizerWithFloat16Params.step (MixedPrecisionOptimizer) runs it,
// or with ZeRO (strategy.zero >= 1: Megatron's --use-distributed-optimizer, which has no
// stage 2 or 3) DistributedOptimizer.step followed by gather_model_params; then the zeroing of
// the gradient buffer that the next iteration's train_step starts with. In order:
//   cast grads (fp16 main grads only), unscale and inf check (fp16 only), clip: norm, clip:
//   scale, adam, copy to model params (ZeRO: into the gradient buffer, then the all-gather and
//   the copy from it), zero grad buffer.
// Pieces with no kernels and no collective are left out.
std::vector<FrameworkWork> optimizer_step_pieces(const TransformerModel& model,
                                                 const ParallelStrategy& strategy,
                                                 const ArchitectureGraph& device,
                                                 const OptimizerOptions& options = {});
// The same as one piece.
FrameworkWork optimizer_step(const TransformerModel& model, const ParallelStrategy& strategy,
                             const ArchitectureGraph& device, const OptimizerOptions& options = {});

}  // namespace ts
