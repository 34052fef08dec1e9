#include "training/OptimizerStep.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "training/LayerTimes.hpp"

namespace ts {

FrameworkWork total_work(const std::vector<FrameworkWork>& pieces, std::string what) {
  FrameworkWork sum;
  sum.what = std::move(what);
  for (const FrameworkWork& p : pieces) {
    sum.device_s += p.device_s;
    sum.hbm_bytes += p.hbm_bytes;
    sum.kernels += p.kernels;
    sum.host_s += p.host_s;
    sum.syncs_host = sum.syncs_host || p.syncs_host;
    sum.collectives.insert(sum.collectives.end(), p.collectives.begin(), p.collectives.end());
  }
  return sum;
}

int64_t multi_tensor_apply_launches(const std::vector<double>& numel, int depth,
                                    int64_t chunk_size) {
  // apex csrc/multi_tensor_apply.cuh (and PyTorch 1.12 ATen/native/cuda/MultiTensorApply.cuh):
  // constexpr int depth_to_max_tensors[5] = {110, 64, 48, 36, 30};
  // constexpr int depth_to_max_blocks[5] = {320, 320, 320, 320, 320};
  static constexpr int kMaxTensors[5] = {110, 64, 48, 36, 30};
  static constexpr int kMaxBlocks = 320;
  const int max_tensors = kMaxTensors[std::clamp(depth, 1, 5) - 1];
  // Empty tensors carry no chunk (PyTorch skips them; so does the count here).
  std::vector<int64_t> sizes;
  for (double n : numel)
    if (n >= 1) sizes.push_back(std::llround(n));
  int64_t launches = 0;
  int blocks = 0, tensors = 0;
  for (size_t t = 0; t < sizes.size(); ++t) {
    ++tensors;
    const int64_t chunks = (sizes[t] + chunk_size - 1) / chunk_size;
    for (int64_t chunk = 0; chunk < chunks; ++chunk) {
      ++blocks;
      const bool tensor_done = chunk == chunks - 1;
      const bool tensors_full = tensors == max_tensors && tensor_done;
      const bool blocks_full = blocks == kMaxBlocks;
      const bool last_chunk = t + 1 == sizes.size() && tensor_done;
      if (tensors_full || blocks_full || last_chunk) {
        ++launches;
        blocks = 0;
        // A tensor cut in the middle starts the next launch's list.
        tensors = tensor_done ? 0 : 1;
      }
    }
  }
  return launches;
}

namespace {

// One GPT-like layer's tensors (Megatron-LM v3.0 megatron/model/transformer.py
// ParallelTransformerLayer, in module order): input norm, attention (QKV column-parallel,
// output row-parallel: its bias replicated), post-attention norm, MLP (h -> ffn column-parallel,
// ffn -> h row-parallel), for `experts` / ep local experts after a replicated router.
void add_layer_tensors(std::vector<ParameterTensor>& out, const TransformerModel& m,
                       const ParallelStrategy& s, bool cross_attention) {
  const double h = static_cast<double>(m.hidden), f = static_cast<double>(m.ffn);
  const double tp = static_cast<double>(s.tp.value);
  const bool llama = m.family == ModelFamily::llama;
  auto norm = [&](const std::string& name) {
    out.push_back({name + ".weight", h, false, true});
    if (!llama) out.push_back({name + ".bias", h, false, true});
  };
  auto linear = [&](const std::string& name, double rows, double cols, bool row_parallel) {
    // Column-parallel: rows / tp of the output, bias split alike; row-parallel: cols / tp of
    // the input, bias whole (replicated, added after the all-reduce).
    out.push_back({name + ".weight", rows * cols / tp, true, false});
    if (!llama)
      out.push_back({name + ".bias", row_parallel ? rows : rows / tp, false, row_parallel});
  };
  norm("input_layernorm");
  linear("self_attention.query_key_value", 3 * h, h, false);
  linear("self_attention.dense", h, h, true);
  norm("post_attention_layernorm");
  if (cross_attention) {
    // megatron/model/transformer.py ParallelAttention(attention_type=cross_attn): query,
    // key_value, dense; then post_inter_attention_layernorm.
    linear("inter_attention.query", h, h, false);
    linear("inter_attention.key_value", 2 * h, h, false);
    linear("inter_attention.dense", h, h, true);
    norm("post_inter_attention_layernorm");
  }
  // --swiglu fuses gate and up into one h -> 2 ffn GEMM (megatron/model/transformer.py
  // ParallelMLP, Megatron-LM v3.x).
  const double up_rows = llama ? 2 * f : f;
  int64_t local_experts = 1;
  std::string mlp = "mlp";
  if (m.experts > 1) {
    out.push_back({"mlp.router.weight", h * static_cast<double>(m.experts), true, false});
    local_experts = m.experts / std::max<int64_t>(1, s.ep.value);
    mlp = "mlp.experts";
  }
  for (int64_t e = 0; e < local_experts; ++e) {
    const std::string prefix = m.experts > 1 ? mlp + "." + std::to_string(e) : mlp;
    linear(prefix + ".dense_h_to_4h", up_rows, h, false);
    linear(prefix + ".dense_4h_to_h", h, f, true);
  }
}

}  // namespace

std::vector<ParameterTensor> parameter_tensors_per_gpu(const TransformerModel& m,
                                                       const ParallelStrategy& s) {
  std::vector<ParameterTensor> out;
  const int64_t stage_layers = m.layers / std::max<int64_t>(1, s.pp.value);
  if (m.is_graph()) {
    const double tp = static_cast<double>(s.tp.value);
    for (int64_t l = 0; l < stage_layers; ++l) {
      for (const BlockOperator& op : m.block.operators) {
        const double w = op.weight_parameters();
        if (w <= 0) continue;
        const bool split = op.split == TensorSplit::column || op.split == TensorSplit::row;
        out.push_back({op.name + ".weight", split ? w / tp : w, true, false});
      }
      if (m.block.extra_parameters > 0)
        out.push_back({"extra", m.block.extra_parameters, false, true});
    }
    return out;
  }
  const double h = static_cast<double>(m.hidden);
  // Megatron-LM v3.0 megatron/model/language_model.py Embedding: word embeddings
  // (VocabParallelEmbedding, vocab / tp rows), learned positions (gpt, bert; as
  // TransformerModel::parameters counts them).
  const double vocab_rows =
      static_cast<double>(m.vocab) / static_cast<double>(s.embedding_tensor_parallel());
  out.push_back({"word_embeddings.weight", vocab_rows * h, true, false});
  if (m.family == ModelFamily::gpt || m.family == ModelFamily::bert)
    out.push_back({"position_embeddings.weight", static_cast<double>(m.seq_len) * h, true, false});
  // T5: the second half of the layers are decoder layers; a stage holds its share of them.
  const int64_t decoder_layers = m.family == ModelFamily::t5 ? stage_layers / 2 : 0;
  for (int64_t l = 0; l < stage_layers; ++l)
    add_layer_tensors(out, m, s, l >= stage_layers - decoder_layers);
  out.push_back({"final_layernorm.weight", h, false, true});
  if (m.family != ModelFamily::llama) out.push_back({"final_layernorm.bias", h, false, true});
  if (m.family ==
      ModelFamily::llama)  // untied output layer (--untie-embeddings-and-output-weights)
    out.push_back({"output_layer.weight", vocab_rows * h, true, false});
  return out;
}

namespace {

// The part of each tensor that falls in one data-parallel rank's shard of the gradient buffer
// (the distributed optimizer's), in the optimizer's order, split by parameter group.
struct OptimizerShard {
  std::vector<double> weight_decay, no_weight_decay, all;
};

// Megatron-LM v3.0 megatron/model/distributed.py DistributedDataParallel: the buffer holds the
// parameters in reverse order (backward's), padded to a multiple of dp
// (--use-distributed-optimizer); distrib_optimizer.py gives rank r the r-th dp-th of it.
// Returns the shard of the rank with the most tensors (the one that launches the most).
OptimizerShard largest_optimizer_shard(const std::vector<ParameterTensor>& tensors, int64_t dp) {
  double total = 0;
  for (const ParameterTensor& t : tensors) total += std::round(t.numel);
  const double per_rank = std::ceil(total / static_cast<double>(dp));
  // Buffer offsets: the last parameter first.
  std::vector<double> start(tensors.size());
  double offset = 0;
  for (size_t i = tensors.size(); i-- > 0;) {
    start[i] = offset;
    offset += std::round(tensors[i].numel);
  }
  OptimizerShard best;
  for (int64_t r = 0; r < dp; ++r) {
    const double lo = per_rank * static_cast<double>(r), hi = lo + per_rank;
    OptimizerShard shard;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const double a = std::max(lo, start[i]);
      const double b = std::min(hi, start[i] + std::round(tensors[i].numel));
      if (b <= a) continue;
      (tensors[i].weight_decay ? shard.weight_decay : shard.no_weight_decay).push_back(b - a);
      shard.all.push_back(b - a);
    }
    if (shard.all.size() > best.all.size()) best = std::move(shard);
  }
  return best;
}

}  // namespace

