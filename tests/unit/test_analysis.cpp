// Analysis cases whose answers are derived by hand in the comments (1 GHz: cycles = ns).
#include <catch2/catch.hpp>

#include "AnalysisFixtures.hpp"
#include "analysis/MappingWriter.hpp"
#include "analysis/Prediction.hpp"

using namespace ts;
using namespace ts::test;

namespace {

// GEMM 64x64x64 on one PE: the SRAM tile loops 8x8x16 calls of an 8x8x4 block.
const std::string kGemmOnePe = gemm_tiles();

}  // namespace

TEST_CASE("compute-bound GEMM: L + C + S for a single iteration", "[analysis]") {
  Case c;
  run_case(c, tiny_arch(), "mm64", kGemmOnePe);
  REQUIRE(c.eval.valid());
  // Compute: 8*8*16 = 1024 calls of 8*8*4 = 256 MACs at 256 MACs/cycle: 1024 cycles; operands
  // per call (64 + 64 + 128 B at 1024 B/cycle) hide under it.
  // Load A and B (8 KiB each) at 64 B/cycle: 256 cycles; store C (8 KiB): 128 cycles.
  // One iteration at the root, so nothing overlaps: 256 + 1024 + 128 = 1408 cycles.
  CHECK(c.cycles() == Approx(1408.0));
  CHECK(bound_text(c.graph, c.eval.bound) == "compute:PE");
  Prediction p = make_prediction(c.program, analysis_result(c.program, c.eval));
  CHECK(p.launch_overhead_us == Approx(5.0));
  CHECK(p.device_us == Approx(1.408));
  CHECK(p.bound_by == "launch");  // 5 us of launch outweighs 1.4 us of device time
  // Utilisation: 262144 MACs / (256 MACs/cycle * 4 PEs) = 256 ideal cycles of 1408.
  CHECK(p.utilization == Approx(256.0 / 1408.0));
}

TEST_CASE("edge-bound add: fill and drain around a pipelined loop", "[analysis]") {
  Case c;
  run_case(c, tiny_arch(), "add", row_tiles({.dram_temporal = "R: 16"}));
  REQUIRE(c.eval.valid());
  // Per root iteration: load X, Z (4x1024x2 B each = 16 KiB) at 64 B/cycle: 256 cycles; store Y
  // (8 KiB): 128 cycles; compute 4*32 calls of 32 elements at 64/cycle: 64 cycles.
  // Double-buffered, 16 iterations: 16 * max(256, 64, 128) + (256 + 64 + 128 - 256) = 4288.
  CHECK(c.cycles() == Approx(4288.0));
  CHECK(bound_text(c.graph, c.eval.bound) == "edge:DRAM->SRAM");
  Prediction p = make_prediction(c.program, analysis_result(c.program, c.eval));
  // Traffic: X and Z in (2 x 128 KiB), Y out (128 KiB).
  double in = 0, out = 0;
  for (const auto& t : p.traffic) {
    if (t.edge == "DRAM->SRAM") in = t.bytes;
    if (t.edge == "SRAM->DRAM") out = t.bytes;
  }
  CHECK(in == Approx(2.0 * 64 * 1024 * 2));
  CHECK(out == Approx(64.0 * 1024 * 2));
}

TEST_CASE("a shared edge halves each user's bandwidth", "[analysis]") {
  const std::string mapping = row_tiles({.dram_temporal = "R: 8", .dram_spatial = "R: 2"});
  Case shared, own;
  run_case(shared, tiny_arch("shared"), "add", mapping);
  run_case(own, tiny_arch("per_instance"), "add", mapping);
  REQUIRE(shared.eval.valid());
  REQUIRE(own.eval.valid());
  // Two SRAMs load at once. Shared: 32 B/cycle each: load 512, store 256, compute 64;
  // 8 * 512 + (512 + 64 + 256 - 512) = 4416. Per instance: 64 B/cycle each: 8 * 256 + 192 = 2240.
  CHECK(shared.cycles() == Approx(4416.0));
  CHECK(own.cycles() == Approx(2240.0));
}

