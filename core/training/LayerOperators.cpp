#include "training/LayerOperators.hpp"

#include <fmt/format.h>

#include "workload/OperatorBuilders.hpp"

namespace ts {

std::string_view to_string(Recompute r) {
  switch (r) {
    case Recompute::none:
      return "none";
    case Recompute::selective:
      return "selective";
    case Recompute::full:
      return "full";
  }
  return "none";
}

namespace {

const char* const kCoreParts[] = {"score", "softmax", "dropout", "context"};

// The model field that sets an operator's size: where a message about an operator too large for
// its device points, and what it names, so that the person knows which number to shrink.
struct SizeField {
  std::string_view key;
  int64_t value = 0;
  SourceLocation where;
};

const SizeField& larger(const SizeField& a, const SizeField& b) {
  return b.value > a.value ? b : a;
}

Operator sized_by(Operator op, const TransformerModel& m, const SizeField& field,
                  int64_t micro_batch, int64_t tp) {
  op.where = field.where;
  op.sized_by = fmt::format(
      "of model '{}', sized by its `{}` {} at micro-batch {} on {} "
      "tensor-parallel shard{}",
      m.name, field.key, field.value, micro_batch, tp, tp == 1 ? "" : "s");
  return op;
}

// The attention core on `tp` shards: scores, Megatron's fused scale-mask-softmax, dropout of the
// probabilities (a multiply by the mask), context. `kv_len` is the length attended over (the
// encoder's for cross-attention).
void append_attention_core(std::vector<Operator>& ops, const std::string& prefix,
                           const TransformerModel& m, int64_t b, int64_t tp, int64_t kv_len) {
  const int64_t heads = m.heads / tp, head_dim = m.hidden / m.heads, s = m.seq_len;
  const int64_t rows = b * heads * s;
  // The scores and probabilities grow with the square of the sequence: `seq_len` sizes them.
  const SizeField by_seq_len{"seq_len", m.seq_len, m.seq_len_where};
  ops.push_back(sized_by(make_batched_gemm(prefix + "score", b * heads, s, kv_len, head_dim), m,
                         by_seq_len, b, tp));
  ops.push_back(
      sized_by(make_fused_chain(prefix + "softmax", {"scale", "mask", "softmax"}, rows, kv_len), m,
               by_seq_len, b, tp));
  ops.push_back(
      sized_by(make_vector_op(prefix + "dropout", "mul", rows, kv_len), m, by_seq_len, b, tp));
  ops.push_back(sized_by(make_batched_gemm(prefix + "context", b * heads, s, head_dim, kv_len), m,
                         by_seq_len, b, tp));
}

}  // namespace

bool is_attention_core(const std::string& name) {
  for (const char* prefix : {"attn_", "cross_"})
    for (const char* part : kCoreParts)
      if (name == std::string(prefix) + part) return true;
  return false;
}

bool recomputed_selectively(const TransformerModel& m, const std::string& name) {
  if (!m.is_graph()) return is_attention_core(name);
  const BlockOperator* op = m.block.find(name);
  return op != nullptr && op->recompute_selective;
}

bool split_by_sequence_parallelism(const TransformerModel& m, const Operator& op) {
  const bool vector = op.matmul_flops() == 0;
  // The MLP's activation works on its ffn / tp shard, inside the tensor-parallel region: it is
  // split already, not again by sequence.
  if (!m.is_graph()) return vector && !is_attention_core(op.name) && op.name != "mlp_act";
  const BlockOperator* b = m.block.find(op.name);
  return vector && b != nullptr && b->split == TensorSplit::none;
}

std::vector<double> tensor_parallel_all_reduce_bytes(const TransformerModel& m, int64_t micro_batch,
                                                     int64_t tp) {
  if (!m.is_graph()) {
    const double activations = static_cast<double>(micro_batch * m.seq_len * m.hidden) * 2;
    return {activations, activations};
  }
  std::vector<double> bytes;
  for (const BlockOperator& b : m.block.operators)
    if (b.split == TensorSplit::row) {
      // The output is whole on every rank (K was split): each holds a partial sum of it.
      const Operator op = b.on_rank(micro_batch, tp);
      bytes.push_back(op.tensor_bytes(op.stages.back().output));
    }
  return bytes;
}

std::vector<Operator> layer_forward_operators(const TransformerModel& m, int64_t micro_batch,
                                              int64_t tp, bool decoder) {
  if (m.is_graph()) return m.block.forward_operators(micro_batch, tp);
  const int64_t b = micro_batch, h = m.hidden, s = m.seq_len, tokens = b * s;
  // An operator over tokens x hidden (or x ffn in the MLP) grows with both sizes alike: the
  // larger of the two is the one to name. The attention core grows with the square of seq_len
  // (append_attention_core).
  const SizeField by_seq_len{"seq_len", m.seq_len, m.seq_len_where};
  const SizeField by_hidden = larger(SizeField{"hidden", m.hidden, m.hidden_where}, by_seq_len);
  const SizeField by_ffn = larger(SizeField{"ffn", m.ffn, m.ffn_where}, by_seq_len);
  std::vector<Operator> ops;
  auto add = [&](Operator op, const SizeField& field) {
    ops.push_back(sized_by(std::move(op), m, field, b, tp));
  };
  add(make_vector_op("ln_attn", "layernorm", tokens, h), by_hidden);
  add(make_gemm("qkv", tokens, 3 * h / tp, h), by_hidden);
  append_attention_core(ops, "attn_", m, b, tp, s);
  add(make_gemm("attn_proj", tokens, h, h / tp), by_hidden);
  // Megatron's fused bias-dropout-add after each block: the projection's bias, dropout (a multiply
  // by the mask) and the residual.
  add(make_fused_chain("attn_bias_dropout_add", {"bias", "mul", "add"}, tokens, h), by_hidden);
  if (decoder) {
    add(make_vector_op("ln_cross", "layernorm", tokens, h), by_hidden);
    add(make_gemm("cross_q", tokens, h / tp, h), by_hidden);
    add(make_gemm("cross_kv", tokens, 2 * h / tp, h), by_hidden);
    append_attention_core(ops, "cross_", m, b, tp, s);
    add(make_gemm("cross_proj", tokens, h, h / tp), by_hidden);
    add(make_fused_chain("cross_bias_dropout_add", {"bias", "mul", "add"}, tokens, h), by_hidden);
  }
  add(make_vector_op("ln_mlp", "layernorm", tokens, h), by_hidden);
  // A token visits top_k experts; with one expert this is the dense MLP.
  const int64_t routed = tokens * m.top_k, f = m.ffn / tp;
  if (m.experts > 1) add(make_gemm("router", tokens, m.experts, h), by_hidden);
  if (m.family == ModelFamily::llama) {
    add(make_gemm("mlp_gate_up", routed, 2 * f, h), by_ffn);
    add(make_vector_op("mlp_act", "mul", routed, f), by_ffn);
  } else {
    add(make_gemm("mlp_up", routed, f, h), by_ffn);
    add(make_fused_chain("mlp_act", {"bias", "gelu"}, routed, f), by_ffn);  // fused bias-GeLU
  }
  add(make_gemm("mlp_down", routed, h, f), by_ffn);
  add(make_fused_chain("mlp_bias_dropout_add", {"bias", "mul", "add"}, tokens, h), by_hidden);
  return ops;
}

Operator logits_operator(const TransformerModel& m, int64_t micro_batch, int64_t tp) {
  return sized_by(make_gemm("logits", micro_batch * m.seq_len, m.vocab / tp, m.hidden), m,
                  larger(SizeField{"vocab", m.vocab, m.vocab_where},
                         SizeField{"seq_len", m.seq_len, m.seq_len_where}),
                  micro_batch, tp);
}

double iteration_matmul_flops(const TransformerModel& m, int64_t global_batch,
                              Recompute recompute) {
  if (m.is_graph()) {
    double fwd = 0, marked = 0;
    for (const Operator& op : m.block.forward_operators(global_batch, 1)) {
      fwd += op.matmul_flops();
      if (recomputed_selectively(m, op.name)) marked += op.matmul_flops();
    }
    const auto layers = static_cast<double>(m.layers);
    double total = 3 * layers * fwd;
    if (recompute == Recompute::full) total += layers * fwd;
    if (recompute == Recompute::selective) total += layers * marked;
    return total;
  }
  const int64_t decoders = m.family == ModelFamily::t5 ? m.layers / 2 : 0;
  // One encoder-type layer and, for t5, one decoder layer, times their counts.
  auto layer_flops = [&](bool decoder, double& core) {
    double total = 0;
    core = 0;
    for (const Operator& op : layer_forward_operators(m, global_batch, 1, decoder)) {
      const double f = op.matmul_flops();
      total += f;
      if (is_attention_core(op.name)) core += f;
    }
    return total;
  };
  double core_enc = 0, core_dec = 0;
  const double enc = layer_flops(false, core_enc);
  const double dec = decoders > 0 ? layer_flops(true, core_dec) : 0;
  const auto encoders = static_cast<double>(m.layers - decoders);
  const double layers_fwd = encoders * enc + static_cast<double>(decoders) * dec;
  const double core_fwd = encoders * core_enc + static_cast<double>(decoders) * core_dec;
  const double logits_fwd = logits_operator(m, global_batch, 1).matmul_flops();
  // Backward: gradients with respect to the inputs and to the weights, each as large as the
  // forward pass.
  double total = 3 * (layers_fwd + logits_fwd);
  if (recompute == Recompute::full) total += layers_fwd;
  if (recompute == Recompute::selective) total += core_fwd;
  return total;
}

}  // namespace ts
