#pragma once
// Tiny graphs and operators written inline, so that every expected number in the analysis tests
// can be derived by hand from the text next to it. Clock 1 GHz: one cycle is one nanosecond.
#include <optional>
#include <string>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::test {

// DRAM (1 GiB) -> SRAM (64 KiB, 4 instances) -> PE (4 instances), 1 GHz, 5 us of launch overhead.
// DRAM <-> SRAM at `dram_bw` (64 B/cycle by default), `sharing` among the 4 SRAMs (shared by
// default); SRAM <-> PE at 1024 B/cycle. A PE does 256 fp16 matmul MACs a cycle in 8x8x4 granules,
// 64 elementwise or reduction operations a cycle in granules of 32.
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

// Replaces the first `from` in `text` with `to`: a one-off variant of a shared fixture.
inline std::string replace_once(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("no '" + from + "' to replace");
  return text.replace(at, from.size(), to);
}

// A PE operation: fp16 matmul in 8x8x4 granules at `ops_per_cycle` MACs a cycle.
inline std::string fp16_matmul(int ops_per_cycle) {
  return "{class: matmul, dtype: fp16, ops_per_cycle: " + std::to_string(ops_per_cycle) +
         ", granule: [8, 8, 4]}";
}

// DRAM -> BUF (64 KiB) -> REG -> PE, one instance each, 1 GHz. The defaults are the three-level
// GEMM graph: DRAM <-> BUF at 64 B/cycle with no latency, BUF <-> REG at 32 B/cycle, REG of
// 64 KiB, a PE call of 8x8x4 fp16 MACs in one cycle (256 MACs/cycle); REG <-> PE is always
// 1024 B/cycle.
struct ThreeLevels {
  std::string name = "three-level-gemm";
  std::string dram_port = "";  // DRAM's one port for reads and writes together, e.g. "64B/cycle"
  std::string reg_capacity = "64KiB";
  std::string operation = fp16_matmul(256);
  std::string dram_buf = "64B/cycle";              // both directions
  std::optional<int> dram_latency = std::nullopt;  // cycles, on DRAM -> BUF only
  std::string buf_reg = "32B/cycle";               // both directions
};

inline std::string three_levels(const ThreeLevels& a = {}) {
  const std::string port = a.dram_port.empty() ? "" : ", bandwidth: " + a.dram_port;
  const std::string latency =
      a.dram_latency ? ", latency: " + std::to_string(*a.dram_latency) : std::string();
  return "version: 1\nkind: architecture\nname: " + a.name + "\nclock: 1GHz\nnodes:\n" +
         "  - {name: DRAM, type: memory, capacity: 1GiB" + port + "}\n" +
         "  - {name: BUF, type: memory, capacity: 64KiB}\n" +
         "  - {name: REG, type: memory, capacity: " + a.reg_capacity + "}\n" +
         "  - name: PE\n    type: compute\n    operations:\n      - " + a.operation + "\n" +
         "edges:\n  - {from: DRAM, to: BUF, bandwidth: " + a.dram_buf + latency + "}\n" +
         "  - {from: BUF, to: DRAM, bandwidth: " + a.dram_buf + "}\n" +
         "  - {from: BUF, to: REG, bandwidth: " + a.buf_reg + "}\n" +
         "  - {from: REG, to: BUF, bandwidth: " + a.buf_reg + "}\n" +
         "  - {from: REG, to: PE, bandwidth: 1024B/cycle}\n" +
         "  - {from: PE, to: REG, bandwidth: 1024B/cycle}\n";
}

// Mapping trees for run_case, which adds the header. In each, an empty string leaves its line out.

// DRAM -> SRAM -> PE for a row-wise operator (add, softmax): DRAM loops over SRAM tiles, each of
// which loops `sram_temporal` over PE calls of 32 columns. Double-buffered SRAM by default.
struct RowTiles {
  std::string dram_temporal = "";            // e.g. "R: 16"
  std::string dram_spatial = "";             // e.g. "R: 2"
  std::string sram = "double_buffer: true";  // or "streamed: true", "double_buffer: false"
  std::string sram_temporal = "R: 4, C: 32";
};