TEST_CASE("double buffers count twice against capacity", "[analysis]") {
  auto mapping = [](bool db) {
    return row_tiles({.dram_temporal = "R: 8",
                      .sram = db ? "double_buffer: true" : "double_buffer: false",
                      .sram_temporal = "R: 8, C: 32"});
  };
  // X, Z, Y at 8 x 1024 x 2 B = 16 KiB each: 48 KiB fits in 64 KiB once, not twice (96 KiB).
  Case single, twice;
  run_case(single, tiny_arch(), "add", mapping(false));
  run_case(twice, tiny_arch(), "add", mapping(true));
  CHECK(single.eval.valid());
  REQUIRE(twice.eval.failure.kind == EvaluationFailure::overflow);
  CHECK(twice.eval.failure.bytes == Approx(96.0 * 1024));
  try {
    throw_if_invalid(twice.program, analysis_result(twice.program, twice.eval));
    FAIL("expected an overflow error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("m.yaml:8:") != std::string::npos);  // the SRAM tile's line
    CHECK(std::string(e.what()).find("96 KiB") != std::string::npos);
    CHECK(std::string(e.what()).find("SRAM holds 64 KiB") != std::string::npos);
    // Each buffer in the bytes the check counted (both copies), not a recount of one copy.
    for (const char* part : {"X 32 KiB", "Y 32 KiB", "Z 32 KiB", "double-buffered"})
      CHECK(std::string(e.what()).find(part) != std::string::npos);
  }
}

TEST_CASE("spatial tiles beyond the instances run in waves, tails cost a full wave", "[analysis]") {
  // Per-instance DRAM edges at 1024 B/cycle so that compute dominates: each 64-row child tile
  // computes 1024 cycles, loads 16 KiB in 16 cycles, stores 8 KiB in 8.
  const std::string arch = tiny_arch("per_instance", "1024B/cycle");
  auto mapping = [](int tiles) {
    return gemm_tiles({.dram_spatial = "M: " + std::to_string(tiles)});
  };
  Case four, five;
  run_case(four, arch, "mm256", mapping(4));
  run_case(five, arch, "mm320", mapping(5));
  REQUIRE(four.eval.valid());
  REQUIRE(five.eval.valid());
  // 4 tiles on 4 PEs: one wave: 1024 + (16 + 1024 + 8 - 1024) = 1048.
  // 5 tiles on 4 PEs: two waves: 2 * 1024 + 24 = 2072.
  CHECK(four.cycles() == Approx(1048.0));
  CHECK(five.cycles() == Approx(2072.0));

  // 300 rows: 4 full tiles and a 44-row tail tile; the tail still takes a whole wave.
  Case tail;
  run_case(tail, arch, "mm300",
           gemm_tiles({.dram_spatial = "M: 5", .sram_m = "8/6", .pe_m = "8/4"}));
  REQUIRE(tail.eval.valid());
  CHECK(tail.cycles() == Approx(2072.0).epsilon(0.01));
}

TEST_CASE("compute pays for granule padding", "[analysis]") {
  // M=60 runs as 7 full 8-row calls and one 4-row call padded to the 8-row granule, so the
  // SRAM tile computes exactly as long as M=64: 1024 cycles.
  Case full, padded;
  run_case(full, tiny_arch(), "mm64", kGemmOnePe);
  run_case(padded, tiny_arch(), "mm60", gemm_tiles({.pe_m = "8/4"}));
  REQUIRE(padded.eval.valid());
  REQUIRE(full.eval.reports[1].evaluated);
  REQUIRE(padded.eval.reports[1].evaluated);
  CHECK(full.eval.reports[1].time_s * 1e9 == Approx(1024.0));
  // The tail case (mode with M in tail) is what the root sees; its time is the padded one.
  CHECK(padded.eval.device_s < full.eval.device_s);  // smaller A and C move faster
  // Root: load A (60x64x2 = 7680 B) + B (8 KiB) = 15872 B / 64 = 248; store C 7680/64 = 120.
  CHECK(padded.cycles() == Approx(248.0 + 1024.0 + 120.0));
}

TEST_CASE("factors that do not cover the problem are an error at the mapping", "[analysis]") {
  Case c;
  // A single-buffered SRAM tile looping M 4 times over 8-row calls: 32 of M's 64 rows.
  run_case(c, tiny_arch(), "mm64", gemm_tiles({.sram = "", .sram_m = "4"}));
  REQUIRE(c.eval.failure.kind == EvaluationFailure::coverage);
  try {
    throw_if_invalid(c.program, analysis_result(c.program, c.eval));
    FAIL("expected a coverage error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("dimension M") != std::string::npos);
    CHECK(what.find("cover 32") != std::string::npos);
    CHECK(what.find("M=64") != std::string::npos);
  }
}

TEST_CASE("loads and stores share a memory's combined port", "[analysis]") {
  // Edges are fast (1024 B/cycle per instance) but DRAM has one 64 B/cycle port for reads and
  // writes together. Per iteration 16 KiB in and 8 KiB out: 24 KiB / 64 = 384 cycles.
  // First load 16 KiB / 64 = 256, compute 64, last store 8 KiB / 64 = 128:
  // 16 * 384 + (256 + 64 + 128 - 384) = 6208.
  const std::string arch = replace_once(tiny_arch("per_instance", "1024B/cycle"), "capacity: 1GiB}",
                                        "capacity: 1GiB, bandwidth: 64GB/s}");
  Case c;
  run_case(c, arch, "add", row_tiles({.dram_temporal = "R: 16"}));
  REQUIRE(c.eval.valid());
  CHECK(c.cycles() == Approx(6208.0));
}

TEST_CASE("a trans node moves an intermediate and its consumer reads it there", "[analysis]") {
  // Add a UB beside each PE, reached from SRAM at 128 B/cycle, feeding the PE.
  std::string arch = tiny_arch();
  arch.replace(arch.find("  - name: PE"), 0,
               "  - {name: UB, type: memory, capacity: 16KiB, instances: 4}\n");
  arch +=
      "  - {from: SRAM, to: UB, bandwidth: 128B/cycle}\n  - {from: UB, to: PE, bandwidth: "
      "1024B/cycle}\n";
  auto mapping = [](bool move) {
    return std::string(R"(version: 1
kind: mapping
name: m
tree:
  tile: DRAM
  temporal: {R: 16}
  children:
    - tile: SRAM
      double_buffer: true
      temporal: {R: 4, C: 32}
      children:
        - scope: sequential
          children:
            - op: PE
              stage: add
              factors: {C: 32}
)") + (move ? "            - trans: T1\n              to: UB\n" : "") +
           R"(            - op: PE
              stage: relu
              factors: {C: 32}
)";
  };
  ArchitectureGraph g = parse_architecture(arch, "tiny-ub.yaml");
  Workload w = parse_workload(kChain, "chain.yaml");
  const Operator& op = w.operators.front();
  MappingProgram moved = compile_mapping(parse_mapping(mapping(true), "m.yaml"), op, g);
  MappingProgram stays = compile_mapping(parse_mapping(mapping(false), "m.yaml"), op, g);
  // relu reads T1 from UB after the trans, from SRAM without it.
  const ProgramNode& relu = moved.nodes.back();
  REQUIRE(relu.kind == MappingNodeKind::op);
  CHECK(g.node(relu.operands.front().from_memory).name == "UB");
  CHECK(g.node(stays.nodes.back().operands.front().from_memory).name == "SRAM");
  AnalysisScratch em, es;
  evaluate(moved, em);
  evaluate(stays, es);
  REQUIRE(em.valid());
  REQUIRE(es.valid());
  // Per SRAM iteration: add 0.5 cycle, trans of a 32-element T1 block (64 B at 128 B/cycle)
  // 0.5, relu 0.5: 128 iterations x 1.5 = 192 cycles of compute under each root iteration.
  // Root: 16 x max(256, 192, 128) + (256 + 192 + 128 - 256) = 4416; without trans 4096 + 256.
  CHECK(em.device_s * 1e9 == Approx(4416.0));
  CHECK(es.device_s * 1e9 == Approx(4352.0));
  // The intermediate never reaches DRAM: only X and Z go in, only Y comes out.
  Prediction p = make_prediction(moved, analysis_result(moved, em));
  for (const auto& t : p.traffic)
    if (t.edge == "SRAM->DRAM") CHECK(t.bytes == Approx(64.0 * 1024 * 2));

  // A trans to a memory with no path from SRAM is an error at the trans node.
  std::string no_path = arch;
  no_path.erase(no_path.find("  - {from: SRAM, to: UB"),
                std::string("  - {from: SRAM, to: UB, bandwidth: 128B/cycle}\n").size());
  ArchitectureGraph cut = parse_architecture(no_path, "tiny-ub.yaml");
  try {
    compile_mapping(parse_mapping(mapping(true), "m.yaml"), op, cut);
    FAIL("expected a missing path");
  } catch (const InputError& e) {
    CHECK(e.where().line == 17);
    CHECK(std::string(e.what()).find("no path") != std::string::npos);
  }
}

TEST_CASE("a sharing scope holds the larger of its children's buffers, not the sum", "[analysis]") {
  auto mapping = [](const std::string& scope) {
    return R"(version: 1
kind: mapping
name: m
tree:
  tile: DRAM
  temporal: {R: 64}
  children:
    - scope: )" +
           scope + R"(
      children:
        - tile: SRAM
          temporal: {C: 32}
          children:
            - {op: PE, stage: add, factors: {C: 32}}
        - tile: SRAM
          temporal: {C: 32}
          children:
            - {op: PE, stage: relu, factors: {C: 32}}
)";
  };
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Workload w = parse_workload(kChain, "chain.yaml");
  // One row of 1024 fp16 is 2 KiB. The add tile holds X, Z and T1 (6 KiB), the relu tile T1 and
  // Y (4 KiB): 10 KiB one after the other, 6 KiB when they share.
  for (auto [scope, expected] : {std::pair{"sequential", 10240.0}, std::pair{"sharing", 6144.0}}) {
    MappingProgram p = compile_mapping(parse_mapping(mapping(scope), "m.yaml"), w.operators[0], g);
    AnalysisScratch e;
    evaluate(p, e);
    REQUIRE(e.valid());
    double sram = -1;
    for (size_t k = 0; k < p.memories.size(); ++k)
      if (g.node(p.memories[k]).name == "SRAM") sram = e.memory_usage[k];
    CHECK(sram == Approx(expected));
  }
}

