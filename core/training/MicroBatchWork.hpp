#pragma once
// The framework work of Megatron-LM's pipeline schedules outside the transformer layers, per
// micro-batch or per iteration, as counted work (FrameworkWork, OptimizerStep.hpp): the batch
// each stage fetches and broadcasts, the embedding on the first stage, the vocabulary-parallel
// cross entropy and the loss function on the last, the tied embedding's gradient all-reduce
// between them, sequence parallelism's norm-gradient all-reduce, and the host waits of the
// schedules' timers. Sources: Megatron-LM v3.0 (megatron/schedules.py, pretrain_gpt.py,
// megatron/utils.py, megatron/mpu/ or megatron/core/tensor_parallel/, megatron/training.py),
// PyTorch 1.12 (ATen/native/cuda). No Python host time is given (host_s 0): no public figure
// per call exists; the caller charges its per-kernel dispatch.
#include "training/OptimizerStep.hpp"
#include "training/PipelineOrder.hpp"

namespace ts {

struct FrameworkOptions {
  // Megatron-LM v2.x (megatron/global_vars.py _Timer.start and stop call
  // torch.cuda.synchronize()) times every forward_step and backward_step: the host waits for
  // the device before and after each. The timers with log levels of later versions
  // (megatron/timers.py, --timing-log-level 0 by default) leave these off.
  bool timers_synchronize = true;
  // --fp16-lm-cross-entropy off (Megatron's default): the logits are cast to fp32 first.
  bool fp16_lm_cross_entropy = false;
};

// get_batch (pretrain_gpt.py), on every stage and every micro-batch, forward only, in order:
// the sizes (torch.cuda.LongTensor of 5 int64, broadcast over tp, .cpu(): a wait), the tokens
// (a blocking host-to-device copy on tp rank 0, broadcast over tp of mb x (seq + 1) int64), and
// labels, tokens, the causal attention mask, loss mask and position ids
// (get_ltor_masks_and_position_ids, megatron/utils.py, defaults: no reset, no eod masking).
std::vector<FrameworkWork> batch_step_pieces(const TransformerModel& model,
                                             const ParallelStrategy& strategy,
                                             const ArchitectureGraph& device);
FrameworkWork batch_step(const TransformerModel& model, const ParallelStrategy& strategy,
                         const ArchitectureGraph& device);

// The embedding on the first stage, per micro-batch: forward, VocabParallelEmbedding (with tp
// > 1: the out-of-range mask, the lookup, the masked rows zeroed, an all-reduce of mb x seq x
// hidden 16-bit over tp), the positions, their sum, the [b s h] -> [s b h] transpose, dropout;
// backward, each of these backward and the dense gradients of the word and position tables
// (embedding_dense_backward: zeros of the table, then its kernels; more than 3,072 tokens take
// the sorting path, which reads three counts back: waits) added into Megatron's main_grad.
// A graph model has none: empty work.
FrameworkWork embedding_step(PassKind pass, const TransformerModel& model,
                             const ParallelStrategy& strategy, const ArchitectureGraph& device);

// The vocabulary-parallel cross entropy on the last stage, per micro-batch
// (mpu/cross_entropy.py _VocabParallelCrossEntropy, gpt_model.py
// post_language_model_processing): forward, the fp32 cast of the logits, max, three all-reduces
// over tp of mb x seq floats (max, the target's logit, the sum of exponentials), its
// elementwise kernels; backward, the softmax gradient and the cast back. Empty for a graph
// model.
FrameworkWork loss_step(PassKind pass, const TransformerModel& model,
                        const ParallelStrategy& strategy, const ArchitectureGraph& device,
                        const FrameworkOptions& options = {});

// What forward_step and backward_step (megatron/schedules.py) add on the last stage per
// micro-batch: forward, loss_func (pretrain_gpt.py: the masked mean) with
// average_losses_across_data_parallel_group (an all-reduce of one float over dp) and the
// division by the number of micro-batches; backward, optimizer.scale_loss and the autograd of
// those.
FrameworkWork loss_reduction_step(PassKind pass, const TransformerModel& model,
                                  const ParallelStrategy& strategy,
                                  const ArchitectureGraph& device);

// The timers around each forward_step ('forward-compute') and backward_step
// ('backward-compute'): with options.timers_synchronize, a wait before the step's first kernel
// and one after its last (no kernel); else empty work.
FrameworkWork step_timers(PassKind pass, const FrameworkOptions& options = {});

// Once per iteration, after the backward passes (training.py / optimizer.py
// _allreduce_word_embedding_grads): with pp > 1 and an embedding tied to the output layer, the
// first and last stage all-reduce the word embedding's main_grad (vocab / tp x hidden in the
// gradient buffer's type: `grad_bytes`, 4 for fp32 main grads). Empty otherwise.
FrameworkWork embedding_grad_sync(const TransformerModel& model, const ParallelStrategy& strategy,
                                  double grad_bytes = 4);

// Once per iteration with sequence parallelism and tp > 1 (training.py
// _allreduce_layernorm_grads, v3.0): the gradients of the parameters replicated over tp (norms
// and row-parallel biases) flattened into one buffer, all-reduced over tp and copied back.
FrameworkWork sequence_parallel_grad_sync(const TransformerModel& model,
                                          const ParallelStrategy& strategy,
                                          const ArchitectureGraph& device, double grad_bytes = 4);

// One call of p2p_communication.py _communicate (v2.x/v3.0), with pp > 1: the schedules make
// one per send, receive or combined send-and-receive. Every call ends with
// torch.cuda.synchronize() ("to protect against race condition when using
// batch_isend_irecv()"): a wait. A call that `receives` with tp > 1 and
// --scatter-gather-tensors-in-pipeline (Megatron's default) got a tp-th of the tensor on each
// tp rank and all-gathers the mb x seq x hidden 16-bit tensor over tp (gather_split_1d_tensor)
// before the wait. Empty with pp 1.
FrameworkWork pipeline_communicate_work(const TransformerModel& model,
                                        const ParallelStrategy& strategy, bool receives);

// One forward_step or backward_step of the schedules (megatron/schedules.py) on one model
// chunk, outside its transformer layers, in the order the host issues it: `before_layers`
// (forward: the timer's wait, get_batch, on the first chunk the embedding; backward: the
// timer's wait, on the last chunk the loss function's and the cross entropy's backward) and
// `after_layers` (forward: on the last chunk the cross entropy and the loss function; backward:
// on the first chunk the embedding's backward; then the timer's wait). Pieces with no kernel,
// collective or wait are left out. The pipeline's sends and receives are not in it
// (pipeline_communicate_work).
struct StageStepWork {
  std::vector<FrameworkWork> before_layers, after_layers;
};
StageStepWork stage_step_work(PassKind pass, const TransformerModel& model,
                              const ParallelStrategy& strategy, const ArchitectureGraph& device,
                              bool first_chunk, bool last_chunk,
                              const FrameworkOptions& options = {});

}  // namespace ts