std::vector<FrameworkWork> optimizer_step_pieces(const TransformerModel& m,
                                                 const ParallelStrategy& s,
                                                 const ArchitectureGraph& device,
                                                 const OptimizerOptions& options) {
  const std::vector<ParameterTensor> tensors = parameter_tensors_per_gpu(m, s);
  const bool zero = s.zero.value >= 1;
  const int64_t dp = s.dp.value;
  const double hbm = hbm_bytes_per_s(device);
  // The main_grad buffer: fp32 or the 16-bit parameters' type (Megatron-LM v3.0
  // megatron/model/distributed.py: dtype = torch.float if accumulate_allreduce_grads_in_fp32
  // else params_dtype). Model parameters are 16-bit (Float16Module), the optimizer's main
  // parameters, moments and gradients fp32 (apex FusedAdam on fp32 lists).
  const double grad_bytes = options.fp32_main_grads ? 4.0 : 2.0;
  const bool fp16 = options.precision == MixedPrecision::fp16;

  // What the optimizer proper works on: every tensor whole, or (ZeRO) the pieces of this
  // rank's shard.
  std::vector<double> all, wd, nwd;
  double params = 0;
  for (const ParameterTensor& t : tensors) {
    all.push_back(t.numel);
    (t.weight_decay ? wd : nwd).push_back(t.numel);
    params += t.numel;
  }
  double step_params = params;
  if (zero && dp > 1) {
    OptimizerShard shard = largest_optimizer_shard(tensors, dp);
    all = std::move(shard.all);
    wd = std::move(shard.weight_decay);
    nwd = std::move(shard.no_weight_decay);
    step_params = std::ceil(params / static_cast<double>(dp));
  }
  const double step_tensors = static_cast<double>(all.size());
  // The group of the found-inf and norm all-reduces: Megatron's model-parallel group (tp x pp,
  // optimizer.py MixedPrecisionOptimizer.get_model_parallel_group), or with the distributed
  // optimizer every GPU (distrib_optimizer.py: get_model_parallel_group returns None).
  const std::string mp_group = zero ? "world" : "model-parallel";
  const int64_t mp_ranks = zero ? s.gpus() : s.tp.value * s.pp.value;

  std::vector<FrameworkWork> pieces;
  auto piece = [&](std::string what, double kernels, double bytes) -> FrameworkWork& {
    FrameworkWork w;
    w.what = std::move(what);
    w.kernels = kernels;
    w.hbm_bytes = bytes;
    w.device_s = hbm > 0 ? bytes / hbm : 0;
    pieces.push_back(std::move(w));
    return pieces.back();
  };
  auto one_float = [&](FrameworkWork& w, std::string what) {
    if (mp_ranks > 1)
      w.collectives.push_back(
          {CollectiveKind::all_reduce, false, mp_group, mp_ranks, 4, std::move(what)});
  };

  // 1. _copy_model_grads_to_main_grads (optimizer.py Float16OptimizerWithFloat16Params;
  // distrib_optimizer.py alike on the shard): main_param.grad = model_param.main_grad.float(),
  // a cast kernel per tensor from a 16-bit buffer (read 2, write 4 bytes per parameter), none
  // from an fp32 one (.float() returns the tensor itself).
  if (!options.fp32_main_grads)
    piece("optimizer: cast grads to fp32", step_tensors, 6 * step_params);

  // 2. fp16: _unscale_main_grads_and_check_for_nan: found_inf.fill_(0.0) (1 kernel); the
  // scaler's inv_scale, self._scale.double().reciprocal().float() (grad_scaler.py: 3 kernels);
  // torch._amp_foreach_non_finite_check_and_unscale_ over the main grads (PyTorch's
  // multi_tensor_apply, depth 1; reads and writes each fp32 grad: 8 bytes per parameter); an
  // all-reduce (max) of found_inf, one float; found_inf.item() waits for it.
  if (fp16) {
    FrameworkWork& w =
        piece("optimizer: unscale and inf check",
              4 + static_cast<double>(multi_tensor_apply_launches(all, 1)), 8 * step_params);
    one_float(w, "found_inf (max)");
    w.syncs_host = true;
  }

  // 3. clip_grad_norm_fp32 (megatron/optimizer/clip_grads.py, v3.0), norm 2:
  // dummy_overflow_buf = torch.cuda.IntTensor([0]), a blocking host-to-device copy (1, counted
  // as a kernel; it waits for the queue too, which the .item() below does anyway);
  // multi_tensor_applier(amp_C.multi_tensor_l2norm, ...): at::zeros({320}) (1), the launches
  // (depth 1), the cleanup kernel (1) (apex csrc/multi_tensor_l2norm_kernel.cu); grad_norm **
  // 2 (1); all-reduce (sum) over the model-parallel group, one float; total_norm.item(). The
  // norm reads each fp32 grad once (4 bytes). Its grads exclude tensor-parallel duplicates on
  // ranks other than 0 (get_main_grads_for_grad_norm): rank 0, the slowest, reads them all.
  if (options.clip_grad) {
    FrameworkWork& norm =
        piece("optimizer: clip: grad norm",
              4 + static_cast<double>(multi_tensor_apply_launches(all, 1)), 4 * step_params);
    one_float(norm, "grad norm squared (sum)");
    norm.syncs_host = true;
    // clip_coeff = max_norm / (total_norm + 1e-6) < 1: a new torch.cuda.IntTensor([0]) (1)
    // and multi_tensor_scale over [grads, grads] (depth 2; reads and writes 4 bytes).
    if (options.clip_scales)
      piece("optimizer: clip: scale grads",
            1 + static_cast<double>(multi_tensor_apply_launches(all, 2)), 8 * step_params);
  }

  // 4. self.optimizer.step(): apex FusedAdam (apex/optimizers/fused_adam.py), one
  // multi_tensor_applier(multi_tensor_adam, ..., [g_32, p_32, m_32, v_32], ...) per parameter
  // group (weight decay and none: Megatron's two), depth 4. Per parameter the AdamFunctor
  // (apex csrc/multi_tensor_adam.cu) loads grad, param, exp_avg, exp_avg_sq and stores param,
  // exp_avg, exp_avg_sq, all fp32: 7 x 4 = 28 bytes.
  piece(
      "optimizer: adam",
      static_cast<double>(multi_tensor_apply_launches(wd, 4) + multi_tensor_apply_launches(nwd, 4)),
      28 * step_params);

  const double model_tensors = static_cast<double>(tensors.size());
  if (!zero || dp == 1) {
    // 5. _copy_main_params_to_model_params (optimizer.py v3.0) calls
    // _multi_tensor_copy_this_to_that(main, model, self._dummy_overflow_buf). Its
    // `if overflow_buf:` tests the one-element CUDA tensor: for bf16 it is None; for fp16 it
    // holds 0 (IntTensor([0]), filled with 0), so bool() is False after a blocking read of it
    // (a host wait). Both then take the loop: that_.copy_(this_), a kernel per tensor, reading
    // 4 bytes and writing 2 per parameter.
    if (fp16) {
      FrameworkWork& check = piece("optimizer: copy: overflow buffer test", 0, 0);
      check.syncs_host = true;
    }
    piece("optimizer: copy main params to model params", model_tensors, 6 * step_params);
  } else {
    // 5'. DistributedOptimizer._copy_main_params_to_model_params (distrib_optimizer.py v3.0):
    // each shard main param copied into its view of the gradient buffer (model_param.main_grad,
    // in the buffer's dtype): a kernel per shard piece, 4 + grad_bytes per parameter.
    piece("optimizer: copy main params into the grad buffer", step_tensors,
          (4 + grad_bytes) * step_params);
    // gather_model_params: torch.distributed._all_gather_base of the whole (padded) gradient
    // buffer over dp, then param.detach().copy_(param.main_grad) for every model parameter
    // (a kernel each, reading grad_bytes and writing 2 per parameter).
    FrameworkWork& gather =
        piece("optimizer: gather model params", model_tensors, (grad_bytes + 2) * params);
    gather.collectives.push_back({CollectiveKind::all_gather, false, "dp", dp,
                                  grad_bytes * step_params * static_cast<double>(dp),
                                  "updated parameters (the grad buffer)"});
  }

  // 6. train_step (megatron/training.py v3.0) begins with model.zero_grad_buffer():
  // buffer_.zero() per buffer dtype, one fill of the whole buffer (grad_bytes per parameter);
  // optimizer.zero_grad() sets .grad = None (host only, no kernel).
  piece("zero grad buffer", 1, grad_bytes * params);
  return pieces;
}

FrameworkWork optimizer_step(const TransformerModel& m, const ParallelStrategy& s,
                             const ArchitectureGraph& device, const OptimizerOptions& options) {
  return total_work(optimizer_step_pieces(m, s, device, options), "optimizer step");
}

}  // namespace ts
