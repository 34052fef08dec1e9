// Keep, refetch and bypass per tensor per level: hand-derived traffic and time on tiny graphs
// written inline (AnalysisFixtures), the mapper's free keep, loader errors and the writer.
#include <catch2/catch.hpp>

#include "AnalysisFixtures.hpp"
#include "InputErrorCapture.hpp"
#include "analysis/MappingWriter.hpp"
#include "mapper/Mapper.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using namespace ts::test;

namespace {

double edge_bytes(const Case& c, const std::string& from, const std::string& to) {
  for (size_t k = 0; k < c.graph.edges.size(); ++k)
    if (c.graph.node(c.graph.edges[k].from).name == from &&
        c.graph.node(c.graph.edges[k].to).name == to)
      return c.eval.edge_bytes[k];
  throw std::runtime_error("no edge " + from + " -> " + to);
}

// The three-level GEMM graph with fast inner edges and a fast PE, so that DRAM <-> BUF at
// 64 B/cycle is what a step waits for: DRAM walks N in 4 steps over a double-buffered BUF tile
// of M 64 x N 16 x K 64 (A 8 KiB, B 2 KiB, C 2 KiB); BUF loops {M: 8, N: 2, K: 16} over PE calls
// of 8 x 8 x 4 (1/16 cycle of MACs at 4096 a cycle).
std::string walk_over_n(const std::string& buf_keep, const std::string& op_keep) {
  std::string t = R"(  tile: DRAM
  temporal: {N: 4}
  children:
    - tile: BUF
      double_buffer: true
)";
  if (!buf_keep.empty()) t += "      keep: {" + buf_keep + "}\n";
  t += R"(      temporal: {M: 8, N: 2, K: 16}
      children:
        - op: PE
          factors: {M: 8, N: 8, K: 4}
)";
  if (!op_keep.empty()) t += "          keep: {" + op_keep + "}\n";
  return t;
}

const std::string kFastInside =
    three_levels({.name = "fast-inside", .operation = fp16_matmul(4096), .buf_reg = "1024B/cycle"});

}  // namespace

TEST_CASE("a tile refetched on every iteration against one kept across the loop above",
          "[analysis][keep]") {
  // A (M x K) is not indexed by DRAM's N loop. Kept (inferred, or `A: true`), BUF loads it once
  // in the 4 steps: 8 KiB of A + 4 x 2 KiB of B = 16 KiB on DRAM -> BUF. Refetched (`A: false`),
  // every step loads it: 4 x 8 KiB + 8 KiB = 40 KiB.
  //
  // Time (cycles). A step of BUF's work is 256 PE calls, each bound by its operands on
  // BUF -> REG -> PE: (64 B of A + 64 B of B) / 1024 B/cycle = 1/8 cycle, so 32 cycles. C goes
  // out once a step: 2 KiB / 64 = 32 cycles. Loads a step: kept, A's 8 KiB shared by 4 steps,
  // 2 KiB + 2 KiB of B = 4 KiB / 64 = 64 cycles; refetched, 10 KiB / 64 = 160 cycles. Double
  // buffered, a step takes the slowest of load, work and store, and the first load (160, all of
  // A and B), the first work (32) and the last store (32) are not hidden:
  //   kept:      4 x 64  + (160 + 32 + 32 - 64)  = 256 + 160 = 416
  //   refetched: 4 x 160 + (160 + 32 + 32 - 160) = 640 + 64  = 704
  Case inferred, kept, refetched;
  run_case(inferred, kFastInside, "mm64", walk_over_n("", ""));
  run_case(kept, kFastInside, "mm64", walk_over_n("A: true", ""));
  run_case(refetched, kFastInside, "mm64", walk_over_n("A: false", ""));
  for (const Case* c : {&inferred, &kept, &refetched}) REQUIRE(c->eval.valid());

  CHECK(edge_bytes(inferred, "DRAM", "BUF") == Approx(16384.0));
  CHECK(edge_bytes(kept, "DRAM", "BUF") == Approx(16384.0));
  CHECK(edge_bytes(refetched, "DRAM", "BUF") == Approx(40960.0));
  CHECK(edge_bytes(refetched, "BUF", "DRAM") == Approx(8192.0));  // C, once per N step

  CHECK(inferred.cycles() == Approx(416.0));
  CHECK(kept.cycles() == Approx(416.0));
  CHECK(refetched.cycles() == Approx(704.0));
}