TEST_CASE("a parallel scope takes the longer child, a sequential one the sum", "[analysis]") {
  auto mapping = [](const std::string& scope) {
    return R"(version: 1
kind: mapping
name: m
tree:
  tile: DRAM
  temporal: {R: 16}
  children:
    - tile: SRAM
      double_buffer: true
      temporal: {R: 4, C: 32}
      children:
        - scope: )" +
           scope + R"(
          children:
            - {op: PE, stage: add, factors: {C: 32}}
            - {op: PE, stage: relu, factors: {C: 32}}
)";
  };
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Workload w = parse_workload(kChain, "chain.yaml");
  // Each op: 32 elements at 64/cycle = 0.5 cycle per SRAM iteration, 128 iterations.
  // Sequential: 128 cycles under each root iteration: 16 x 256 + (256 + 128 + 128 - 256) = 4352.
  // Parallel: 64 cycles: 16 x 256 + (256 + 64 + 128 - 256) = 4288.
  for (auto [scope, expected] : {std::pair{"sequential", 4352.0}, std::pair{"parallel", 4288.0}}) {
    MappingProgram p = compile_mapping(parse_mapping(mapping(scope), "m.yaml"), w.operators[0], g);
    AnalysisScratch e;
    evaluate(p, e);
    REQUIRE(e.valid());
    CHECK(e.device_s * 1e9 == Approx(expected));
  }
}

