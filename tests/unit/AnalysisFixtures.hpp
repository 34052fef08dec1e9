#pragma once
// Tiny graphs and operators written inline, so that every expected number in the analysis tests
// can be derived by hand from the text next to it. Clock 1 GHz: one cycle is one nanosecond.
#include <string>

#include "analysis/MappingProgram.hpp"
#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::test {

// DRAM -> SRAM (4 instances) -> PE (4 instances). `sharing` and `dram_bw` vary per test.
inline std::string tiny_arch(const std::string& sharing = "shared",
                             const std::string& dram_bw = "64B/cycle") {
  return R"(version: 1
kind: architecture
name: tiny
clock: 1GHz
launch_overhead: 5us
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - {name: SRAM, type: memory, capacity: 64KiB, instances: 4}
  - name: PE
    type: compute
    instances: 4
    operations:
      - {class: matmul, dtype: fp16, ops_per_cycle: 256, granule: [8, 8, 4]}
      - {class: elementwise, dtype: fp16, ops_per_cycle: 64, granule: [32]}
      - {class: reduction, dtype: fp16, ops_per_cycle: 64, granule: [32]}
edges:
  - {from: DRAM, to: SRAM, bandwidth: )" +
         dram_bw + ", sharing: " + sharing + R"(}
  - {from: SRAM, to: DRAM, bandwidth: )" +
         dram_bw + ", sharing: " + sharing + R"(}
  - {from: SRAM, to: PE, bandwidth: 1024B/cycle}
  - {from: PE, to: SRAM, bandwidth: 1024B/cycle}
)";
}

inline std::string tiny_workload() {
  return R"(version: 1
kind: workload
name: tiny-suite
operators:
  - {name: mm64, type: gemm, M: 64, N: 64, K: 64}
  - {name: mm60, type: gemm, M: 60, N: 64, K: 64}
  - {name: mm256, type: gemm, M: 256, N: 64, K: 64}
  - {name: mm300, type: gemm, M: 300, N: 64, K: 64}
  - {name: mm320, type: gemm, M: 320, N: 64, K: 64}
  - {name: add, type: add, rows: 64, cols: 1024}
  - {name: add128, type: add, rows: 128, cols: 1024}
  - {name: softmax, type: softmax, rows: 64, cols: 1024}
)";
}

struct Case {
  ArchitectureGraph graph;
  Workload workload;
  Mapping mapping;
  MappingProgram program;
  Evaluation eval;
  double cycles() const { return eval.device_s * graph.clock_hz; }
};

inline const Operator& find_op(const Workload& w, const std::string& name) {
  for (const auto& op : w.operators)
    if (op.name == name) return op;
  throw std::runtime_error("no operator " + name);
}

// Compiles and evaluates a mapping for one operator of the tiny suite.
inline void run_case(Case& c, const std::string& arch, const std::string& op,
                     const std::string& mapping) {
  c.graph = parse_architecture(arch, "tiny.yaml");
  c.workload = parse_workload(tiny_workload(), "tiny-suite.yaml");
  c.mapping = parse_mapping("version: 1\nkind: mapping\nname: m\ntree:\n" + mapping, "m.yaml");
  c.program = compile_mapping(c.mapping, find_op(c.workload, op), c.graph);
  evaluate(c.program, c.eval);
}

}  // namespace ts::test