TEST_CASE("an op that keeps no result register across calls writes it back every call",
          "[analysis][keep]") {
  // In the walk above, BUF's innermost loop is K (16 calls), which does not index C: the PE
  // keeps its 8 x 8 C block (128 B) across them and sends it once, 8 KiB over PE -> REG for the
  // whole 64 x 64 C (per N step 2 KiB, 4 steps). With `keep: {C: false}` at the op it sends the
  // block after each of the 16 calls: 16 x 8 KiB = 128 KiB. A and B (indexed by K) are sent
  // every call either way: 4 steps x 256 calls x 64 B = 64 KiB each on REG -> PE, 128 KiB
  // together, unchanged.
  Case kept, refetched;
  run_case(kept, kFastInside, "mm64", walk_over_n("", ""));
  run_case(refetched, kFastInside, "mm64", walk_over_n("", "C: false"));
  REQUIRE(kept.eval.valid());
  REQUIRE(refetched.eval.valid());
  CHECK(edge_bytes(kept, "PE", "REG") == Approx(8192.0));
  CHECK(edge_bytes(refetched, "PE", "REG") == Approx(131072.0));
  CHECK(edge_bytes(kept, "REG", "PE") == Approx(131072.0));
  CHECK(edge_bytes(refetched, "REG", "PE") == Approx(131072.0));
}

TEST_CASE("a tensor that bypasses a level moves straight between the levels around it",
          "[analysis][keep]") {
  // mm64 on the three-level graph: DRAM walks K in 4 steps; BUF loops {N: 2, M: 2} over REG
  // tiles of M 32 x N 32 x K 16, each 64 PE calls of 8 x 8 x 4.
  // BUF holding A: its A tile (M 64 x K 16, 2 KiB) comes in once per K step: 4 x 2 KiB = 8 KiB
  // on DRAM -> BUF. REG's A tile (M 32 x K 16, 1 KiB) changes with BUF's innermost loop (M), so
  // it is filled on every one of the 4 x 2 x 2 = 16 REG tiles: 16 KiB on BUF -> REG.
  // A bypassing BUF: those 16 REG fills come straight from DRAM, through the DRAM -> BUF edge
  // (the path to REG) without stopping: 16 KiB on DRAM -> BUF, and still 16 KiB on BUF -> REG.
  // B (K x N) is held in BUF either way: 4 x 2 KiB = 8 KiB on DRAM -> BUF.
  auto tree = [](const std::vector<std::string>& buffers) {
    std::vector<std::string> buf = buffers;
    buf.push_back("temporal: {N: 2, M: 2}");
    return three_level_gemm_tiles({.dram_temporal = "K: 4", .buf = buf});
  };
  auto reg_tiles = [](std::string t) {
    return replace_once(t, "temporal: {M: 8, N: 8, K: 4}", "temporal: {M: 4, N: 4, K: 4}");
  };
  Case held, bypassed;
  run_case(held, three_levels(), "mm64", reg_tiles(tree({})));
  run_case(bypassed, three_levels(), "mm64", reg_tiles(tree({"buffers: {A: bypass}"})));
  REQUIRE(held.eval.valid());
  REQUIRE(bypassed.eval.valid());
  CHECK(edge_bytes(held, "DRAM", "BUF") == Approx(8192.0 + 8192.0));
  CHECK(edge_bytes(bypassed, "DRAM", "BUF") == Approx(16384.0 + 8192.0));
  // A into REG is the 16 fills of 1 KiB in both; B into REG is the same in both.
  CHECK(edge_bytes(held, "BUF", "REG") == Approx(edge_bytes(bypassed, "BUF", "REG")));
  // Residency: BUF holds A's 2 KiB only when A does not bypass it.
  const NodeId buf = *held.graph.find_node("BUF");
  auto usage = [&](const Case& c) {
    for (size_t k = 0; k < c.program.memories.size(); ++k)
      if (c.program.memories[k] == buf) return c.eval.memory_usage[k];
    return -1.0;
  };
  CHECK(usage(held) - usage(bypassed) == Approx(2048.0));
}

