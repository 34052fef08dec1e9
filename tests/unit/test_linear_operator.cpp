// torch.nn.Linear as an operator: a GEMM and its bias, as PyTorch's addmm runs them.
#include <catch2/catch.hpp>

#include "InputErrorCapture.hpp"
#include "trace/CsvMeasurements.hpp"
#include "workload/OperatorBuilders.hpp"
#include "workload/OperatorSpec.hpp"
#include "workload/WorkloadLoader.hpp"

using namespace ts;
using ts::test::input_error_of;

TEST_CASE("linear: a GEMM's tensors and stage, then the bias into Y", "[neusight][linear]") {
  const Operator op = make_linear("fc", 6, 7, 5, DataType::fp32);
  CHECK(op.type == OperatorType::linear);
  CHECK(is_gemm(op));
  CHECK_FALSE(is_vector_step(op.type));
  CHECK(op.shape_text() == "M=6 N=7 K=5");
  // A, W, C first, as a gemm's (C is tensor 2), then the bias and the output.
  REQUIRE(op.tensors.size() == 5);
  const std::vector<std::pair<std::string, std::vector<int>>> tensors{
      {"A", {0, 2}}, {"W", {2, 1}}, {"C", {0, 1}}, {"bias", {1}}, {"Y", {0, 1}}};
  for (size_t t = 0; t < tensors.size(); ++t) {
    CHECK(op.tensors[t].name == tensors[t].first);
    CHECK(op.tensors[t].dims == tensors[t].second);
    CHECK(op.tensors[t].dtype == DataType::fp32);
  }
  REQUIRE(op.stages.size() == 2);
  const Stage& gemm = op.stages[0];
  CHECK(gemm.name == "gemm");
  CHECK(gemm.op_class == OpClass::matmul);
  CHECK(gemm.inputs == std::vector<int>{0, 1});
  CHECK(gemm.output == 2);
  CHECK(gemm.dims == std::vector<int>{0, 1, 2});
  const Stage& bias = op.stages[1];
  CHECK(bias.name == "bias");
  CHECK(bias.op_class == OpClass::elementwise);
  CHECK(bias.inputs == std::vector<int>{2, 3});
  CHECK(bias.output == 4);
  CHECK(bias.dims == std::vector<int>{0, 1});
  CHECK(bias.ops_per_point == 1);
  // The product is read back by the bias step: an intermediate, which a mapping that runs the
  // steps apart (as addmm does) moves through memory.
  CHECK(op.is_input(0));
  CHECK(op.is_input(1));
  CHECK(op.is_input(3));
  CHECK(op.is_intermediate(2));
  CHECK(op.is_output(4));
  CHECK(op.primary_class() == OpClass::matmul);
  CHECK(op.primary_dtype() == DataType::fp32);
  // 2MNK for the product, MN for the bias.
  CHECK(op.total_flops() == 2.0 * 6 * 7 * 5 + 6 * 7);
  CHECK(op.matmul_flops() == 2.0 * 6 * 7 * 5);
  CHECK(op.tensor_bytes(0) == 6 * 5 * 4);
  CHECK(op.tensor_bytes(1) == 5 * 7 * 4);
  CHECK(op.tensor_bytes(2) == 6 * 7 * 4);
  CHECK(op.tensor_bytes(3) == 7 * 4);
  CHECK(op.tensor_bytes(4) == 6 * 7 * 4);
}

TEST_CASE("linear: in workload files, CSV tables and specs", "[neusight][linear]") {
  CHECK(parse_operator_type("linear") == OperatorType::linear);
  CHECK(to_string(OperatorType::linear) == "linear");

  const Workload w = parse_workload(
      "version: 1\nkind: workload\noperators:\n"
      "  - {name: fc1, type: linear, M: 64, N: 3072, K: 768, dtype: fp32, count: 12}\n",
      "w.yaml");
  REQUIRE(w.operators.size() == 1);
  const Operator& fc1 = w.operators[0];
  CHECK(fc1.type == OperatorType::linear);
  CHECK(fc1.shape_text() == "M=64 N=3072 K=768");
  CHECK(fc1.count == 12);
  CHECK(fc1.total_flops() == make_linear("x", 64, 3072, 768).total_flops());
  // No out_dtype (the bias is added in the operands' type), no rows or cols.
  const InputError key = input_error_of([] {
    parse_workload(
        "version: 1\nkind: workload\noperators:\n"
        "  - {name: fc1, type: linear, M: 64, N: 3072, K: 768, out_dtype: fp32}\n",
        "k.yaml");
  });
  CHECK(key.where().line == 4);
  CHECK_THAT(key.message(), Catch::Contains("out_dtype"));

  // The spec a store keeps rebuilds it.
  const std::string spec = operator_spec(fc1);
  CHECK_THAT(spec, Catch::Contains("type: linear") && Catch::Contains("M: 64") &&
                       Catch::Contains("N: 3072") && Catch::Contains("K: 768"));
  const Operator rebuilt = operator_from_spec(spec, "spec");
  CHECK(rebuilt.type == OperatorType::linear);
  CHECK(rebuilt.shape_text() == fc1.shape_text());
  CHECK(rebuilt.primary_dtype() == DataType::fp32);

  // A CSV table of linears has the columns M, N, K.
  const std::vector<std::string> types = csv_operator_types();
  CHECK(std::find(types.begin(), types.end(), "linear") != types.end());
  CHECK(shape_columns("linear") == std::vector<std::string>{"M", "N", "K"});
  const auto rows = shape_measurements(parse_csv("M,N,K,measured_us\n8,16,32,5\n", "l.csv"),
                                       "linear", DataType::fp16);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].op.type == OperatorType::linear);
  CHECK(rows[0].op.total_flops() == 2.0 * 8 * 16 * 32 + 8 * 16);
  CHECK(rows[0].device.empty());
  CHECK(rows[0].kernel.empty());
  CHECK_FALSE(rows[0].launch.recorded());
  CHECK_FALSE(rows[0].scope);
}
