#include <catch2/catch.hpp>

#include "InputErrorCapture.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using ts::test::fixture;
using ts::test::input_error_of;

namespace {

// Three lines, so that the first operator is line 4.
const std::string head = "version: 1\nkind: workload\noperators:\n";

InputError workload_error(const std::string& operators) {
  return input_error_of([&] { parse_workload(head + operators, "w.yaml"); });
}

std::vector<std::string> tensor_names(const Operator& op, const std::vector<int>& ids) {
  std::vector<std::string> names;
  for (int t : ids) names.push_back(op.tensors.at(static_cast<size_t>(t)).name);
  return names;
}

std::vector<std::string> dim_names(const Operator& op, const std::vector<int>& ids) {
  std::vector<std::string> names;
  for (int d : ids) names.push_back(op.dims.at(static_cast<size_t>(d)).name);
  return names;
}

}  // namespace

TEST_CASE("the example workload of docs/formats.md", "[workload][loader]") {
  Workload w = load_workload(fixture("workload/tiny.yaml"));
  CHECK(w.name == "bert-base");
  CHECK(w.batch == 8);
  CHECK(w.seq_len == 512);
  REQUIRE(w.operators.size() == 6);

  const Operator& qkv = w.operators[0];
  CHECK(qkv.name == "qkv_proj");
  CHECK(qkv.type == OperatorType::gemm);
  CHECK(qkv.shape_text() == "M=4096 N=2304 K=768");
  CHECK(qkv.total_ops() == 7247757312.0);     // 4096 x 2304 x 768 MACs
  CHECK(qkv.total_flops() == 14495514624.0);  // two per MAC
  CHECK(qkv.primary_class() == OpClass::matmul);
  CHECK(qkv.primary_dtype() == DataType::fp16);
  CHECK(qkv.where.line == 9);
  CHECK(qkv.where.column == 5);

  const Operator& score = w.operators[1];
  CHECK(score.shape_text() == "B=96 M=512 N=512 K=64");
  CHECK(score.total_ops() == 1610612736.0);  // 96 x 512 x 512 x 64
  CHECK(dim_names(score, score.tensors[score.find_tensor("W")].dims) ==
        std::vector<std::string>{"B", "K", "N"});

  const Operator& softmax = w.operators[2];
  CHECK(softmax.type == OperatorType::softmax);
  CHECK(softmax.primary_class() == OpClass::reduction);
  CHECK(softmax.total_ops() == 125829120.0);  // 49152 x 512 x 5
  CHECK(softmax.total_flops() == 125829120.0);

  CHECK(w.operators[3].total_ops() == 100663296.0);  // 4096 x 3072 x 8

  const Operator& fused = w.operators[4];
  CHECK(fused.type == OperatorType::fused);
  CHECK(fused.is_fused());
  CHECK(fused.total_ops() == 28311552.0);  // 4096 x 768 x (1 + 8)
  int t1 = fused.find_tensor("T1");
  REQUIRE(t1 >= 0);
  CHECK(fused.is_intermediate(t1));
  CHECK(fused.is_output(fused.find_tensor("Y")));
  CHECK(fused.is_input(fused.find_tensor("gamma")));

  const Operator& einsum = w.operators[5];
  CHECK(einsum.type == OperatorType::einsum);
  REQUIRE(einsum.stages.size() == 1);
  CHECK(einsum.stages[0].name == "mm");
  // first seen in A[M,K] then B[K,N]
  CHECK(dim_names(einsum, einsum.stages[0].dims) == std::vector<std::string>{"M", "K", "N"});
  CHECK(einsum.total_ops() == 30720.0);  // 60 x 32 x 16
  CHECK(einsum.is_output(einsum.find_tensor("C")));
  CHECK(einsum.where.line == 14);
}