TEST_CASE("keep in a mapping: loader errors name the file and line", "[mapping][keep]") {
  auto load = [](const std::string& keep_line) {
    return parse_mapping("version: 1\nkind: mapping\nname: m\ntree:\n  tile: DRAM\n" + keep_line +
                             "  children:\n    - op: PE\n",
                         "keep.yaml");
  };
  const InputError not_boolean = input_error_of([&] { load("  keep: {A: maybe}\n"); });
  CHECK(not_boolean.where().file == "keep.yaml");
  CHECK(not_boolean.where().line == 6);
  CHECK_THAT(not_boolean.message(), Catch::Contains("true (keep), false (refetch) or \"?\""));
  const InputError not_map = input_error_of([&] { load("  keep: A\n"); });
  CHECK(not_map.where().line == 6);
  const InputError twice = input_error_of([&] { load("  keep: {A: true, A: false}\n"); });
  CHECK_THAT(twice.message(), Catch::Contains("duplicate tensor 'A'"));

  // Tensor names are checked against the operator when the mapping is compiled.
  const ArchitectureGraph g = parse_architecture(three_levels(), "three.yaml");
  const Workload w = parse_workload(tiny_workload(), "tiny-suite.yaml");
  const Mapping unknown = parse_mapping(
      "version: 1\nkind: mapping\nname: m\ntree:\n" + walk_over_n("Z: false", ""), "keep.yaml");
  const InputError bad_tensor =
      input_error_of([&] { compile_mapping(unknown, find_op(w, "mm64"), g); });
  CHECK(bad_tensor.where().file == "keep.yaml");
  CHECK(bad_tensor.where().line == 10);
  CHECK_THAT(bad_tensor.message(), Catch::Contains("unknown tensor 'Z'"));
  const Mapping bypassed = parse_mapping(
      "version: 1\nkind: mapping\nname: m\ntree:\n" +
          replace_once(walk_over_n("A: true", ""), "keep:", "buffers: {A: bypass}\n      keep:"),
      "keep.yaml");
  const InputError keep_bypassed =
      input_error_of([&] { compile_mapping(bypassed, find_op(w, "mm64"), g); });
  CHECK(keep_bypassed.where().line == 11);
  CHECK_THAT(keep_bypassed.message(), Catch::Contains("bypasses"));
}

TEST_CASE("keep and bypass are written back and enter the mapping's hash", "[mapping][keep]") {
  const std::string tree =
      replace_once(walk_over_n("A: false, B: true", "C: false"), "double_buffer: true",
                   "double_buffer: true\n      buffers: {C: bypass}");
  Case c;
  run_case(c, kFastInside, "mm64", tree);
  REQUIRE(c.eval.valid());
  const std::string written = mapping_yaml(c.program, "m", "");
  CHECK_THAT(written, Catch::Contains("keep: {A: false, B: true}"));
  CHECK_THAT(written, Catch::Contains("keep: {C: false}"));
  CHECK_THAT(written, Catch::Contains("buffers: {C: bypass}"));
  const Mapping again = parse_mapping(written, "again.yaml");
  CHECK(canonical_text(again) == canonical_text(c.mapping));
  MappingProgram program = compile_mapping(again, find_op(c.workload, "mm64"), c.graph);
  AnalysisScratch eval;
  CHECK(evaluate(program, eval) == Approx(c.eval.device_s).epsilon(1e-12));

  // Saying nothing and saying `keep` differ in the hash (the file says more), and the canonical
  // text of a mapping without `keep` has no trace of it, so older mappings keep their hashes.
  Case plain;
  run_case(plain, kFastInside, "mm64", walk_over_n("", ""));
  CHECK(canonical_text(plain.mapping).find("keep") == std::string::npos);
  Case explicit_keep;
  run_case(explicit_keep, kFastInside, "mm64", walk_over_n("A: true", ""));
  CHECK(canonical_text(explicit_keep.mapping) != canonical_text(plain.mapping));
  Case refetch;
  run_case(refetch, kFastInside, "mm64", walk_over_n("A: false", ""));
  CHECK(canonical_text(refetch.mapping) != canonical_text(explicit_keep.mapping));
}