TEST_CASE("a row split across tiles costs a reduction a second pass over its input", "[analysis]") {
  // DRAM at 16 B/cycle. Softmax: 5 operations per element at 64 per cycle.
  const std::string arch = tiny_arch("shared", "16B/cycle");
  Case whole, split;
  run_case(whole, arch, "softmax", row_tiles({.dram_temporal = "R: 64", .sram_temporal = "C: 32"}));
  run_case(split, arch, "softmax",
           row_tiles({.dram_temporal = "R: 64, C: 2", .sram_temporal = "C: 16"}));
  REQUIRE(whole.eval.valid());
  REQUIRE(split.eval.valid());
  // Whole rows: load X 2 KiB / 16 = 128, store Y 128, compute 32 x 32 x 5 / 64 = 80;
  // 64 x 128 + (128 + 80 + 128 - 128) = 8400.
  CHECK(whole.cycles() == Approx(8400.0));
  // Half rows: X is read twice (statistics, then normalise): 2 x 1 KiB / 16 = 128, store 64,
  // compute 40; 128 x 128 + (64 + 40 + 64 - 128) = 16424.
  CHECK(split.cycles() == Approx(16424.0));
  auto read = [](const Case& c) {
    for (const auto& t : make_prediction(c.program, analysis_result(c.program, c.eval)).traffic)
      if (t.edge == "DRAM->SRAM") return t.bytes;
    return 0.0;
  };
  CHECK(read(whole) == Approx(64.0 * 1024 * 2));
  CHECK(read(split) == Approx(2 * 64.0 * 1024 * 2));
}

