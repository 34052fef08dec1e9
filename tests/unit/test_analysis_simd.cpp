// Rules for a SIMD FMA unit (matmul granule [1, lanes, 1], the host's cores), with numbers derived
// here: a register file holds whole vectors, a broadcast operand occupies a whole vector on its
// path, and operands that share an edge add up on it.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

// 16 fp32 lanes, 1 GHz, MEM -> RF at 64 B/cycle; the unit and its register edges far faster,
// so that the MEM -> RF edge alone bounds an op call. RF holds 128 B: two vectors.
const char* kGraph = R"(version: 1
kind: architecture
name: simd
clock: 1GHz
nodes:
  - {name: MEM, type: memory, capacity: 1GiB}
  - {name: RF, type: memory, capacity: 128}
  - name: FMA
    type: compute
    operations:
      - {class: matmul, dtype: fp32, ops_per_cycle: 1000000, granule: [1, 16, 1]}
edges:
  - {from: MEM, to: RF, bandwidth: 64B/cycle}
  - {from: RF, to: MEM, bandwidth: 64B/cycle}
  - {from: RF, to: FMA, bandwidth: 1000000B/cycle}
  - {from: FMA, to: RF, bandwidth: 1000000B/cycle}
)";

std::string mapping(int m, int n) {
  return "version: 1\nkind: mapping\nname: m\ntree:\n  tile: MEM\n  children:\n"
         "    - tile: RF\n      buffers: {A: bypass, B: bypass}\n      temporal: {K: 64}\n"
         "      children:\n        - op: FMA\n          factors: {M: " +
         std::to_string(m) + ", N: " + std::to_string(n) + ", K: 1}\n";
}

AnalysisScratch evaluate_block(int m, int n) {
  static const ArchitectureGraph g = parse_architecture(kGraph, "simd.yaml");
  const Operator op = make_gemm("g", m, n, 64, DataType::fp32);
  const MappingProgram p = compile_mapping(parse_mapping(mapping(m, n), "m.yaml"), op, g);
  AnalysisScratch e;
  evaluate(p, e);
  return e;
}

}  // namespace

TEST_CASE("a register tile above a SIMD unit holds whole vectors", "[analysis][simd]") {
  // C of 2 x 16 fp32 is 128 B: fits. 2 x 4 pads to 2 x 16: still 128 B. 3 x 4 pads to 3 x 16 =
  // 192 B > 128 B, although its 48 B unpadded would fit.
  CHECK(evaluate_block(2, 16).valid());
  CHECK(evaluate_block(2, 4).valid());
  const AnalysisScratch e = evaluate_block(3, 4);
  CHECK_FALSE(e.valid());
  CHECK(e.failure.kind == EvaluationFailure::overflow);
  CHECK(e.failure.bytes == Approx(192));
}

TEST_CASE("broadcast operands and operands sharing an edge", "[analysis][simd]") {
  // One call: A is 2 x 1 elements without N, each broadcast to 16 lanes: 2 x 16 x 4 = 128 B;
  // B is 1 x 16 x 4 = 64 B. Both cross MEM -> RF (64 B/cycle at 1 GHz): (128 + 64) / 64 = 3 ns.
  // (Without the broadcast rule: (8 + 64) / 64 = 1.125 ns; without adding up: 128 / 64 = 2 ns.)
  const AnalysisScratch e = evaluate_block(2, 16);
  REQUIRE(e.valid());
  const NodeReport& rf = e.reports[1];  // MEM (0) -> RF (1) -> FMA (2)
  CHECK(rf.iterations == Approx(64));
  CHECK(rf.compute_s == Approx(3e-9));
  CHECK(rf.bound.is_edge());
}
