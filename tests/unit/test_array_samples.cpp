// The bundled PE-array graphs (samples/arch/systolic-os-16x16.yaml, eyeriss-12x14.yaml): each
// loads, its GEMM template compiles, the mapper maps a bundled GEMM on it, and a small GEMM under
// a fixed mapping written here moves the bytes worked out by hand.
#include <catch2/catch.hpp>

#include "AnalysisFixtures.hpp"
#include "SamplePath.hpp"
#include "mapper/Mapper.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using namespace ts::test;

namespace {

double edge_bytes(const ArchitectureGraph& g, const AnalysisScratch& e, const std::string& from,
                  const std::string& to) {
  for (size_t k = 0; k < g.edges.size(); ++k)
    if (g.node(g.edges[k].from).name == from && g.node(g.edges[k].to).name == to)
      return e.edge_bytes[k];
  throw std::runtime_error("no edge " + from + " -> " + to);
}

// The graph's GEMM template compiles for a bundled GEMM (bert-base ffn_up, 4096 x 3072 x 768),
// and the mapper finds a valid mapping for it, within the graph's peak MAC rate.
void check_maps_bundled_gemm(const ArchitectureGraph& g, double macs_per_cycle) {
  const Workload w = load_workload(sample("workloads/bert-base.yaml"));
  const Operator& op = find_op(w, "ffn_up");
  const Mapping tmpl = default_template(op, g);
  CHECK_NOTHROW(compile_mapping(tmpl, op, g, true));
  OperatorPredictionOptions options;
  options.mapper.budget = 20000;
  MappingProgram program;
  const Prediction p = predict_operator(op, g, options, &program);
  AnalysisScratch eval;
  evaluate(program, eval);
  CHECK(eval.valid());
  const double macs = 4096.0 * 3072.0 * 768.0;
  CHECK(p.cycles >= macs / macs_per_cycle);
}

}  // namespace

TEST_CASE("the output-stationary systolic sample maps GEMMs and multicasts its operands",
          "[samples][keep]") {
  const ArchitectureGraph g = load_architecture(sample("arch/systolic-os-16x16.yaml"));
  REQUIRE(g.node(*g.find_node("PE")).instances == 256);
  check_maps_bundled_gemm(g, 256.0);

  // A 64 x 64 x 32 fp16 GEMM: DRAM walks N in 2 steps over global-buffer tiles of M 64 x N 32 x
  // K 32, each spreading M 16 x N 16 over the PEs and looping {M: 4, N: 2, K: 32} over calls of
  // one MAC. The global buffer's A tile (64 x 32 x 2 B = 4 KiB) is not indexed by the N walk and
  // stays: 4 KiB once; its B tile (32 x 32 x 2 = 2 KiB) comes in each step: 4 KiB; its C tile
  // (64 x 32 x 2 = 4 KiB) goes out each step, finished (K is all inside): 8 KiB.
  // DRAM -> GlobalBuffer 8 KiB, GlobalBuffer -> DRAM 8 KiB.
  const Operator op = make_gemm("g", 64, 64, 32);
  const Mapping m = parse_mapping(R"(version: 1
kind: mapping
name: os-64x64x32
tree:
  tile: DRAM
  temporal: {N: 2}
  children:
    - tile: GlobalBuffer
      double_buffer: true
      temporal: {M: 4, N: 2, K: 32}
      spatial: {M: 16, N: 16}
      children:
        - op: PE
          factors: {M: 1, N: 1, K: 1}
          keep: {A: false, B: false, C: true}
)",
                                  "os.yaml");
  const MappingProgram program = compile_mapping(m, op, g);
  AnalysisScratch eval;
  evaluate(program, eval);
  REQUIRE(eval.valid());
  CHECK(edge_bytes(g, eval, "DRAM", "GlobalBuffer") == Approx(8192.0));
  CHECK(edge_bytes(g, eval, "GlobalBuffer", "DRAM") == Approx(8192.0));
  // Into the array, every call (no PE holds an operand): A, 64 x 32 x 2 B = 4 KiB read for each
  // of the 64 columns of C (2 DRAM steps x 2 steps x 16 spread over N), 256 KiB, but the 16 PEs
  // of a row take one multicast read: 16 KiB. B likewise along the columns (M: 4 steps x 16):
  // 256 KiB / 16 = 16 KiB. Out: C's 8 KiB once (each PE keeps its element over the K walk).
  CHECK(edge_bytes(g, eval, "GlobalBuffer", "PE") == Approx(16384.0 + 16384.0));
  CHECK(edge_bytes(g, eval, "PE", "GlobalBuffer") == Approx(8192.0));
  // 64 x 64 x 32 MACs at 256 a cycle take at least 512 cycles of 700 MHz.
  CHECK(eval.device_s * 700e6 >= 512.0);
}