// DRAM -> SRAM -> PE for a GEMM: DRAM loops over SRAM tiles, each of which loops
// {M: sram_m, N: 8, K: 16} over PE calls of {M: pe_m, N: 8, K: 4}; with the defaults one SRAM
// tile covers 64 x 64 x 64 (8 x 8 x 16 = 1024 calls of 256 MACs). Double-buffered SRAM by default.
struct GemmTiles {
  std::string dram_temporal = "";            // e.g. "M: 5"
  std::string dram_spatial = "";             // e.g. "M: 4"
  std::string sram = "double_buffer: true";  // or "streamed: true", "" for single-buffered
  std::string sram_m = "8";
  std::string pe_m = "8";
};

// The mapper's template on tiny_arch: every factor free, a DRAM tile spread over the SRAM
// instances along M, an SRAM tile, a PE op of 8x8x4 granules.
inline constexpr const char* kFreeDramSramPeTemplate = R"(version: 1
kind: mapping
name: t
tree:
  tile: DRAM
  temporal: {M: "?", N: "?", K: "?"}
  order: "?"
  spatial: {M: "?"}
  children:
    - tile: SRAM
      double_buffer: true
      temporal: {M: "?", N: "?", K: "?"}
      children:
        - op: PE
          factors: {M: 8, N: 8, K: 4}
)";

inline std::string dram_sram_pe(const std::string& dram_temporal, const std::string& dram_spatial,
                                const std::string& sram, const std::string& sram_temporal,
                                const std::string& pe_factors) {
  std::string t = "  tile: DRAM\n";
  if (!dram_temporal.empty()) t += "  temporal: {" + dram_temporal + "}\n";
  if (!dram_spatial.empty()) t += "  spatial: {" + dram_spatial + "}\n";
  t += "  children:\n    - tile: SRAM\n";
  if (!sram.empty()) t += "      " + sram + "\n";
  return t + "      temporal: {" + sram_temporal + "}\n      children:\n        - op: PE\n" +
         "          factors: {" + pe_factors + "}\n";
}

inline std::string row_tiles(const RowTiles& m = {}) {
  return dram_sram_pe(m.dram_temporal, m.dram_spatial, m.sram, m.sram_temporal, "C: 32");
}

inline std::string gemm_tiles(const GemmTiles& m = {}) {
  return dram_sram_pe(m.dram_temporal, m.dram_spatial, m.sram, "M: " + m.sram_m + ", N: 8, K: 16",
                      "M: " + m.pe_m + ", N: 8, K: 4");
}

// mm64 on the three-level GEMM graph: DRAM loops `dram_temporal` (a walk over K); BUF has the
// lines in `buf` (none by default: single-buffered, no loop); REG, double-buffered, loops
// {M: 8, N: 8, K: 4} over PE calls of {M: 8, N: 8, K: 4}: one REG tile is 64 x 64 x 16.
struct ThreeLevelGemmTiles {
  std::string dram_temporal = "K: 4";
  // e.g. "double_buffer: true", "temporal: {K: 3/1}"
  std::vector<std::string> buf = {};
};

inline std::string three_level_gemm_tiles(const ThreeLevelGemmTiles& m = {}) {
  std::string t =
      "  tile: DRAM\n  temporal: {" + m.dram_temporal + "}\n  children:\n    - tile: BUF\n";
  for (const auto& line : m.buf) t += "      " + line + "\n";
  return t + R"(      children:
        - tile: REG
          double_buffer: true
          temporal: {M: 8, N: 8, K: 4}
          children:
            - op: PE
              factors: {M: 8, N: 8, K: 4}
)";
}

// add 64 x 1024 fp16 on an elementwise three_levels graph: DRAM loops 16 times over 4-row BUF
// tiles; BUF loops 4 x 8 = 32 times over 1 x 128 REG tiles; both double-buffered.
inline std::string three_level_add(bool restarts) {
  return std::string(R"(  tile: DRAM
  temporal: {R: 16}
  children:
    - tile: BUF
      double_buffer: true
)") + (restarts ? "      pipeline_restarts: true\n" : "") +
         R"(      temporal: {R: 4, C: 8}
      children:
        - tile: REG
          double_buffer: true
          children:
            - op: PE
              factors: {C: 128}
)";
}

// A workload of one fused add then relu over 64 x 1024 fp16, with an intermediate T1.
inline const char* kChain = R"(version: 1
kind: workload
name: chain
operators:
  - {name: add_relu, type: fused, steps: [add, relu], rows: 64, cols: 1024}
)";

struct Case {
  ArchitectureGraph graph;
  Workload workload;
  Mapping mapping;
  MappingProgram program;
  AnalysisScratch eval;
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
