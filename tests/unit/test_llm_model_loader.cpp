// `kind: llm-model` files (docs/formats.md): a tiny model built by hand, overrides, and the
// errors at the key that is wrong.
#include <catch2/catch.hpp>

#include "InputErrorCapture.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using namespace ts::test;

TEST_CASE("an llm-model file builds a pass of its operators", "[workload][llm]") {
  // tests/fixtures/workload/llm/base.yaml: hidden 256, 4 heads of 64, 2 KV heads, ffn 512, 2
  // layers, vocab 1000. Decode at batch 3, context 64: T = 3 tokens.
  LlmPassOverride o;
  o.phase = LlmPhase::decode;
  o.batch = 3;
  o.context = 64;
  const Workload w = load_workload(fixture("workload/llm/decode-without-context.yaml"), o);
  CHECK(w.name == "tiny-llm-decode");
  CHECK(w.tokens_per_pass == 3);
  // 11 operators a layer (norm, qkv, rope, attention, o_proj, add, norm, gate_up, act, down,
  // add), then the final norm and the LM head.
  REQUIRE(w.operators.size() == 13);
  CHECK(w.operators[0].count == 2);
  CHECK(w.operators[12].count == 1);
  const Operator& qkv = w.operators[1];
  CHECK(qkv.shape_text() == "M=3 N=512 K=256");  // (4 + 2 x 2) x 64 = 512
  const Operator& attention = w.operators[3];
  CHECK(attention.type == OperatorType::decode_attention);
  // B = 3 x 2 KV heads, H = 2 query heads per KV head; splits: 128 / 6 allows 16, 64 / 16 = 4.
  CHECK(attention.shape_text() == "B=6 H=2 S=16 L=4 D=64");
  CHECK(w.operators[12].shape_text() == "M=3 N=1000 K=256");
  CHECK(w.operators[3].where.line == 4);  // at `phase:`
}

TEST_CASE("llm-model errors point at the key", "[workload][llm]") {
  SECTION("kv_heads must divide heads") {
    const InputError e =
        input_error_of([] { load_workload(fixture("workload/llm/kv-heads-not-dividing.yaml")); });
    CHECK(e.where().line == 6);
    CHECK(e.message().find("`kv_heads` 6 does not divide `heads` 32") != std::string::npos);
  }
  SECTION("a decode pass needs a context") {
    const InputError e =
        input_error_of([] { load_workload(fixture("workload/llm/decode-without-context.yaml")); });
    CHECK(e.where().line == 4);
    CHECK(e.message().find("a decode pass without `context`") != std::string::npos);
  }
  SECTION("expert shares sum to 1") {
    const InputError e =
        input_error_of([] { load_workload(fixture("workload/llm/expert-load-not-summing.yaml")); });
    CHECK(e.where().line == 6);
    CHECK(e.message().find("`expert_load` sums to 1.25") != std::string::npos);
  }
  SECTION("a quant_gemm's group divides K") {
    const InputError e = input_error_of(
        [] { load_workload(fixture("workload/llm/quant-group-not-dividing.yaml")); });
    CHECK(e.where().line == 5);
    CHECK(e.message().find("`group` 64 does not divide `K` 96") != std::string::npos);
  }
  SECTION("a lut_gemm's keys are packed 4 or 8 to a word") {
    const InputError e =
        input_error_of([] { load_workload(fixture("workload/llm/lut-key-bits.yaml")); });
    CHECK(e.where().line == 5);
    CHECK(e.where().column == 84);  // at the value of `key_bits`
    CHECK(e.message().find("`key_bits` 6; expected 4 or 8") != std::string::npos);
  }
  SECTION("--batch is refused for a kind: workload file") {
    LlmPassOverride o;
    o.batch = 2;
    const InputError e = input_error_of([&] { load_workload(fixture("workload/tiny.yaml"), o); });
    CHECK(e.where().line == 1);
  }
}
