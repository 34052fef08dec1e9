#pragma once
// The graph the LLM operator and kernel-floor tests work by hand: DRAM <-> BUF at 64 B/cycle,
// BUF <-> PE at 1024 B/cycle, 1 GHz (a cycle is a nanosecond), and a PE whose compute never
// bounds. `pe_keys` adds lines to the PE (e.g. its min_kernel_time).
#include <string>

namespace ts::test {

inline std::string llm_ops_graph(const std::string& pe_keys = "") {
  return R"(version: 1
kind: architecture
name: llm-ops
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - {name: BUF, type: memory, capacity: 1MiB}
  - name: PE
    type: compute
)" + pe_keys +
         R"(    operations:
      - {class: matmul, dtype: fp16, ops_per_cycle: 1000000000, granule: [1, 1, 1]}
      - {class: elementwise, dtype: fp16, ops_per_cycle: 1000000000, granule: [1]}
      - {class: reduction, dtype: fp16, ops_per_cycle: 1000000000, granule: [1]}
edges:
  - {from: DRAM, to: BUF, bandwidth: 64B/cycle}
  - {from: BUF, to: DRAM, bandwidth: 64B/cycle}
  - {from: BUF, to: PE, bandwidth: 1024B/cycle}
  - {from: PE, to: BUF, bandwidth: 1024B/cycle}
)";
}

}  // namespace ts::test
