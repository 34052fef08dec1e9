// The bundled LLM suites (samples/workloads/llm) against formulas worked here from each model's
// hyper-parameters: the projections' FLOPs and weight bytes, the attention's FLOPs and the KV
// cache it reads, and, for Llama-2 7B, its published parameter count.
#include <catch2/catch.hpp>
#include <string>

#include "workload/LlmModel.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;

namespace {

const std::string kLlm = std::string(TILESCOPE_SAMPLES) + "/workloads/llm/";

struct Hyper {
  double hidden, heads, kv_heads, ffn, layers, vocab, experts = 1, top_k = 1;
  double head_dim() const { return hidden / heads; }
  // Weights of one layer's projections, dense MLP: QKV h x (nh + 2 nkv) d, output nh d x h,
  // gate and up h x 2f, down f x h.
  double attention_params() const {
    return hidden * (heads + 2 * kv_heads) * head_dim() + heads * head_dim() * hidden;
  }
  double mlp_params() const { return 3 * hidden * ffn; }  // per expert
};

// The pass's totals by what an operator is.
struct Totals {
  double gemm_flops = 0;       // gemm, grouped_gemm, quant_gemm
  double weight_bytes = 0;     // their second operand (the weights)
  double attention_flops = 0;  // decode_attention or prefill_attention
  double kv_bytes = 0;         // the K and V they read
  double input_bytes = 0;      // every input of every operator
};

Totals totals(const Workload& w) {
  Totals t;
  for (const Operator& op : w.operators) {
    const auto runs = static_cast<double>(op.count);
    for (size_t i = 0; i < op.tensors.size(); ++i)
      if (op.is_input(static_cast<int>(i)))
        t.input_bytes += runs * op.tensor_bytes(static_cast<int>(i));
    if (op.type == OperatorType::gemm || op.type == OperatorType::grouped_gemm ||
        op.type == OperatorType::quant_gemm) {
      t.gemm_flops += runs * op.total_flops();
      t.weight_bytes += runs * op.tensor_bytes(1);
    } else if (op.type == OperatorType::decode_attention ||
               op.type == OperatorType::prefill_attention) {
      t.attention_flops += runs * op.total_flops();
      t.kv_bytes +=
          runs * (op.tensor_bytes(op.find_tensor("K")) + op.tensor_bytes(op.find_tensor("V")));
    }
  }
  return t;
}

}  // namespace

TEST_CASE("Llama-2 7B decode at batch 1 reads its weights once per token", "[workload][llm]") {
  const Hyper m{4096, 32, 32, 11008, 32, 32000};
  const Workload w = load_workload(kLlm + "llama2-7b-decode.yaml");
  REQUIRE(w.phase == "decode");
  REQUIRE(w.tokens_per_pass == 1);
  const Totals t = totals(w);
  // Parameters: 32 layers x (4096 x 12288 + 4096 x 4096 + 3 x 4096 x 11008) = 32 x 202375168
  // = 6476005376, and the LM head 32000 x 4096 = 131072000: 6607077376. With the embedding
  // (another 131072000) and the 65 RMSNorm weights of 4096 (266240) that is 6738415616, the
  // parameter count of the released checkpoint (meta-llama/Llama-2-7b-hf).
  const double params = m.layers * (m.attention_params() + m.mlp_params()) + m.vocab * m.hidden;
  CHECK(params == 6607077376.0);
  CHECK(params + m.vocab * m.hidden + (2 * m.layers + 1) * m.hidden == 6738415616.0);
  // fp16: 2 bytes a weight, each read once; 2 FLOPs a weight for the one token.
  CHECK(t.weight_bytes == Approx(2 * params));
  CHECK(t.gemm_flops == Approx(2 * params));
  // The KV cache: K and V of 4096 tokens x 32 heads x 128 x 2 B, 32 layers = 2147483648 B.
  CHECK(t.kv_bytes == Approx(2.0 * 4096 * 32 * 128 * 2 * 32));
  // The weights are most of what the pass reads: 13.2 GB of 15.4.
  CHECK(t.weight_bytes / t.input_bytes > 0.85);
  CHECK(t.weight_bytes / t.input_bytes < 1.0);
}