TEST_CASE("gemm and batched gemm builders follow the table", "[workload][builders]") {
  Operator g = make_gemm("g", 8, 4, 2, DataType::bf16);
  REQUIRE(g.tensors.size() == 3);
  CHECK(dim_names(g, g.tensors[0].dims) == std::vector<std::string>{"M", "K"});
  CHECK(dim_names(g, g.tensors[1].dims) == std::vector<std::string>{"K", "N"});
  CHECK(dim_names(g, g.tensors[2].dims) == std::vector<std::string>{"M", "N"});
  CHECK(tensor_names(g, g.stages[0].inputs) == std::vector<std::string>{"A", "B"});
  CHECK(g.tensors[2].name == "C");
  CHECK(g.primary_dtype() == DataType::bf16);
  CHECK(g.total_flops() == 128.0);  // 2 x 8 x 4 x 2

  Operator b = make_batched_gemm("b", 3, 8, 4, 2);
  CHECK(tensor_names(b, {0, 1, 2}) == std::vector<std::string>{"A", "W", "C"});
  CHECK(dim_names(b, b.tensors[0].dims) == std::vector<std::string>{"B", "M", "K"});
  CHECK(dim_names(b, b.tensors[2].dims) == std::vector<std::string>{"B", "M", "N"});
  CHECK(b.total_ops() == 192.0);  // 3 x 8 x 4 x 2
}

TEST_CASE("vector steps: ops per point, classes and extra inputs", "[workload][builders]") {
  struct Row {
    const char* step;
    OpClass cls;
    double ops;
    std::vector<std::string> inputs;
  };
  std::vector<Row> table = {
      {"add", OpClass::elementwise, 1, {"X", "Z"}},
      {"mul", OpClass::elementwise, 1, {"X", "Z"}},
      {"bias", OpClass::elementwise, 1, {"X", "bias"}},
      {"scale", OpClass::elementwise, 1, {"X"}},
      {"mask", OpClass::elementwise, 1, {"X", "Mask"}},
      {"relu", OpClass::elementwise, 1, {"X"}},
      {"gelu", OpClass::elementwise, 8, {"X"}},
      {"softmax", OpClass::reduction, 5, {"X"}},
      {"layernorm", OpClass::reduction, 8, {"X", "gamma", "beta"}},
  };
  CHECK(vector_steps().size() == table.size());
  for (const Row& row : table) {
    INFO(row.step);
    CHECK(is_vector_step(row.step));
    Operator op = make_vector_op("v", row.step, 10, 6);
    CHECK(to_string(op.type) == row.step);
    REQUIRE(op.stages.size() == 1);
    CHECK(op.stages[0].op_class == row.cls);
    CHECK(op.stages[0].ops_per_point == row.ops);
    CHECK(tensor_names(op, op.stages[0].inputs) == row.inputs);
    CHECK(op.tensors[static_cast<size_t>(op.stages[0].output)].name == "Y");
    CHECK(op.total_ops() == 60 * row.ops);
    // The step's row: found by its name and by its own enum, naming the operator type it builds.
    const VectorStepInfo* info = find_vector_step(row.step);
    REQUIRE(info);
    CHECK(&vector_step_info(info->step) == info);
    CHECK(info->type == op.type);
    CHECK(is_vector_step(info->type));
  }
  Operator bias = make_vector_op("b", "bias", 10, 6);
  CHECK(dim_names(bias, bias.tensors[static_cast<size_t>(bias.find_tensor("bias"))].dims) ==
        std::vector<std::string>{"C"});
  CHECK_FALSE(is_vector_step("gemm"));
}