TEST_CASE("the Eyeriss sample maps GEMMs, multicasts filters and bypasses its global buffer",
          "[samples][keep]") {
  const ArchitectureGraph g = load_architecture(sample("arch/eyeriss-12x14.yaml"));
  REQUIRE(g.node(*g.find_node("PE")).instances == 168);
  REQUIRE(g.node(*g.find_node("GLB")).capacity_bytes == Approx(108.0 * 1024));
  check_maps_bundled_gemm(g, 168.0);

  // A 14 x 16 x 12 fp16 GEMM (A 14 x 12 = 336 B, B 12 x 16 = 384 B, C 14 x 16 = 448 B): the GLB
  // spreads M 14 over the columns and K 12 down the rows, 168 PEs, and walks N in 2 steps; each
  // PE holds a filter block of K 1 x N 8 (16 B of its 448), one ifmap value (2 B of 24) and 8
  // psums (16 B of 48), and loops over N 8 single MACs.
  // A: into the GLB once, 336 B on DRAM -> GLB. C: out of the GLB once, 448 B on GLB -> DRAM.
  // B bypasses the GLB: each PE's 16 B filter block comes from DRAM on every N step (the walk
  // indexes B), 14 x 12 PEs x 2 x 16 B = 5376 B of fills, but the 14 PEs of a row (spread over
  // M, which does not index B) take the same block from one multicast read: 5376 / 14 = 384 B,
  // B read exactly once, on DRAM -> FilterSpad, and nothing of it on DRAM -> GLB.
  const Operator op = make_gemm("g", 14, 16, 12);
  const Mapping m = parse_mapping(R"(version: 1
kind: mapping
name: eyeriss-14x16x12
tree:
  tile: DRAM
  children:
    - tile: GLB
      buffers: {B: bypass}
      temporal: {N: 2}
      spatial: {M: 14, K: 12}
      children:
        - tile: FilterSpad
          buffers: {A: IfmapSpad, C: PsumSpad}
          temporal: {N: 8}
          children:
            - op: PE
              factors: {M: 1, N: 1, K: 1}
)",
                                  "eyeriss.yaml");
  const MappingProgram program = compile_mapping(m, op, g);
  AnalysisScratch eval;
  evaluate(program, eval);
  REQUIRE(eval.valid());
  CHECK(edge_bytes(g, eval, "DRAM", "GLB") == Approx(336.0));
  CHECK(edge_bytes(g, eval, "GLB", "DRAM") == Approx(448.0));
  CHECK(edge_bytes(g, eval, "DRAM", "FilterSpad") == Approx(384.0));
  // Psums: each PE's 8 psums (16 B) go up on each of the 2 N steps, 168 x 2 x 16 = 5376 B of
  // partials, but the 12 PEs of a column (spread over K, which C lacks) are summed on the way by
  // the chain network: 5376 / 12 = 448 B reach the GLB, C exactly once.
  CHECK(edge_bytes(g, eval, "PsumSpad", "GLB") == Approx(448.0));
}

TEST_CASE("the weight-stationary PE-instance sample keeps its weights in the PEs",
          "[samples][keep]") {
  const ArchitectureGraph g = load_architecture(sample("arch/systolic-ws-pe-16x16.yaml"));
  REQUIRE(g.node(*g.find_node("PE")).instances == 256);
  check_maps_bundled_gemm(g, 256.0);

  // A 32 x 16 x 32 fp16 GEMM: DRAM walks K in 2 steps over global-buffer tiles of M 32 x N 16 x
  // K 16 (A 1 KiB, B 512 B, C 1 KiB), each spreading K 16 x N 16 over the PEs (one weight each)
  // and walking M 32 one row of A a call.
  // DRAM: A and B come in on each K step, 2 x (1024 + 512) = 3 KiB; C stays in the global buffer
  // across the walk and goes out once, 1 KiB.
  // Global buffer -> PE, B only (indexed by both spread dimensions, so never multicast): a PE
  // that keeps its weight across the 32 calls of the M walk is sent it once per tile, 2 x 512 B
  // = 1 KiB; one that does not (`keep: {B: false}`) is sent it on every call: 32 KiB.
  const Operator op = make_gemm("g", 32, 16, 32);
  auto mapping = [](const std::string& keep_b) {
    return parse_mapping(R"(version: 1
kind: mapping
name: ws-32x16x32
tree:
  tile: DRAM
  temporal: {K: 2}
  children:
    - tile: GlobalBuffer
      double_buffer: true
      temporal: {M: 32}
      spatial: {K: 16, N: 16}
      children:
        - op: PE
          factors: {M: 1, N: 1, K: 1}
          keep: {A: false, B: )" +
                             keep_b + "}\n",
                         "ws.yaml");
  };
  AnalysisScratch kept, refetched;
  const MappingProgram keep_program = compile_mapping(mapping("true"), op, g);
  const MappingProgram refetch_program = compile_mapping(mapping("false"), op, g);
  evaluate(keep_program, kept);
  evaluate(refetch_program, refetched);
  REQUIRE(kept.valid());
  REQUIRE(refetched.valid());
  CHECK(edge_bytes(g, kept, "DRAM", "GlobalBuffer") == Approx(3072.0));
  CHECK(edge_bytes(g, kept, "GlobalBuffer", "DRAM") == Approx(1024.0));
  // Out of the array: each PE's product of every call, 32 calls x 256 PEs x 2 B x 2 DRAM steps =
  // 32 KiB of partials, summed down the 16 rows of each column (K) by the chain: 2 KiB.
  CHECK(edge_bytes(g, kept, "PE", "GlobalBuffer") == Approx(2048.0));
  // A's bytes on the edge are the same in both (sent every call either way): the difference is
  // B's 32 KiB - 1 KiB.
  CHECK(edge_bytes(g, refetched, "GlobalBuffer", "PE") -
            edge_bytes(g, kept, "GlobalBuffer", "PE") ==
        Approx(32768.0 - 1024.0));
}