TEST_CASE("the mapper chooses a free keep and writes its choice", "[mapper][keep]") {
  // A template on the tiny graph with SRAM's keep of A left free, searched exhaustively: the
  // free search covers the union of the two fixed ones, so it finds the better of their optima.
  // A refetch never moves fewer bytes than a keep and both hold the same buffer, so the better
  // is keep's (here a tie: the best tiling reuses nothing across DRAM's loops, and the tie goes
  // to keep, the first value); the written mapping states it.
  const std::string base = R"(version: 1
kind: mapping
name: t
tree:
  tile: DRAM
  temporal: {M: "?", N: "?", K: "?"}
  order: "?"
  children:
    - tile: SRAM
      double_buffer: true
      keep: {A: KEEP}
      temporal: {M: "?", N: "?", K: "?"}
      children:
        - op: PE
          factors: {M: 8, N: 8, K: 4}
)";
  auto with = [&](const std::string& value) {
    return parse_mapping(replace_once(base, "KEEP", value), "t.yaml");
  };
  const ArchitectureGraph g = parse_architecture(tiny_arch("shared", "64B/cycle"), "tiny.yaml");
  const Operator op = make_gemm("g", 256, 64, 128);
  MapperOptions all;
  all.budget = 10'000'000;
  auto best = [&](const Mapping& t) {
    MapperResult r = search_mapping(compile_mapping(t, op, g, true), all);
    REQUIRE(r.found);
    REQUIRE(r.exhaustive);
    return r;
  };
  REQUIRE(with("\"?\"").has_free_factors());
  const double keep = best(with("true")).device_s;
  const double refetch = best(with("false")).device_s;
  MapperResult free = best(with("\"?\""));
  CHECK(keep <= refetch);
  CHECK(free.device_s == Approx(keep).epsilon(1e-12));
  const int a = op.find_tensor("A");
  CHECK(free.program.nodes.at(1).keep[static_cast<size_t>(a)] == KeepChoice::keep);
  const std::string written = mapping_yaml(free.program, "m", "");
  CHECK_THAT(written, Catch::Contains("keep: {A: true}"));
  CHECK(written.find("\"?\"") == std::string::npos);
}

TEST_CASE("the mapper searches a template with a bypass and writes the bypass back",
          "[mapper][keep]") {
  // C bypasses SRAM: its partial sums go from the PE straight to DRAM. SRAM then holds only A
  // and B, and the mapping the mapper writes says so and predicts the same time when reloaded.
  const ArchitectureGraph g = parse_architecture(tiny_arch("shared", "64B/cycle"), "tiny.yaml");
  const Operator op = make_gemm("g", 64, 64, 64);
  const Mapping tmpl = parse_mapping(R"(version: 1
kind: mapping
name: t
tree:
  tile: DRAM
  temporal: {M: "?", N: "?", K: "?"}
  children:
    - tile: SRAM
      buffers: {C: bypass}
      temporal: {M: "?", N: "?", K: "?"}
      children:
        - op: PE
          factors: {M: 8, N: 8, K: 4}
)",
                                     "t.yaml");
  MapperOptions options;
  options.budget = 20000;
  options.parallel = false;
  MapperResult r = search_mapping(compile_mapping(tmpl, op, g, true), options);
  REQUIRE(r.found);
  const int c = op.find_tensor("C");
  CHECK_FALSE(r.program.nodes.at(1).buffer[static_cast<size_t>(c)].valid());
  const std::string written = mapping_yaml(r.program, "m", "");
  CHECK_THAT(written, Catch::Contains("buffers: {C: bypass}"));
  MappingProgram again = compile_mapping(parse_mapping(written, "m.yaml"), op, g);
  AnalysisScratch eval;
  CHECK(evaluate(again, eval) == Approx(r.device_s).epsilon(1e-12));
}
