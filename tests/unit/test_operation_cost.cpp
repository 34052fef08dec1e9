// Operations counted by kind (workload stages) and priced by kind (a compute capability's
// operation_cost): the expected times are worked out by hand in the comments (1 GHz: cycles = ns).
#include <catch2/catch.hpp>
#include <filesystem>

#include "AnalysisFixtures.hpp"
#include "InputErrorCapture.hpp"
#include "TempDir.hpp"
#include "analysis/Prediction.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using namespace ts::test;

namespace {

// tiny_arch with its elementwise operation priced: an exp costs 10 basic operations, a division
// 4 (a square root, not named, 1).
std::string priced_arch(const std::string& cost = "{exp: 10, div: 4}") {
  return replace_once(tiny_arch(),
                      "{class: elementwise, dtype: fp16, ops_per_cycle: 64, granule: [32]}",
                      "{class: elementwise, dtype: fp16, ops_per_cycle: 64, granule: [32], "
                      "operation_cost: " +
                          cost + "}");
}

// gelu (6 basic, 1 exp, 1 div per element) and an einsum of 2 basic, 1 exp, 1 div, both 64 x 1024.
const char* kWorkload = R"(version: 1
kind: workload
name: priced
operators:
  - {name: gelu, type: gelu, rows: 64, cols: 1024}
  - name: act
    type: einsum
    class: elementwise
    dims: {R: 64, C: 1024}
    tensors:
      - {name: X, dims: [R, C]}
      - {name: Y, dims: [R, C]}
    stages: [{name: act, inputs: [X], output: Y, operations: {basic: 2, exp: 1, div: 1}}]
)";

// In place (like run_case): the program points at the case's graph and operator.
void evaluate_on(Case& c, const std::string& arch, const std::string& op) {
  c.graph = parse_architecture(arch, "priced.yaml");
  c.workload = parse_workload(kWorkload, "priced-suite.yaml");
  // DRAM loops 16 times over SRAM tiles of 4 rows; SRAM loops over PE calls of 32 elements.
  c.mapping = parse_mapping(
      "version: 1\nkind: mapping\nname: m\ntree:\n" + row_tiles({.dram_temporal = "R: 16"}),
      "m.yaml");
  c.program = compile_mapping(c.mapping, find_op(c.workload, op), c.graph);
  evaluate(c.program, c.eval);
}

double cycles_on(const std::string& arch, const std::string& op) {
  Case c;
  evaluate_on(c, arch, op);
  return c.cycles();
}

}  // namespace

TEST_CASE("a stage counts its operations by kind", "[workload][operation-cost]") {
  const Workload w = parse_workload(kWorkload, "priced-suite.yaml");
  const Stage& gelu = w.operators[0].stages[0];
  CHECK(gelu.operations == OperationCounts{6, 1, 1, 0});
  CHECK(gelu.ops_per_point == 8);  // the total, as before
  const Stage& act = w.operators[1].stages[0];
  CHECK(act.operations == OperationCounts{2, 1, 1, 0});
  CHECK(act.ops_per_point == 4);
  // softmax: max, subtract, sum and the multiply by the row's reciprocal, and one exp.
  const Operator softmax = make_vector_op("s", "softmax", 2, 8, DataType::fp16);
  CHECK(softmax.stages[0].operations == OperationCounts{4, 1, 0, 0});
  // A plain `ops_per_point` is that many basic operations.
  const Operator gemm = make_gemm("g", 8, 8, 8, DataType::fp16);
  CHECK(gemm.stages[0].operations == OperationCounts{1, 0, 0, 0});
}

TEST_CASE("a stage with both ops_per_point and operations is refused at operations",
          "[workload][operation-cost]") {
  const std::string file = fixture("workload/operations-and-ops-per-point.yaml");
  const InputError e = input_error_of([&] { load_workload(file); });
  CHECK(e.where().line == 14);
  CHECK(e.where().column == 80);
  CHECK(std::string(e.what()).find("`ops_per_point` and `operations`") != std::string::npos);

  auto stage_error = [](const std::string& operations) {
    return input_error_of([&] {
      parse_workload(replace_once(kWorkload, "{basic: 2, exp: 1, div: 1}", operations), "w.yaml");
    });
  };
  CHECK(std::string(stage_error("{basic: 2, tanh: 1}").what())
            .find("unknown operation kind 'tanh'") != std::string::npos);
  CHECK(std::string(stage_error("{basic: 2, exp: -1}").what()).find("at least 0") !=
        std::string::npos);
  CHECK(std::string(stage_error("{basic: 0}").what()).find("counts no operations") !=
        std::string::npos);
}