TEST_CASE("absurd factors are a coverage error, not an overflow", "[analysis]") {
  // 2^32 three times over is 2^96 rows: past int64, and far past M=64.
  Case c;
  run_case(c, tiny_arch(), "mm64", R"(  tile: DRAM
  temporal: {M: 4294967296}
  children:
    - tile: SRAM
      temporal: {M: 4294967296, N: 8, K: 16}
      children:
        - op: PE
          factors: {M: 4294967296, N: 8, K: 4}
)");
  REQUIRE(c.eval.failure.kind == EvaluationFailure::coverage);
  try {
    throw_if_invalid(c.program, analysis_result(c.program, c.eval));
    FAIL("expected a coverage error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("cover about") != std::string::npos);
  }
}

TEST_CASE("a streamed tile overlaps its loads with all of the work below it", "[analysis]") {
  // The compute-bound GEMM of the first case with SRAM filled on demand instead of up front:
  // the load (256) and store (128) run under the 1024 cycles of compute, and no edge has a
  // latency, so the single iteration costs max(256, 1024, 128) = 1024 instead of 1408.
  Case c;
  run_case(c, tiny_arch(), "mm64", gemm_tiles({.sram = "streamed: true"}));
  REQUIRE(c.eval.valid());
  CHECK(c.cycles() == Approx(1024.0));
  CHECK(bound_text(c.graph, c.eval.bound) == "compute:PE");
  // Written back out (the mapper's and the fit's round trip), it stays streamed.
  const std::string text = mapping_yaml(c.program, "m", "");
  CHECK(text.find("streamed: true") != std::string::npos);
  CHECK(parse_mapping(text, "again.yaml").root.children.at(0).streamed);
}

TEST_CASE("a streamed edge-bound loop pays no fill, and counts once against capacity",
          "[analysis]") {
  // The add of the fill-and-drain case: per root iteration load 256, compute 64, store 128.
  // Streamed: 16 * max(256, 64, 128) = 4096, without the 192 cycles of fill and drain that
  // double buffering pays (4288). Its 48 KiB of buffers fit the 64 KiB SRAM once; double
  // buffered they would not (the capacity case above).
  Case c;
  run_case(
      c, tiny_arch(), "add",
      row_tiles(
          {.dram_temporal = "R: 8", .sram = "streamed: true", .sram_temporal = "R: 8, C: 32"}));
  REQUIRE(c.eval.valid());
  // R: 8 root iterations of 8 rows: load X, Z 2 x 8 x 1024 x 2 B = 32 KiB at 64 B/cycle = 512,
  // store 16 KiB = 256, compute 8 x 32 calls of 32 at 64/cycle = 128: 8 x 512 = 4096.
  CHECK(c.cycles() == Approx(4096.0));
  CHECK(bound_text(c.graph, c.eval.bound) == "edge:DRAM->SRAM");
}

namespace {

// The three-level graph for an add: REG of 4 KiB, a PE of 64 fp16 elementwise operations a cycle,
// DRAM -> BUF at 64 B/cycle with the given latency, BUF -> REG at 32.
std::string three_level_eltwise(int dram_latency_cycles) {
  return three_levels(
      {.name = "three-levels",
       .reg_capacity = "4KiB",
       .operation = "{class: elementwise, dtype: fp16, ops_per_cycle: 64, granule: [32]}",
       .dram_latency = dram_latency_cycles});
}

}  // namespace

TEST_CASE("a restarting pipeline pays the fill and drain below it every iteration", "[analysis]") {
  // Three levels, one instance each, 1 GHz: DRAM -> BUF at 64 B/cycle, BUF -> REG at 32.
  // add 64 x 1024 fp16. DRAM loops 16 times over 4-row BUF tiles; BUF loops 4 x 8 = 32 times
  // over 1 x 128 REG tiles; both double-buffered.
  // - Per REG iteration: load X, Z 2 x 256 B at 32 B/cycle = 16, store Y 8, compute 128 / 64 = 2.
  //   BUF's loop: 32 x max(16, 2, 8) = 512 steady, fill and drain 16 + 2 + 8 - 16 = 10.
  // - Per BUF iteration: load 2 x 8 KiB at 64 = 256, store 8 KiB = 128, work 512 (+ 10).
  //   Flowing: 16 x max(256, 512, 128) + (256 + 512 + 10 + 128 - 512) = 8192 + 394 = 8586.
  //   Restarting: 16 x max(256, 512 + 10, 128) + (256 + 512 + 10 + 128 - 522) = 8352 + 384
  //   = 8736: the 10 cycles of BUF's own fill and drain, once more for each of 15 iterations.
  const std::string arch = three_level_eltwise(0);
  Case flowing, restarting;
  run_case(flowing, arch, "add", three_level_add(false));
  run_case(restarting, arch, "add", three_level_add(true));
  REQUIRE(flowing.eval.valid());
  REQUIRE(restarting.eval.valid());
  CHECK(flowing.cycles() == Approx(8586.0));
  CHECK(restarting.cycles() == Approx(8736.0));
  // Written back out (the mapper's and the fit's round trip), the flag stays.
  const std::string text = mapping_yaml(restarting.program, "m", "");
  CHECK(parse_mapping(text, "again.yaml").root.children.at(0).pipeline_restarts);
}

TEST_CASE("a double-buffered step lasts at least its load's latency plus its transfer",
          "[analysis]") {
  // The flowing add of the restarting case: per BUF iteration the load takes 256 cycles and the
  // work below 512 (+ 10 of its own fill and drain); 8586 cycles with no latency. Two buffers keep
  // one load in flight, asked for when a step starts, so a step lasts max(work, latency + load):
  // - latency 200: 456 < 512, hidden; it only delays the first load:
  //   16 x 512 + (456 + 512 + 10 + 128 - 512) = 8192 + 594 = 8786;
  // - latency 300: 556 > 512, every step waits for memory:
  //   16 x 556 + (556 + 512 + 10 + 128 - 556) = 8896 + 650 = 9546.
  Case hidden, exposed;
  run_case(hidden, three_level_eltwise(200), "add", three_level_add(false));
  run_case(exposed, three_level_eltwise(300), "add", three_level_add(false));
  REQUIRE(hidden.eval.valid());
  REQUIRE(exposed.eval.valid());
  CHECK(hidden.cycles() == Approx(8786.0));
  CHECK(exposed.cycles() == Approx(9546.0));
  CHECK(bound_text(exposed.graph, exposed.eval.bound) == "edge:DRAM->BUF");
}

TEST_CASE("concurrent loads wait for the longer of their latency and transfer, not the sum",
          "[analysis]") {
  // The flowing add above with a DRAM latency of 600 cycles: a BUF step loads 256 cycles of
  // bytes under 512 of work. One load in flight: a step lasts latency + load = 856 > 512:
  //   16 x 856 + (856 + 512 + 10 + 128 - 856) = 13696 + 650 = 14346.
  // Every load of the step asked for at once (`concurrent_loads`, a GPU block's threads): the
  // bytes stream in under the latency, a step lasts max(512, max(600, 256)) = 600, and only the
  // first load waits for both, 856:
  //   16 x 600 + (856 + 512 + 10 + 128 - 600) = 9600 + 906 = 10506.
  const std::string plain = three_level_add(false);
  const std::string concurrent =
      replace_once(plain, "      double_buffer: true\n      temporal: {R: 4, C: 8}",
                   "      double_buffer: true\n      concurrent_loads: true\n"
                   "      temporal: {R: 4, C: 8}");
  Case one, all;
  run_case(one, three_level_eltwise(600), "add", plain);
  run_case(all, three_level_eltwise(600), "add", concurrent);
  REQUIRE(one.eval.valid());
  REQUIRE(all.eval.valid());
  CHECK(one.cycles() == Approx(14346.0));
  CHECK(all.cycles() == Approx(10506.0));
  CHECK(bound_text(all.graph, all.eval.bound) == "edge:DRAM->BUF");
  // Under the work (latency 200 < 512) it changes nothing.
  Case hidden;
  run_case(hidden, three_level_eltwise(200), "add", concurrent);
  CHECK(hidden.cycles() == Approx(8786.0));
  // Written back out, the flag stays.
  const std::string text = mapping_yaml(all.program, "m", "");
  CHECK(parse_mapping(text, "again.yaml").root.children.at(0).concurrent_loads);
}

TEST_CASE("a wider accumulator widens C only where the unit writes it", "[analysis]") {
  // mm64 on one PE, SRAM double-buffered: A, B and C are 64 x 64 fp16 = 8 KiB each, so SRAM
  // holds 2 x 24 KiB = 48 KiB. With fp32 partial sums in SRAM (the PE writes SRAM over its own
  // edge), C takes 16 KiB there: 2 x (8 + 8 + 16) = 64 KiB, exactly the capacity. DRAM, which
  // the PE does not write into, keeps C at 8 KiB.
  auto sram_and_dram = [](const std::string& arch) {
    Case c;
    run_case(c, arch, "mm64", kGemmOnePe);
    REQUIRE(c.eval.valid());
    std::pair<double, double> usage{-1, -1};
    for (size_t k = 0; k < c.program.memories.size(); ++k) {
      const std::string& name = c.graph.node(c.program.memories[k]).name;
      if (name == "SRAM") usage.first = c.eval.memory_usage[k];
      if (name == "DRAM") usage.second = c.eval.memory_usage[k];
    }
    return usage;
  };
  const std::string widened =
      replace_once(tiny_arch(), "granule: [8, 8, 4]}", "granule: [8, 8, 4], accumulator: fp32}");
  const auto [sram_plain, dram_plain] = sram_and_dram(tiny_arch());
  const auto [sram_wide, dram_wide] = sram_and_dram(widened);
  CHECK(sram_plain == Approx(48.0 * 1024));
  CHECK(sram_wide == Approx(64.0 * 1024));
  CHECK(dram_wide == Approx(dram_plain));
}

TEST_CASE("under dynamic dispatch the parts of every iteration above share their waves",
          "[analysis]") {
  // DRAM -> L2 -> SRAM (4 instances) -> PE (4), 1 GHz. mm256 is 4 tiles of 64 rows; a DRAM loop
  // of 2 walks a grid of 2 parts. A part on its SRAM: 1024 cycles of PE work, filled with A and
  // B (16 KiB at 1024 B/cycle = 16) and drained of C (8): 1048. Per DRAM iteration L2 takes A
  // (16 KiB) and half of B's 8 KiB over reuse, 5 cycles at 4096 B/cycle (6 on the first), and
  // stores C's 16 KiB in 4.
  // - Lockstep: each iteration runs its 2 parts in a wave of its own, and L2 is single-buffered:
  //   2 x (5 + 1048 + 4) + (6 - 5) = 2115.
  // - Dynamic: the 4 parts fill the 4 SRAMs at once, one wave; each iteration is half of it, and
  //   the parts of one overlap the loads of the other: 2 x 524 + (6 + 524 + 4 - 524) = 1058.
  // - One grid of 4 parts with no loop above (either dispatch): A and B, 40 KiB at 4096 B/cycle
  //   in 10, then 1048, then C's 32 KiB out in 8: 1066; its L2 load overlaps no other part.
  auto arch = [](const std::string& dispatch) {
    return R"(version: 1
kind: architecture
name: pooled
clock: 1GHz
nodes:
  - {name: DRAM, type: memory, capacity: 1GiB}
  - {name: L2, type: memory, capacity: 1MiB}
  - {name: SRAM, type: memory, capacity: 64KiB, instances: 4)" +
           dispatch + R"(}
  - name: PE
    type: compute
    instances: 4
    operations:
      - {class: matmul, dtype: fp16, ops_per_cycle: 256, granule: [8, 8, 4]}
edges:
  - {from: DRAM, to: L2, bandwidth: 4096B/cycle}
  - {from: L2, to: DRAM, bandwidth: 4096B/cycle}
  - {from: L2, to: SRAM, bandwidth: 1024B/cycle, sharing: per_instance}
  - {from: SRAM, to: L2, bandwidth: 1024B/cycle, sharing: per_instance}
  - {from: SRAM, to: PE, bandwidth: 1024B/cycle}
  - {from: PE, to: SRAM, bandwidth: 1024B/cycle}
)";
  };
  const char* mapping = R"(  tile: DRAM
  temporal: {M: 2}
  children:
    - tile: L2
      spatial: {M: 2}
      children:
        - tile: SRAM
          double_buffer: true
          temporal: {M: 8, N: 8, K: 16}
          children:
            - op: PE
              factors: {M: 8, N: 8, K: 4}
)";
  Case lockstep, dynamic, pooled_once;
  run_case(lockstep, arch(""), "mm256", mapping);
  run_case(dynamic, arch(", dispatch: dynamic"), "mm256", mapping);
  REQUIRE(lockstep.eval.valid());
  REQUIRE(dynamic.eval.valid());
  CHECK(lockstep.cycles() == Approx(2115.0));
  CHECK(dynamic.cycles() == Approx(1058.0));
  // The same 4 parts as one grid with no loop above: what the hardware runs either way.
  run_case(pooled_once, arch(""), "mm256", R"(  tile: DRAM
  children:
    - tile: L2
      spatial: {M: 4}
      children:
        - tile: SRAM
          double_buffer: true
          temporal: {M: 8, N: 8, K: 16}
          children:
            - op: PE
              factors: {M: 8, N: 8, K: 4}
)");
  REQUIRE(pooled_once.eval.valid());
  CHECK(pooled_once.cycles() == Approx(1066.0));
}

