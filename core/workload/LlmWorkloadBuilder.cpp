// The operators of one forward pass of a transformer, from its hyper-parameters
// (docs/formats.md, `kind: llm-model`; docs/analysis.md, "Time per token").
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "workload/LlmModel.hpp"
#include "workload/LlmOperators.hpp"
#include "workload/OperatorBuilders.hpp"

namespace ts {
namespace {

class PassBuilder {
 public:
  PassBuilder(const LlmModel& m, const LlmPass& p) : m_(m), p_(p) {
    tokens_ = p.phase == LlmPhase::decode ? p.batch : p.batch * p.tokens;
    head_dim_ = m.head_dim > 0 ? m.head_dim : m.hidden / m.heads;
  }

  Workload build() {
    Workload w;
    w.name = m_.name + (p_.phase == LlmPhase::decode ? "-decode" : "-prefill");
    w.description = m_.description;
    w.batch = p_.batch;
    w.seq_len = p_.phase == LlmPhase::decode ? p_.context : p_.tokens;
    w.phase = p_.phase == LlmPhase::decode ? "decode" : "prefill";
    w.tokens_per_pass = tokens_;
    if (m_.family == LlmFamily::dit)
      dit_block();
    else
      decoder_layer();
    for (Operator& op : ops_) op.count = m_.layers;
    if (m_.vocab > 0) lm_head();
    w.operators = std::move(ops_);
    return w;
  }

 private:
  void add(Operator op) { ops_.push_back(std::move(op)); }

  // A projection of the tokens by a weight matrix K x N, in the model's weight format.
  void projection(const std::string& name, int64_t rows, int64_t n, int64_t k) {
    if (m_.weights == DataType::int4)
      add(make_quant_gemm(name, rows, n, k, m_.group, m_.dtype));
    else if (m_.weights == DataType::int8)  // W8A8: int8 activations too, int32 out
      add(make_gemm(name, rows, n, k, DataType::int8, DataType::int32));
    else
      add(make_gemm(name, rows, n, k, m_.weights));
  }

  void attention(int64_t batch, int64_t queries) {
    const int64_t group = m_.heads / m_.kv_heads;
    if (p_.phase == LlmPhase::decode) {
      const int64_t bh = batch * m_.kv_heads;
      const int64_t splits = p_.kv_splits > 0 ? p_.kv_splits : llm_kv_splits(bh, p_.context);
      add(make_decode_attention("attention", bh, group, p_.context, splits, head_dim_, m_.dtype));
    } else {
      add(make_prefill_attention("attention", batch * m_.kv_heads, group, queries, queries,
                                 head_dim_, m_.dtype));
    }
  }

  void decoder_layer() {
    const int64_t t = tokens_, h = m_.hidden, q_width = m_.heads * head_dim_,
                  kv_width = m_.kv_heads * head_dim_;
    add(make_rmsnorm("attn_norm", t, h, m_.dtype));
    projection("qkv_proj", t, q_width + 2 * kv_width, h);
    add(make_rope("rope", t, m_.heads + m_.kv_heads, head_dim_, m_.dtype));  // Q and K
    attention(p_.batch, p_.tokens);
    projection("o_proj", t, h, q_width);
    add(make_vector_op("attn_residual", "add", t, h, m_.dtype));
    add(make_rmsnorm("ffn_norm", t, h, m_.dtype));
    if (m_.experts > 1) {
      // The router scores every expert in the model's type; the experts' GEMMs take each
      // expert's share of the t x top_k assignments.
      add(make_gemm("router", t, m_.experts, h, m_.dtype));
      const std::vector<int64_t> load = llm_expert_tokens(m_, t * m_.top_k);
      add(make_grouped_gemm("experts_gate_up", load, 2 * m_.ffn, h, m_.dtype));
      add(make_silu_mul("experts_act", t * m_.top_k, m_.ffn, m_.dtype));
      add(make_grouped_gemm("experts_down", load, h, m_.ffn, m_.dtype));
    } else {
      projection("gate_up_proj", t, 2 * m_.ffn, h);  // gate and up in one GEMM
      add(make_silu_mul("ffn_act", t, m_.ffn, m_.dtype));
      projection("down_proj", t, h, m_.ffn);
    }
    add(make_vector_op("ffn_residual", "add", t, h, m_.dtype));
  }