TEST_CASE("every LLM suite's FLOPs and bytes follow from its hyper-parameters", "[workload][llm]") {
  struct Case {
    const char* model;
    Hyper m;
  };
  const Case cases[] = {
      {"llama2-7b", {4096, 32, 32, 11008, 32, 32000}},
      {"llama2-70b", {8192, 64, 8, 28672, 80, 32000}},
      {"llama3-8b", {4096, 32, 8, 14336, 32, 128256}},
      {"llama3-70b", {8192, 64, 8, 28672, 80, 128256}},
      {"mixtral-8x7b", {4096, 32, 8, 14336, 32, 32000, 8, 2}},
  };
  for (const Case& c : cases) {
    const Hyper& m = c.m;
    const double d = m.head_dim();
    SECTION(std::string(c.model) + " decode, batch 4, context 1024") {
      // B = 4 sequences, one token each: T = 4 rows through every projection.
      LlmPassOverride o;
      o.batch = 4;
      o.context = 1024;
      const Workload w = load_workload(kLlm + c.model + "-decode.yaml", o);
      const Totals t = totals(w);
      const double b = 4, l = 1024, splits = llm_kv_splits(b * m.kv_heads, 1024);
      // Router h x E (Mixtral) and experts: 4 tokens x top 2 = 8 assignments over 8 experts,
      // balanced: every expert gets one token, so each expert's weights are read once.
      const double experts_read = m.experts > 1 ? std::min(m.experts, b * m.top_k) : 1;
      const double router = m.experts > 1 ? m.hidden * m.experts : 0;
      const double layer_weights = m.attention_params() + router + experts_read * m.mlp_params();
      CHECK(t.weight_bytes == Approx(2 * (m.layers * layer_weights + m.vocab * m.hidden)));
      // FLOPs: 2 per weight per token, each expert's weights for the tokens it receives
      // (here one each, top 2 of 4 tokens over 8 experts: M = 1 per expert).
      const double expert_flops =
          m.experts > 1 ? 2 * b * m.top_k * m.mlp_params() : 2 * b * m.mlp_params();
      CHECK(t.gemm_flops ==
            Approx(m.layers * (2 * b * (m.attention_params() + router) + expert_flops) +
                   2 * b * m.vocab * m.hidden));
      // Attention: QK^T and PV, 2 x 2 x B x heads x L x d; softmax 5 per score; the reduction
      // of the splits 2 per partial element, B x heads x splits x d.
      CHECK(t.attention_flops == Approx(m.layers * (4 * b * m.heads * l * d + 5 * b * m.heads * l +
                                                    2 * b * m.heads * splits * d)));
      // K and V read once per KV head (grouped-query attention shares them): 2 x B x kv_heads x
      // L x d x 2 B per layer.
      CHECK(t.kv_bytes == Approx(m.layers * 2 * b * m.kv_heads * l * d * 2));
    }
    SECTION(std::string(c.model) + " prefill, 2 prompts of 512") {
      LlmPassOverride o;
      o.batch = 2;
      o.tokens = 512;
      const Workload w = load_workload(kLlm + c.model + "-prefill.yaml", o);
      const Totals t = totals(w);
      const double b = 2, s = 512, tokens = b * s;
      REQUIRE(w.tokens_per_pass == 1024);
      const double router = m.experts > 1 ? m.hidden * m.experts : 0;
      // 1024 tokens x top_k over the experts, balanced (128 or 256 each): every expert's
      // weights once; the LM head for the last token of each prompt.
      CHECK(t.weight_bytes ==
            Approx(2 * (m.layers * (m.attention_params() + router + m.experts * m.mlp_params()) +
                        m.vocab * m.hidden)));
      CHECK(t.gemm_flops == Approx(m.layers * 2 * tokens *
                                       (m.attention_params() + router + m.top_k * m.mlp_params()) +
                                   2 * b * m.vocab * m.hidden));
      // Full (not causal) attention over each prompt: 4 x B x heads x S^2 x d, and the online
      // softmax 6 per score.
      CHECK(t.attention_flops ==
            Approx(m.layers * (4 * b * m.heads * s * s * d + 6 * b * m.heads * s * s)));
    }
  }
}

TEST_CASE("the DiT-XL/2 step: adaLN modulation, full attention, GELU MLP", "[workload][llm]") {
  // 8 images of 256 tokens, hidden 1152, 16 heads of 72, MLP 4608, 28 blocks.
  const Workload w = load_workload(kLlm + "dit-xl2-step.yaml");
  const Totals t = totals(w);
  const double b = 8, s = 256, h = 1152, f = 4608, layers = 28;
  // Per block: adaLN h x 6h (on the 8 conditioning vectors), QKV h x 3h, output h x h, MLP
  // 2 x h x f.
  CHECK(t.weight_bytes == Approx(2 * layers * (6 * h * h + 4 * h * h + 2 * h * f)));
  CHECK(t.gemm_flops == Approx(layers * (2 * b * 6 * h * h + 2 * b * s * (4 * h * h + 2 * h * f))));
  CHECK(t.attention_flops == Approx(layers * (4 * b * 16 * s * s * 72 + 6 * b * 16 * s * s)));
  // Peebles and Xie report 118.6 GFLOPs per image for DiT-XL/2 (multiply-adds counted once):
  // the projections and attention per image, halved, come within 5 % of it.
  const double per_image_gmacs = (t.gemm_flops + t.attention_flops) / 2 / b / 1e9;
  CHECK(per_image_gmacs == Approx(118.6).epsilon(0.05));
}