TEST_CASE("a result kept across a K walk drains once, not on every step", "[analysis]") {
  // DRAM -> BUF -> REG -> PE, 1 GHz; mm64 fp16 walks K in 4 steps of 16 at DRAM, BUF single-
  // buffered, REG double-buffered holding the whole 64 x 64 C across the walk (the registers of
  // a GPU's thread block). A PE call of 8x8x4 takes 1 cycle.
  // - BUF step: REG loads A, B 2 x 2 KiB at 32 B/cycle = 128, computes 8 x 8 x 4 = 256 calls =
  //   256 cycles, and stores C (8 KiB = 256 cycles) on one step in four: 64 a step. Its pipeline
  //   fills with the 128 of loads and drains C's share, 64 (not the whole 256 on every step):
  //   256 + 128 + 64 = 448 cycles (the PE's operands stream in with no fill of their own).
  // - DRAM step (BUF not double-buffered, so nothing overlaps): load A, B 4 KiB at 64 B/cycle
  //   = 64, the BUF step 448, C's share of its 8 KiB store at 64 B/cycle = 32: 544; four steps
  //   2176, and the last store is already counted in those shares. (Draining all of C on every
  //   step made it 3040.)
  Case c;
  run_case(c, three_levels(), "mm64", three_level_gemm_tiles({.dram_temporal = "K: 4"}));
  REQUIRE(c.eval.valid());
  CHECK(c.cycles() == Approx(2176.0));
}