TEST_CASE("a fused chain names intermediates T1, T2 and repeated inputs by step",
          "[workload][builders]") {
  Operator op = make_fused_chain("f", {"add", "layernorm", "add", "bias", "bias"}, 4, 8);
  CHECK(tensor_names(op, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) ==
        std::vector<std::string>{"X", "Z", "T1", "gamma", "beta", "T2", "Z3", "T3", "bias", "T4",
                                 "bias5", "Y"});
  CHECK(op.tensors.size() == 12);
  REQUIRE(op.stages.size() == 5);
  CHECK(op.stages[2].name == "add3");
  CHECK(op.stages[4].name == "bias5");
  CHECK(tensor_names(op, op.stages[1].inputs) == std::vector<std::string>{"T1", "gamma", "beta"});
  CHECK(tensor_names(op, op.stages[2].inputs) == std::vector<std::string>{"T2", "Z3"});
  CHECK(op.producer(op.find_tensor("T3")) == 2);
  CHECK(op.producer(op.find_tensor("X")) == -1);
  CHECK(op.primary_class() == OpClass::elementwise);  // the first stage's
  CHECK(op.total_ops() == 32 * (1 + 8 + 1 + 1 + 1));
}

TEST_CASE("an unknown operator type lists the known ones", "[workload][loader]") {
  InputError e = input_error_of([] { load_workload(fixture("workload/unknown-type.yaml")); });
  CHECK(e.where().line == 7);
  CHECK(e.where().column == 11);
  CHECK(e.message() ==
        "unknown operator type 'conv3d' (known: gemm, batched_gemm, linear, add, mul, bias, "
        "scale, mask, relu, gelu, softmax, layernorm, rmsnorm, rope, silu_mul, quant_gemm, "
        "lut_gemm, grouped_gemm, decode_attention, prefill_attention, fused, einsum, conv2d)");
}

TEST_CASE("workload errors", "[workload][loader]") {
  SECTION("sizes are positive") {
    InputError e = workload_error("  - {name: g, type: gemm, M: 0, N: 2, K: 3}\n");
    CHECK(e.where().line == 4);
    CHECK(e.where().column == 30);
    CHECK(e.message() == "expected a positive integer for `M`, got '0'");
  }
  SECTION("a missing size") {
    InputError e = workload_error("  - {name: g, type: gemm, M: 1, N: 2}\n");
    CHECK(e.where().column == 5);
    CHECK(e.message() == "missing `K` in operator 'g'");
  }
  SECTION("keys of another type") {
    InputError e = workload_error("  - {name: s, type: softmax, rows: 4, cols: 8, M: 2}\n");
    CHECK(e.where().column == 48);
    CHECK(e.message() ==
          "unknown key 'M' in operator 's'; expected one of: name, type, dtype, count, rows, cols");
  }
  SECTION("operator names are unique") {
    InputError e = workload_error(
        "  - {name: g, type: gemm, M: 1, N: 2, K: 3}\n  - {name: g, type: relu, rows: 1, cols: "
        "2}\n");
    CHECK(e.where().line == 5);
    CHECK(e.where().column == 12);
    CHECK(e.message() == "duplicate operator name 'g' (first at line 4)");
  }
  SECTION("a fused step that is not a vector step") {
    InputError e =
        workload_error("  - {name: f, type: fused, steps: [add, gemm], rows: 1, cols: 2}\n");
    CHECK(e.where().column == 41);
    CHECK_THAT(e.message(),
               Catch::StartsWith("unknown step 'gemm' in operator 'f' (known: add, mul"));
  }
  SECTION("an unknown dtype") {
    InputError e = workload_error("  - {name: g, type: gemm, dtype: fp64, M: 1, N: 2, K: 3}\n");
    CHECK(e.where().column == 34);
    CHECK(e.message() ==
          "unknown dtype 'fp64'; expected one of: fp32, fp16, bf16, fp8, int8, int16, int32, int4, "
          "tf32");
  }
  SECTION("no operators") {
    InputError e = input_error_of(
        [] { parse_workload("version: 1\nkind: workload\noperators: []\n", "w.yaml"); });
    CHECK(e.where().line == 3);
    CHECK(e.message() == "`operators` is empty; expected at least one operator");
  }
}