TEST_CASE("a capability prices operations by kind, at least 1 each", "[arch][operation-cost]") {
  const ArchitectureGraph g = parse_architecture(priced_arch(), "priced.yaml");
  const ComputeCapability* cap = g.nodes[2].capability(OpClass::elementwise);
  REQUIRE(cap);
  REQUIRE(cap->operation_cost);
  CHECK(*cap->operation_cost == OperationCounts{1, 10, 4, 1});
  // Only when written: the other operations, and graphs without it, keep their hash.
  CHECK_FALSE(g.nodes[2].capability(OpClass::reduction)->operation_cost);
  CHECK(g.content_hash() != parse_architecture(tiny_arch(), "tiny.yaml").content_hash());

  const InputError below =
      input_error_of([&] { load_architecture(fixture("arch/operation-cost-below-one.yaml")); });
  CHECK(below.where().line == 18);
  CHECK(below.where().column == 26);
  CHECK(std::string(below.what()).find("at least 1") != std::string::npos);
  const InputError basic =
      input_error_of([&] { parse_architecture(priced_arch("{basic: 2}"), "priced.yaml"); });
  CHECK(std::string(basic.what()).find("`basic` is the unit") != std::string::npos);

  // Written back and read again: the same costs, the same hash.
  TempDir dir;
  const std::string out = (dir.path() / "priced.yaml").string();
  write_architecture(g, "", out);
  const ArchitectureGraph back = load_architecture(out);
  CHECK(back.content_hash() == g.content_hash());
  CHECK(*back.nodes[2].capability(OpClass::elementwise)->operation_cost ==
        OperationCounts{1, 10, 4, 1});
}

TEST_CASE("an exp and a division cost what the unit's operation_cost says",
          "[analysis][operation-cost]") {
  // Both on one PE of 64 elementwise operations a cycle. Per DRAM iteration (4 rows of 1024
  // fp16): load X 8 KiB at 64 B/cycle = 128 cycles, store Y 8 KiB = 128; the SRAM tile computes
  // 4096 elements x (operations per element, priced) / 64. Double-buffered over 16 iterations:
  // 16 x max(128, W, 128) + (128 + W + 128 - W) = 16 W + 256 whenever W >= 128.
  // gelu: unpriced 8 per element -> W = 512 -> 8448 cycles; priced 6 + 10 + 4 = 20 -> W = 1280
  //   -> 20736 cycles.
  // act: unpriced 4 -> W = 256 -> 4352; priced 2 + 10 + 4 = 16 -> W = 1024 -> 16640.
  CHECK(cycles_on(tiny_arch(), "gelu") == Approx(8448.0));
  CHECK(cycles_on(priced_arch(), "gelu") == Approx(20736.0));
  CHECK(cycles_on(tiny_arch(), "act") == Approx(4352.0));
  Case act;
  evaluate_on(act, priced_arch(), "act");
  CHECK(act.cycles() == Approx(16640.0));
  CHECK(bound_text(act.graph, act.eval.bound) == "compute:PE");
  // Utilisation counts the priced operations: 65536 x 16 over 64 x 4 PEs = 4096 ideal cycles.
  const Prediction p = make_prediction(act.program, analysis_result(act.program, act.eval));
  CHECK(p.utilization == Approx(4096.0 / 16640.0));
}

TEST_CASE("costs of 1 predict exactly what a graph without operation_cost does",
          "[analysis][operation-cost]") {
  for (const char* op : {"gelu", "act"}) {
    // Exactly, not approximately: the same figure reaches the same arithmetic.
    CHECK(cycles_on(priced_arch("{exp: 1, div: 1, sqrt: 1}"), op) == cycles_on(tiny_arch(), op));
  }
}