TEST_CASE("a combined port is a floor for flows the tree times at different levels", "[analysis]") {
  // DRAM (one 64 B/cycle port for reads and writes) -> BUF -> REG -> PE, every edge 1024
  // B/cycle, a PE call of 8x8x4 in 1/16 cycle. mm64 walks K in 4 steps at DRAM; BUF is
  // double-buffered and lets C pass (bypass), REG keeps C across the walk. A and B come in at
  // DRAM's level, 4 KiB a step (64 cycles of port); C goes out from REG's level, once. Over
  // the operator 8 + 8 KiB in and 8 KiB out share the port: 24 KiB / 64 = 384 cycles, more
  // than the tree's overlapped levels add up to (324 without the floor).
  const std::string arch = three_levels({.name = "one-port",
                                         .dram_port = "64B/cycle",
                                         .operation = fp16_matmul(4096),
                                         .dram_buf = "1024B/cycle",
                                         .buf_reg = "1024B/cycle"});
  Case c;
  run_case(c, arch, "mm64",
           three_level_gemm_tiles(
               {.dram_temporal = "K: 4", .buf = {"double_buffer: true", "buffers: {C: bypass}"}}));
  REQUIRE(c.eval.valid());
  CHECK(c.cycles() == Approx(384.0));
  CHECK(bound_text(c.graph, c.eval.bound) == "edge:DRAM->BUF");
}

