// workload/WorkloadWriter: a workload written and read back is the same operators, with the
// `count:` of each (docs/formats.md, "Workloads"); a file without counts reads as count 1.
#include <catch2/catch.hpp>

#include "workload/OperatorBuilders.hpp"
#include "workload/WorkloadLoader.hpp"
#include "workload/WorkloadWriter.hpp"

using namespace ts;

TEST_CASE("a written workload reads back the same, counts included", "[workload]") {
  Workload w;
  w.name = "bert step";
  w.description = "from a \"trace\"";
  w.operators = {make_gemm("qkv", 512, 2304, 768), make_batched_gemm("scores", 48, 128, 128, 64),
                 make_vector_op("residual", "add", 512, 768, DataType::bf16),
                 make_fused_chain("ln", {"add", "layernorm"}, 512, 768, DataType::fp32)};
  w.operators[2].count = 2;
  const std::string text = workload_yaml(w);
  const Workload back = parse_workload(text, "written.yaml");
  CHECK(back.name == "bert step");
  CHECK(back.description == "from a \"trace\"");
  REQUIRE(back.operators.size() == 4);
  for (size_t i = 0; i < 4; ++i) {
    CHECK(back.operators[i].name == w.operators[i].name);
    CHECK(back.operators[i].type == w.operators[i].type);
    CHECK(back.operators[i].shape_text() == w.operators[i].shape_text());
    CHECK(back.operators[i].primary_dtype() == w.operators[i].primary_dtype());
    CHECK(back.operators[i].count == w.operators[i].count);
  }
  // count 1 is not written: a workload without counts is what it was
  CHECK(text.find("count: 2") != std::string::npos);
  CHECK(text.find("count: 1") == std::string::npos);
}

TEST_CASE("a workload's count must be a positive integer", "[workload]") {
  CHECK_THROWS_AS(parse_workload("version: 1\nkind: workload\noperators:\n"
                                 "  - {name: a, type: gemm, M: 1, N: 1, K: 1, count: 0}\n",
                                 "w.yaml"),
                  InputError);
}
