// A memory's read and write ports, shared by all its instances or one per instance, in the
// per-iteration times and in the operator-wide floor; worked by hand on tiny graphs at 1 GHz (one
// cycle is one nanosecond), with compute far faster than any transfer.
#include <catch2/catch.hpp>
#include <string>

#include "analysis/Prediction.hpp"
#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

AnalysisScratch evaluate_text(const ArchitectureGraph& g, const Operator& op, const std::string& tree) {
  const MappingProgram p = compile_mapping(
      parse_mapping("version: 1\nkind: mapping\nname: m\ntree:\n" + tree, "m.yaml"), op, g);
  AnalysisScratch e;
  evaluate(p, e);
  REQUIRE(e.valid());
  return e;
}

}  // namespace

TEST_CASE("a write port bounds the operator through the operator-wide floor", "[analysis][ports]") {
  // DRAM -> GB -> PE, every edge 1024 B/cycle, but GB takes writes at 64 B/cycle. mm64 (fp16,
  // 8 KiB per tensor) walks K in 4 steps at DRAM; GB, double-buffered, feeds one PE call of
  // 64 x 64 x 16 per step and keeps C across the walk.
  // The tree, step by step: A and B come into GB (4 KiB at 64 B/cycle: 64 cycles) while the PE
  // writes its C block into GB (8 KiB at 64: 128 cycles, its operands 4 KiB at 1024 take 4);
  // C leaves once, 2 KiB a step at 1024 (2). 4 x max(64, 128, 2) + (64 + 128 + 2 - 128) = 578.
  // But both kinds of writes go through the one write port: 16 KiB loaded plus 4 x 8 KiB from
  // the PE, 48 KiB / 64 = 768 cycles, which is the operator's time.
  const ArchitectureGraph g = parse_architecture(R"(version: 1
kind: architecture
name: write-port
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - {name: GB, type: memory, capacity: 1MiB, write_bandwidth: 64B/cycle}
  - name: PE
    type: compute
    operations:
      - {class: matmul, dtype: fp16, ops_per_cycle: 1000000, granule: [1, 1, 1]}
edges:
  - {from: DRAM, to: GB, bandwidth: 1024B/cycle}
  - {from: GB, to: DRAM, bandwidth: 1024B/cycle}
  - {from: GB, to: PE, bandwidth: 1024B/cycle}
  - {from: PE, to: GB, bandwidth: 1024B/cycle}
)",
                                                 "write-port.yaml");
  const AnalysisScratch e = evaluate_text(g, make_gemm("mm64", 64, 64, 64), R"(  tile: DRAM
  temporal: {K: 4}
  children:
    - tile: GB
      double_buffer: true
      children:
        - op: PE
          factors: {M: 64, N: 64, K: 16}
)");
  CHECK(e.device_s * 1e9 == Approx(768.0));
  CHECK(bound_text(g, e.bound) == "edge:PE->GB");
}

TEST_CASE("a port per instance against one port shared by the instances", "[analysis][ports]") {
  // DRAM -> SRAM (4 instances, read port 64 B/cycle) -> PE (4), per-instance edges far faster.
  // mm64 spread over the 4 SRAMs along M: each loads A 16 x 64 (2 KiB) and B (8 KiB) at 4096
  // B/cycle (2.5 cycles), feeds one PE call of 16 x 64 x 64 with A and B (10 KiB) read out of
  // SRAM, and stores its 2 KiB of C to DRAM, read out of SRAM too. Single-buffered: the sum.
  // - shared: the 4 busy SRAMs split the 64 B/cycle: 16 each. 10 KiB / 16 = 640, 2 KiB / 16 =
  //   128: 2.5 + 640 + 128 = 770.5.
  // - per_instance: each SRAM reads at 64 B/cycle: 160 + 32: 2.5 + 160 + 32 = 194.5.
  // (The read-port floors, 48 KiB over 64 or over 4 x 64 B/cycle, 768 and 192, stay below.)
  auto graph = [](const std::string& scope) {
    return parse_architecture(R"(version: 1
kind: architecture
name: ports
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - {name: SRAM, type: memory, capacity: 1MiB, instances: 4, read_bandwidth: 64B/cycle)" +
                                  scope + R"(}
  - name: PE
    type: compute
    instances: 4
    operations:
      - {class: matmul, dtype: fp16, ops_per_cycle: 1000000, granule: [1, 1, 1]}
edges:
  - {from: DRAM, to: SRAM, bandwidth: 4096B/cycle}
  - {from: SRAM, to: DRAM, bandwidth: 4096B/cycle}
  - {from: SRAM, to: PE, bandwidth: 1024B/cycle}
  - {from: PE, to: SRAM, bandwidth: 1024B/cycle}
)",
                              "ports.yaml");
  };
  const std::string tree = R"(  tile: DRAM
  spatial: {M: 4}
  children:
    - tile: SRAM
      children:
        - op: PE
          factors: {M: 16, N: 64, K: 64}
)";
  const Operator op = make_gemm("mm64", 64, 64, 64);
  const ArchitectureGraph shared = graph("");
  const ArchitectureGraph explicit_shared = graph(", port_scope: shared");
  const ArchitectureGraph own = graph(", port_scope: per_instance");
  CHECK(evaluate_text(shared, op, tree).device_s * 1e9 == Approx(770.5));
  CHECK(evaluate_text(explicit_shared, op, tree).device_s ==
        evaluate_text(shared, op, tree).device_s);
  CHECK(evaluate_text(own, op, tree).device_s * 1e9 == Approx(194.5));
  // A user of a per-instance port never gets more than one instance's figure.
  const NodeId sram = *own.find_node("SRAM");
  const EdgeId down = own.edge_between(sram, *own.find_node("PE"));
  CHECK(own.effective_bandwidth(down, 1) == Approx(64e9));
  CHECK(own.effective_bandwidth(down, 8) == Approx(32e9));
  CHECK(shared.effective_bandwidth(down, 8) == Approx(8e9));
}