TEST_CASE("einsum operators", "[workload][loader][einsum]") {
  const std::string two_stages = R"(  - name: mlp
    type: einsum
    dtype: bf16
    dims: {M: 4, N: 8, K: 2}
    tensors:
      - {name: X, dims: [M, K]}
      - {name: W, dims: [K, N], dtype: int8}
      - {name: H, dims: [M, N]}
      - {name: Y, dims: [M, N], dtype: fp32}
    stages:
      - {name: mm, class: matmul, inputs: [X, W], output: H}
      - {name: act, class: elementwise, inputs: [H], output: Y, ops_per_point: 8}
)";
  SECTION("two stages sharing an intermediate") {
    Workload w = parse_workload(head + two_stages, "w.yaml");
    const Operator& op = w.operators.at(0);
    CHECK(op.is_fused());
    CHECK(op.is_intermediate(op.find_tensor("H")));
    CHECK(op.tensors[1].dtype == DataType::int8);
    CHECK(op.tensors[0].dtype == DataType::bf16);  // the operator's default
    CHECK(op.primary_dtype() == DataType::bf16);   // what the matmul stage reads first
    CHECK(dim_names(op, op.stages[1].dims) == std::vector<std::string>{"M", "N"});
    CHECK(op.total_ops() == 64 + 32 * 8);  // 4x8x2 MACs + 4x8 points x 8
    CHECK(op.total_flops() == 2 * 64 + 32 * 8);
  }
  SECTION("an unknown dimension in a tensor") {
    std::string text = two_stages;
    text.replace(text.find("[K, N]"), 6, "[K, Q]");
    InputError e = workload_error(text);
    CHECK(e.where().line == 10);
    CHECK(e.where().column == 29);
    CHECK(e.message() == "unknown dimension 'Q' (known: M, N, K)");
  }
  SECTION("a stage reading what a later stage produces") {
    std::string text = two_stages;
    text.replace(text.find("inputs: [X, W]"), 14, "inputs: [X, Y]");
    InputError e = workload_error(text);
    CHECK(e.where().line == 14);
    CHECK(e.where().column == 47);
    CHECK(e.message() ==
          "stage 'mm' reads 'Y' before stage 'act' produces it; list stages in the order they run");
  }
  SECTION("a tensor no stage uses") {
    std::string text = two_stages;
    text.replace(text.find("inputs: [X, W]"), 14, "inputs: [X, X]");
    InputError e = workload_error(text);
    CHECK(e.where().line == 10);
    CHECK(e.where().column == 9);
    CHECK(e.message() == "tensor 'W' is used by no stage");
  }
  SECTION("a stage without a class") {
    std::string text = two_stages;
    text.replace(text.find("class: elementwise, "), 20, "");
    InputError e = workload_error(text);
    CHECK(e.where().line == 15);
    CHECK(e.message() ==
          "stage 'act' has no class; expected `class: matmul`, `elementwise` or `reduction`");
  }
  SECTION("two stages writing one tensor") {
    std::string text = two_stages;
    text.replace(text.find("output: Y"), 9, "output: H");
    InputError e = workload_error(text);
    CHECK(e.where().line == 15);
    CHECK(e.message() == "tensor 'H' is already the output of stage 'mm'");
  }
}

TEST_CASE("operator types print and parse by one table", "[workload]") {
  for (const std::string& name : operator_type_names()) {
    const std::optional<OperatorType> type = parse_operator_type(name);
    REQUIRE(type);
    CHECK(to_string(*type) == name);
  }
  CHECK_FALSE(parse_operator_type("conv3d"));  // not a type (conv2d is)
  CHECK(is_gemm(OperatorType::batched_gemm));
  CHECK_FALSE(is_gemm(OperatorType::fused));
  // Every vector step the builders know is a vector-step type, and no other type is.
  for (const std::string& step : vector_steps()) CHECK(is_vector_step(*parse_operator_type(step)));
  size_t steps = 0;
  for (const std::string& name : operator_type_names())
    steps += is_vector_step(*parse_operator_type(name)) ? 1 : 0;
  CHECK(steps == vector_steps().size());
}
