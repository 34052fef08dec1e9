#include "training/MicroBatchWork.hpp"

#include <utility>

#include "training/LayerTimes.hpp"

namespace ts {

namespace {

// A piece of work: `kernels` launches moving `bytes` through HBM.
FrameworkWork counted_work(std::string what, double kernels, double bytes,
                           const ArchitectureGraph& device) {
  FrameworkWork w;
  w.what = std::move(what);
  w.kernels = kernels;
  w.hbm_bytes = bytes;
  const double hbm = hbm_bytes_per_s(device);
  w.device_s = hbm > 0 ? bytes / hbm : 0;
  return w;
}

void add_small_collective(FrameworkWork& w, CollectiveKind kind, std::string group, int64_t ranks,
                          double bytes, std::string what, bool broadcast = false) {
  if (ranks > 1) w.collectives.push_back({kind, broadcast, std::move(group), ranks, bytes, what});
}

double micro_batch_tokens(const TransformerModel& m, const ParallelStrategy& s) {
  return static_cast<double>(s.micro_batch.value) * static_cast<double>(m.seq_len);
}

// PyTorch 1.12 ATen/native/cuda/Embedding.cu embedding_dense_backward_cuda for `indices`
// tokens into a table of `rows` x h (16-bit), E = indices x h elements of gradient. Up to 3,072
// indices: at::zeros of the table (1) and embedding_backward_feature_kernel (1), reading the
// gradient and writing the rows it touches (2 + 2 bytes an element). More: the sorting path
// (EmbeddingBackwardKernel.cu embedding_backward_cuda_kernel): arange (1), cub's radix sort
// (counted as 1 launch: cub makes a few, a lower bound), unique_by_key (1) and
// num_of_segments.item() (a copy back, a wait), krn_partials_per_segment (1), exclusive_sum
// (1), krn_partial_segment_offset (1), two more .item() (num_of_partial_segments), the
// zeros (1), compute_grad_weight (1, fp32 partial sums: reads 2 and writes 4 bytes an
// element), sum_and_scatter (1, reads the 4 and writes 2): 12 kernels (copies counted), 12
// bytes an element besides the table's zeros. Later PyTorch versions drop the .item() waits.
FrameworkWork dense_embedding_backward(std::string what, double indices, double rows, double h,
                                       const ArchitectureGraph& device) {
  const double e = indices * h, table = 2 * rows * h;
  if (indices <= 3072) return counted_work(std::move(what), 2, table + 4 * e, device);
  FrameworkWork w = counted_work(std::move(what), 12, table + 12 * e, device);
  w.syncs_host = true;
  return w;
}

}  // namespace

std::vector<FrameworkWork> batch_step_pieces(const TransformerModel& m, const ParallelStrategy& s,
                                             const ArchitectureGraph& device) {
  const int64_t tp = s.tp.value;
  const double T = micro_batch_tokens(m, s), seq = static_cast<double>(m.seq_len);
  std::vector<FrameworkWork> pieces;
  // megatron/mpu/data.py (v2.x; core/tensor_parallel/data.py, v3.0) broadcast_data ->
  // _build_key_size_numel_dictionaries: sizes_cuda = torch.cuda.LongTensor(sizes) (a blocking
  // host-to-device copy of _MAX_DATA_DIM = 5 int64, for the one key 'text'), broadcast over
  // tp, sizes_cuda.cpu() (a copy back: the host waits). 2 copies, counted as kernels; 80 bytes,
  // not counted as HBM traffic.
  FrameworkWork sizes = counted_work("get_batch: sizes", 2, 0, device);
  add_small_collective(sizes, CollectiveKind::all_reduce, "tp", tp, 5 * 8,
                       "batch sizes (broadcast)", true);
  sizes.syncs_host = true;
  pieces.push_back(std::move(sizes));
  // torch.cat([...]).cuda() on tp rank 0 (a blocking copy of the tokens, after the wait above
  // on an empty queue: no further wait counted), then the broadcast of mb x (seq + 1) int64
  // (pretrain_gpt.py: the text holds one token more, for the labels).
  FrameworkWork data = counted_work("get_batch: tokens", 1, 0, device);
  add_small_collective(data, CollectiveKind::all_reduce, "tp", tp,
                       8 * static_cast<double>(s.micro_batch.value) * (seq + 1),
                       "tokens (broadcast)", true);
  pieces.push_back(std::move(data));
  // pretrain_gpt.py get_batch: labels = tokens_[:, 1:].contiguous(), tokens =
  // tokens_[:, :-1].contiguous() (2 kernels, int64: read 8 and write 8 bytes a token each);
  // megatron/utils.py get_ltor_masks_and_position_ids (no reset, no eod masking, one mask for
  // the batch): torch.ones((1, s, s)) (fp32, writes 4 s^2), torch.tril (reads and writes 4 s^2),
  // torch.ones(mb x s) loss mask (writes 4 T), torch.arange(s) (int64, 8 s), attention_mask <
  // 0.5 (reads 4 s^2, writes bool 1 s^2): 5 kernels. Bytes: 32 T + 17 s^2 + 4 T + 8 s.
  pieces.push_back(counted_work("get_batch: masks and position ids", 2 + 5,
                                36 * T + 17 * seq * seq + 8 * seq, device));
  return pieces;
}

FrameworkWork batch_step(const TransformerModel& m, const ParallelStrategy& s,
                         const ArchitectureGraph& device) {
  return total_work(batch_step_pieces(m, s, device), "get_batch");
}

FrameworkWork embedding_step(PassKind pass, const TransformerModel& m, const ParallelStrategy& s,
                             const ArchitectureGraph& device) {
  if (m.is_graph()) return counted_work("embedding", 0, 0, device);
  const int64_t etp = s.embedding_tensor_parallel(), tp = s.tp.value;
  const double h = static_cast<double>(m.hidden), T = micro_batch_tokens(m, s), E = T * h;
  const bool positions = m.family == ModelFamily::gpt || m.family == ModelFamily::bert;
  const bool sp = s.sequence_parallel && tp > 1;
  // After the scatter to the sequence-parallel region, dropout sees a tp-th of the tokens.
  const double after_scatter = sp ? E / static_cast<double>(tp) : E;
  if (pass == PassKind::forward) {
    // megatron/mpu/layers.py VocabParallelEmbedding.forward (v2.x/v3.0), with tp > 1:
    // input < start, input >= end, |, clone, - start, masked_input[mask] = 0 (a masked_fill: a
    // single bool index and a scalar, no wait), on mb x s tokens (bytes not counted); the
    // lookup (F.embedding: reads 2 and writes 2 bytes an element of E = mb x s x h); with tp >
    // 1 output_parallel[input_mask, :] = 0.0 (a masked_fill, 4 bytes an element); then
    // reduce_from_tensor_model_parallel_region, an all-reduce of the 16-bit output over tp.
    double kernels = etp > 1 ? 8 : 1;
    double bytes = etp > 1 ? 8 * E : 4 * E;
    // megatron/model/language_model.py Embedding.forward (v3.0): position lookup (4 bytes an
    // element) and the sum (reads 4, writes 2), gpt and bert; the [b s h] -> [s b h]
    // transpose(0, 1).contiguous() (4); with sequence parallelism the scatter to the region (a
    // tp-th copied: 4 E / tp); dropout (--hidden-dropout 0.1: fused_dropout, reads 2, writes 2
    // and a 1-byte mask).
    if (positions) {
      kernels += 2;
      bytes += 10 * E;
    }
    kernels += 1;
    bytes += 4 * E;
    if (sp) {
      kernels += 1;
      bytes += 4 * after_scatter;
    }
    kernels += 1;
    bytes += 5 * after_scatter;
    FrameworkWork w = counted_work("embedding forward", kernels, bytes, device);
    add_small_collective(w, CollectiveKind::all_reduce, "tp", etp, 2 * E, "embedding output");
    return w;
  }
  // Backward: dropout's (reads the gradient and the mask, writes: 5 bytes an element); with
  // sequence parallelism the scatter's backward, an all-gather over tp of the 16-bit gradient
  // (_gather_along_first_dim: no kernel besides NCCL's); the transpose's (4); the sum passes the
  // gradient on; with tp > 1 the masked_fill's (4); each table's dense gradient
  // (dense_embedding_backward); then Megatron's gradient hook adds it into main_grad
  // (megatron/model/distributed.py _make_param_hook: param.main_grad.add_(param.grad.data),
  // reading 4 + 2 and writing 4 bytes a table element, fp32 main grads).
  std::vector<FrameworkWork> pieces;
  FrameworkWork front = counted_work("embedding backward: dropout and transpose", 2,
                                     5 * after_scatter + 4 * E + (etp > 1 ? 4 * E : 0), device);
  if (etp > 1) front.kernels += 1;
  if (sp)
    add_small_collective(front, CollectiveKind::all_gather, "tp", tp, 2 * E, "embedding gradient");
  pieces.push_back(std::move(front));
  auto table = [&](std::string what, double rows) {
    pieces.push_back(dense_embedding_backward(what, T, rows, h, device));
    pieces.push_back(counted_work(what + ": add into main_grad", 1, 10 * rows * h, device));
  };
  if (positions) table("position embeddings backward", static_cast<double>(m.seq_len));
  table("word embeddings backward", static_cast<double>(m.vocab) / static_cast<double>(etp));
  return total_work(pieces, "embedding backward");
}

FrameworkWork loss_step(PassKind pass, const TransformerModel& m, const ParallelStrategy& s,
                        const ArchitectureGraph& device, const FrameworkOptions& options) {
  if (m.is_graph()) return counted_work("loss", 0, 0, device);
  const int64_t etp = s.embedding_tensor_parallel();
  const double T = micro_batch_tokens(m, s);
  const double logits = T * static_cast<double>(m.vocab) / static_cast<double>(etp);
  const bool cast = !options.fp16_lm_cross_entropy;
  const double d = cast ? 4 : 2;  // bytes of a logit in the cross entropy
  if (pass == PassKind::forward) {
    // megatron/model/gpt_model.py post_language_model_processing (v3.0): labels.transpose(0,
    // 1).contiguous() (1), output.float() (1 without --fp16-lm-cross-entropy: reads 2, writes
    // 4 bytes a logit), loss.transpose(0, 1).contiguous() (1). mpu/cross_entropy.py
    // _VocabParallelCrossEntropy.forward: torch.max over the vocabulary (reads d), all-reduce
    // (max); logits.sub_(max) (2 d); target < start, target >= end, |, clone, - start,
    // masked_target[mask] = 0, arange, logits_2d[arange, masked_target] (gather), clone,
    // predicted_logits[mask] = 0.0 (10 kernels on mb x s elements: bytes not counted);
    // all-reduce (sum) of the predicted logits; torch.exp(out=) (2 d); sum over the vocabulary
    // (d); all-reduce (sum); log and subtraction (2, per token); exp_logits.div_(sum) (2 d) for
    // the backward. 17 kernels, 8 d bytes a logit.
    const double kernels = 2 + (cast ? 1 : 0) + 17;
    FrameworkWork w = counted_work("cross entropy forward", kernels,
                                   (cast ? 6 : 0) * logits + 8 * d * logits, device);
    // Three all-reduces over the embedding's tensor-parallel ranks of mb x s fp32 each.
    add_small_collective(w, CollectiveKind::all_reduce, "tp", etp, 4 * T, "logits max");
    add_small_collective(w, CollectiveKind::all_reduce, "tp", etp, 4 * T, "target logits (sum)");
    add_small_collective(w, CollectiveKind::all_reduce, "tp", etp, 4 * T, "sum of exponentials");
    return w;
  }
  // _VocabParallelCrossEntropy.backward: arange (1); 1.0 - target_mask.view(-1).float() (2);
  // grad_2d[arange, masked_target] -= ... (index, sub, index_put: 3, per token);
  // grad_input.mul_(grad_output) (reads and writes d bytes a logit: 2 d); the loss
  // transpose's backward (1, per token); the fp32 cast's backward (reads 4, writes 2 bytes a
  // logit). 7 + 1 + 1 kernels.
  return counted_work("cross entropy backward", 7 + 1 + (cast ? 1 : 0),
                      2 * d * logits + (cast ? 6 : 0) * logits, device);
}

FrameworkWork loss_reduction_step(PassKind pass, const TransformerModel& m,
                                  const ParallelStrategy& s, const ArchitectureGraph& device) {
  const double T = micro_batch_tokens(m, s);
  if (pass == PassKind::forward) {
    // pretrain_gpt.py loss_func (v2.x/v3.0): losses.view(-1) * loss_mask (reads 4 + 4, writes 4
    // bytes a token), torch.sum (4), loss_mask.sum() (4), the division (1 kernel); the .float()
    // calls are no-ops (fp32 already). average_losses_across_data_parallel_group
    // (megatron/utils.py): clone, torch.cat, an all-reduce of one float over dp, the division
    // by dp (3 kernels). schedules.py forward_step: loss / get_num_microbatches() (1). 8
    // kernels, 20 bytes a token.
    FrameworkWork w = counted_work("loss function forward", 8, 20 * T, device);
    add_small_collective(w, CollectiveKind::all_reduce, "dp", s.dp.value, 4, "loss for logging");
    return w;
  }
  // schedules.py backward_step: optimizer.scale_loss(output) (1: the scale times the loss,
  // a constant 1 for bf16), torch.autograd.backward's ones_like (1), the backward of the
  // scaling (1), of the division by the micro-batches (1), of the division by the mask's sum
  // (1), of the product with the mask (1: reads 4 + 4, writes 4 bytes a token); the sum's
  // backward expands (no kernel). 6 kernels, 12 bytes a token.
  return counted_work("loss function backward", 6, 12 * T, device);
}

FrameworkWork step_timers(PassKind pass, const FrameworkOptions& options) {
  FrameworkWork w;
  w.what = pass == PassKind::forward ? "timers('forward-compute')" : "timers('backward-compute')";
  w.syncs_host = options.timers_synchronize;
  return w;
}

FrameworkWork embedding_grad_sync(const TransformerModel& m, const ParallelStrategy& s,
                                  double grad_bytes) {
  FrameworkWork w;
  w.what = "word embedding gradient all-reduce";
  // Tied: every family but llama (TransformerModel::parameters counts its output layer apart)
  // and graph models (no embedding).
  const bool tied = !m.is_graph() && m.family != ModelFamily::llama;
  if (s.pp.value <= 1 || !tied) return w;
  const double rows =
      static_cast<double>(m.vocab) / static_cast<double>(s.embedding_tensor_parallel());
  // megatron/training.py (v2.x) / optimizer.py (v3.0) _allreduce_word_embedding_grads:
  // torch.distributed.all_reduce(word_embeddings_weight.main_grad, group=embedding_group), the
  // first and the last stage.
  add_small_collective(w, CollectiveKind::all_reduce, "embedding", 2,
                       grad_bytes * rows * static_cast<double>(m.hidden),
                       "word embedding gradient");
  return w;
}

FrameworkWork sequence_parallel_grad_sync(const TransformerModel& m, const ParallelStrategy& s,
                                          const ArchitectureGraph& device, double grad_bytes) {
  if (!s.sequence_parallel || s.tp.value <= 1)
    return counted_work("sequence-parallel gradient all-reduce", 0, 0, device);
  // training.py _allreduce_layernorm_grads (v3.0): the main_grad of every parameter marked
  // `sequence_parallel` (norms, row-parallel biases: ParameterTensor::sequence_parallel),
  // _flatten_dense_tensors (torch.cat: 1 kernel, reads and writes grad_bytes a parameter),
  // all-reduce over tp, then buf.copy_(synced) per tensor (reads and writes grad_bytes).
  double tensors = 0, params = 0;
  for (const ParameterTensor& t : parameter_tensors_per_gpu(m, s))
    if (t.sequence_parallel) {
      tensors += 1;
      params += t.numel;
    }
  FrameworkWork w = counted_work("sequence-parallel gradient all-reduce", 1 + tensors,
                                 4 * grad_bytes * params, device);
  add_small_collective(w, CollectiveKind::all_reduce, "tp", s.tp.value, grad_bytes * params,
                       "norm and row-parallel bias gradients");
  return w;
}

FrameworkWork pipeline_communicate_work(const TransformerModel& m, const ParallelStrategy& s,
                                        bool receives) {
  FrameworkWork w;
  w.what = "p2p_communication._communicate";
  if (s.pp.value <= 1) return w;
  // v3.0: the scatter-gather applies without sequence parallelism (with it the tensor is a
  // tp-th already); gather_split_1d_tensor: torch.empty and _all_gather_base (no other kernel).
  if (receives && !s.sequence_parallel)
    add_small_collective(w, CollectiveKind::all_gather, "tp", s.tp.value,
                         2 * micro_batch_tokens(m, s) * static_cast<double>(m.hidden),
                         "received activation");
  w.syncs_host = true;
  return w;
}

StageStepWork stage_step_work(PassKind pass, const TransformerModel& m, const ParallelStrategy& s,
                              const ArchitectureGraph& device, bool first_chunk, bool last_chunk,
                              const FrameworkOptions& options) {
  StageStepWork out;
  auto keep = [](std::vector<FrameworkWork>& to, FrameworkWork w) {
    if (w.kernels > 0 || w.syncs_host || !w.collectives.empty()) to.push_back(std::move(w));
  };
  keep(out.before_layers, step_timers(pass, options));
  if (pass == PassKind::forward) {
    // pretrain_gpt.py forward_step calls get_batch on every stage (the masks and position ids
    // feed every layer).
    for (FrameworkWork& w : batch_step_pieces(m, s, device)) keep(out.before_layers, w);
    if (first_chunk) keep(out.before_layers, embedding_step(pass, m, s, device));
    if (last_chunk) {
      keep(out.after_layers, loss_step(pass, m, s, device, options));
      keep(out.after_layers, loss_reduction_step(pass, m, s, device));
    }
  } else {
    if (last_chunk) {
      keep(out.before_layers, loss_reduction_step(pass, m, s, device));
      keep(out.before_layers, loss_step(pass, m, s, device, options));
    }
    if (first_chunk) keep(out.after_layers, embedding_step(pass, m, s, device));
  }
  keep(out.after_layers, step_timers(pass, options));
  return out;
}

}  // namespace ts