  // DiT (Peebles and Xie 2023, Fig. 3): adaLN-Zero. The conditioning regresses six vectors of
  // `hidden` per sequence (shift, scale, gate for attention and MLP); each LayerNorm is
  // modulated by a scale and a shift, each branch's output gated before the residual add. A
  // per-sequence vector over the columns is read as a `bias` row (exact at batch 1).
  void dit_block() {
    const int64_t t = tokens_, h = m_.hidden;
    add(make_gemm("adaln_modulation", p_.batch, 6 * h, h, m_.dtype));
    add(make_fused_chain("attn_norm_modulate", {"layernorm", "bias", "bias"}, t, h, m_.dtype));
    projection("qkv_proj", t, 3 * h, h);
    attention(p_.batch, p_.tokens);
    projection("o_proj", t, h, h);
    add(make_fused_chain("attn_gate_residual", {"bias", "add"}, t, h, m_.dtype));
    add(make_fused_chain("mlp_norm_modulate", {"layernorm", "bias", "bias"}, t, h, m_.dtype));
    projection("mlp_up", t, m_.ffn, h);
    add(make_vector_op("mlp_act", "gelu", t, m_.ffn, m_.dtype));
    projection("mlp_down", t, h, m_.ffn);
    add(make_fused_chain("mlp_gate_residual", {"bias", "add"}, t, h, m_.dtype));
  }

  // Once per pass: the final norm and the LM head over the last token of each sequence (the
  // only logits a generation step samples from), in the activations' type.
  void lm_head() {
    add(make_rmsnorm("final_norm", p_.batch, m_.hidden, m_.dtype));
    add(make_gemm("lm_head", p_.batch, m_.vocab, m_.hidden, m_.dtype));
  }

  const LlmModel& m_;
  const LlmPass& p_;
  int64_t tokens_ = 0, head_dim_ = 0;
  std::vector<Operator> ops_;
};

}  // namespace

int64_t llm_kv_splits(int64_t batch_kv_heads, int64_t context) {
  int64_t splits = 1;
  while (splits * 2 <= 64 && batch_kv_heads * splits * 2 <= 128 && context % (splits * 2) == 0)
    splits *= 2;
  return splits;
}

std::vector<int64_t> llm_expert_tokens(const LlmModel& model, int64_t routed) {
  const auto experts = static_cast<size_t>(model.experts);
  std::vector<int64_t> tokens(experts, routed / model.experts);
  if (model.expert_load.empty()) {
    for (size_t e = 0; e < static_cast<size_t>(routed % model.experts); ++e) ++tokens[e];
    return tokens;
  }
  // Largest remainders: each expert its share rounded down, the leftover tokens to the largest
  // fractional parts, so that the counts sum to `routed` exactly.
  std::vector<double> share(experts);
  int64_t given = 0;
  for (size_t e = 0; e < experts; ++e) {
    share[e] = model.expert_load[e] * static_cast<double>(routed);
    tokens[e] = static_cast<int64_t>(std::floor(share[e]));
    given += tokens[e];
  }
  std::vector<size_t> order(experts);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return share[a] - std::floor(share[a]) > share[b] - std::floor(share[b]);
  });
  for (size_t i = 0; given < routed; ++i, ++given) ++tokens[order[i % experts]];
  return tokens;
}

Workload build_llm_workload(const LlmModel& model, const LlmPass& pass) {
  if (model.hidden <= 0 || model.heads <= 0 || model.kv_heads <= 0 || model.layers <= 0 ||
      model.ffn <= 0 || model.heads % model.kv_heads != 0)
    throw std::invalid_argument(
        "llm-model: hidden, heads, kv_heads (dividing heads), ffn and "
        "layers must be positive");
  return PassBuilder(model, pass).build();
}

}  // namespace ts
