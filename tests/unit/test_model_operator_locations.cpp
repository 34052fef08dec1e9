// Where a transformer layer's operators point: at the model size that makes each large, so that
// an operator too large for its device is reported at that size (docs/formats.md, `kind: model`).
#include <catch2/catch.hpp>
#include <string>

#include "training/LayerOperators.hpp"
#include "training/TransformerModel.hpp"

using namespace ts;

namespace {

// One size a line, so that each field's line is its own. hidden (8192) is larger than seq_len
// (2048), ffn (32768) too, vocab (1000) is not.
const char* const kModel =
    "version: 1\n"      // 1
    "kind: model\n"     // 2
    "name: wide\n"      // 3
    "family: gpt\n"     // 4
    "layers: 2\n"       // 5
    "hidden: 8192\n"    // 6
    "heads: 64\n"       // 7
    "ffn: 32768\n"      // 8
    "vocab: 1000\n"     // 9
    "seq_len: 2048\n";  // 10

const Operator& named(const std::vector<Operator>& ops, const std::string& name) {
  for (const Operator& op : ops)
    if (op.name == name) return op;
  FAIL("no operator " << name);
  return ops.front();
}

}  // namespace

TEST_CASE("a layer's operators point at the model size that makes them large", "[dist][errors]") {
  const TransformerModel m = parse_transformer_model(kModel, "wide.yaml");
  const std::vector<Operator> ops = layer_forward_operators(m, 4, 2);
  struct Expected {
    const char* op;
    int line;  // of the field
    const char* field;
  };
  // tokens x hidden: hidden 8192 > seq_len 2048; the MLP: ffn 32768 > seq_len; the attention
  // core: always seq_len (it grows with its square).
  for (const Expected& e :
       {Expected{"ln_attn", 6, "`hidden` 8192"}, Expected{"qkv", 6, "`hidden` 8192"},
        Expected{"attn_score", 10, "`seq_len` 2048"},
        Expected{"attn_softmax", 10, "`seq_len` 2048"}, Expected{"mlp_up", 8, "`ffn` 32768"},
        Expected{"mlp_down", 8, "`ffn` 32768"}}) {
    INFO(e.op);
    const Operator& op = named(ops, e.op);
    CHECK(op.where.file == "wide.yaml");
    CHECK(op.where.line == e.line);
    CHECK(op.sized_by == std::string("of model 'wide', sized by its ") + e.field +
                             " at micro-batch 4 on 2 tensor-parallel shards");
  }
  // The output layer: seq_len 2048 > vocab 1000.
  const Operator logits = logits_operator(m, 1, 1);
  CHECK(logits.where.line == 10);
  CHECK(logits.sized_by ==
        "of model 'wide', sized by its `seq_len` 2048 at micro-batch 1 on 1 tensor-parallel shard");
}