TEST_CASE("a loop with a tail counts the steps it makes, not its full trips", "[analysis]") {
  // mm64 on the three-level GEMM graph with K split 2 x 3/1 x 16: the first DRAM step walks 3
  // BUF steps, the second 1, 4 in all (not 2 x 3 = 6). C, kept in REG across the walk, goes out
  // once: 8 KiB over REG -> BUF and BUF -> DRAM. A and B come in once each: 8 + 8 KiB.
  Case c;
  run_case(c, three_levels(), "mm64",
           three_level_gemm_tiles({.dram_temporal = "K: 2", .buf = {"temporal: {K: 3/1}"}}));
  REQUIRE(c.eval.valid());
  auto bytes = [&](const std::string& from, const std::string& to) {
    for (size_t k = 0; k < c.graph.edges.size(); ++k)
      if (c.graph.node(c.graph.edges[k].from).name == from &&
          c.graph.node(c.graph.edges[k].to).name == to)
        return c.eval.edge_bytes[k];
    return -1.0;
  };
  CHECK(bytes("REG", "BUF") == Approx(8192.0));
  CHECK(bytes("BUF", "DRAM") == Approx(8192.0));
  CHECK(bytes("DRAM", "BUF") == Approx(16384.0));
  CHECK(bytes("BUF", "REG") == Approx(16384.0));
}

TEST_CASE("a padded part computes its whole extent and loads only the tail", "[analysis]") {
  // mm300 on one SRAM's worth of loop: DRAM walks 5 tiles of 64 rows, the last 44 (8 x 8 rows
  // of op calls, the tail 6 x 8 with the last call's 4 rows padded to the PE's granule of 8).
  // Per-instance edges at 1024 B/cycle keep it compute-bound: a full tile is 8 x 8 x 16 = 1024
  // calls of one cycle, the tail 6 x 8 x 16 = 768. With `tails: padded` on SRAM the tail tile
  // computes all 1024 (a thread block's warps on zero-filled rows): 256 cycles more. Its load
  // from DRAM stays the tail's 44 rows, so DRAM -> SRAM carries the same bytes either way.
  const std::string exact_arch = tiny_arch("per_instance", "1024B/cycle");
  const std::string padded_arch =
      replace_once(exact_arch, "instances: 4}", "instances: 4, tails: padded}");
  const std::string mapping = gemm_tiles({.dram_temporal = "M: 5", .sram_m = "8/6", .pe_m = "8/4"});
  Case exact, padded;
  run_case(exact, exact_arch, "mm300", mapping);
  run_case(padded, padded_arch, "mm300", mapping);
  REQUIRE(exact.eval.valid());
  REQUIRE(padded.eval.valid());
  CHECK(padded.cycles() - exact.cycles() == Approx(256.0));
  CHECK(padded.eval.edge_bytes == exact.eval.edge_bytes);
}

TEST_CASE("what bounds a node is a kind beside a typed id", "[analysis]") {
  // Node 0 and edge 0 are ids like any other: the old sign packing made compute node 0 -1.
  CHECK(BoundBy{}.is_none());
  CHECK_FALSE(BoundBy{}.compute_node().valid());
  const BoundBy edge = BoundBy::edge(EdgeId{0});
  CHECK(edge.kind() == BoundBy::Kind::edge);
  CHECK(edge.edge_id() == EdgeId{0});
  CHECK_FALSE(edge.compute_node().valid());
  const BoundBy unit = BoundBy::compute(NodeId{0});
  CHECK(unit.kind() == BoundBy::Kind::compute);
  CHECK(unit.compute_node() == NodeId{0});
  CHECK_FALSE(unit.edge_id().valid());

  Case c;
  run_case(c, tiny_arch(), "mm64", kGemmOnePe);
  REQUIRE(c.eval.bound.is_compute());
  CHECK(c.graph.node(c.eval.bound.compute_node()).name == "PE");
}
