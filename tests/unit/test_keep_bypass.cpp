// Keep, refetch and bypass per tensor per level: hand-derived traffic and time on tiny graphs
// written inline (AnalysisFixtures), the mapper's free keep and free buffers (keep or bypass),
// loader errors and the writer.
#include <catch2/catch.hpp>

#include "AnalysisFixtures.hpp"
#include "InputErrorCapture.hpp"
#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "mapper/BufferChoices.hpp"
#include "mapper/Mapper.hpp"
#include "mapper/OperatorPrediction.hpp"
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

// DRAM -> SRAM -> PE on tiny_arch with every factor free and `sram_lines` at the SRAM tile
// (line 9 of t.yaml).
Mapping free_sram_template(const std::string& sram_lines) {
  return parse_mapping(R"(version: 1
kind: mapping
name: t
tree:
  tile: DRAM
  temporal: {M: "?", N: "?", K: "?"}
  children:
    - tile: SRAM
)" + sram_lines + R"(      temporal: {M: "?", N: "?", K: "?"}
      children:
        - op: PE
          factors: {M: 8, N: 8, K: 4}
)",
                       "t.yaml");
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
  const Mapping tmpl = free_sram_template("      buffers: {C: bypass}\n");
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

TEST_CASE("a result that bypasses the buffer streams out during the work, worked by hand",
          "[analysis][mapper][keep]") {
  // The walk over N on the fast-inside graph (above): held in BUF, C goes out once a step after
  // the step's work, 2 KiB / 64 B/cycle = 32 cycles, and the last of those is exposed:
  //   4 x 64 + (160 + 32 + 32 - 64) = 416 cycles.
  // Bypassing BUF, the PE's C blocks go straight out over PE -> REG -> BUF -> DRAM as the op
  // makes them: the same 2 KiB a step, 32 cycles on BUF -> DRAM, but during the step's work
  // (32 cycles of operands), so a step still takes its 64 cycles of loads, and nothing is stored
  // after the last one:
  //   4 x 64 + (160 + 32 - 64) = 384 cycles.
  // With `buffers: {C: "?"}` the mapper tries both (the factors are fixed) and takes the bypass;
  // the mapping it writes says so and reloads to the same time.
  const std::string fixed = walk_over_n("", "");
  auto with_buffers = [&](const std::string& line) {
    return replace_once(fixed, "double_buffer: true", "double_buffer: true\n      " + line);
  };
  Case held, bypassed;
  run_case(held, kFastInside, "mm64", fixed);
  run_case(bypassed, kFastInside, "mm64", with_buffers("buffers: {C: bypass}"));
  REQUIRE(held.eval.valid());
  REQUIRE(bypassed.eval.valid());
  CHECK(held.cycles() == Approx(416.0));
  CHECK(bypassed.cycles() == Approx(384.0));
  CHECK(edge_bytes(bypassed, "BUF", "DRAM") == Approx(edge_bytes(held, "BUF", "DRAM")));

  const ArchitectureGraph g = parse_architecture(kFastInside, "fast.yaml");
  const Workload w = parse_workload(tiny_workload(), "tiny-suite.yaml");
  const Operator& op = find_op(w, "mm64");
  const Mapping tmpl = parse_mapping(
      "version: 1\nkind: mapping\nname: t\ntree:\n" + with_buffers("buffers: {C: \"?\"}"),
      "t.yaml");
  REQUIRE(tmpl.has_free_factors());
  OperatorPredictionOptions options;
  options.mapping = &tmpl;
  MappingProgram chosen;
  const Prediction p = predict_operator(op, g, options, &chosen);
  CHECK(p.device_us * 1e-6 * g.clock_hz == Approx(384.0));
  const int c = op.find_tensor("C");
  CHECK_FALSE(chosen.nodes.at(1).buffer[static_cast<size_t>(c)].valid());
  const std::string written = mapping_yaml(chosen, "m", "");
  CHECK_THAT(written, Catch::Contains("buffers: {C: bypass}"));
  CHECK(written.find("\"?\"") == std::string::npos);
  MappingProgram again = compile_mapping(parse_mapping(written, "m.yaml"), op, g);
  AnalysisScratch eval;
  CHECK(evaluate(again, eval) * 1e6 == Approx(p.device_us).epsilon(1e-12));
}

TEST_CASE("free buffers are settled every way, holding first", "[mapper][keep]") {
  // Two free buffers at one tile: four ways, in binary order (A's choice the low bit). A keep of
  // a tensor that bypasses is dropped with it; a fixed placement stays as written.
  const Mapping tmpl =
      free_sram_template("      buffers: {A: \"?\", B: \"?\", C: SRAM}\n      keep: {A: \"?\"}\n");
  const std::vector<Mapping> ways = buffer_choices(tmpl);
  REQUIRE(ways.size() == 4);
  auto memory_of = [](const Mapping& m, const std::string& t) {
    for (const TensorPlacement& p : m.root.children.at(0).placements)
      if (p.tensor == t) return p.memory;
    return std::string("none");
  };
  const std::vector<std::pair<std::string, std::string>> expected{
      {"SRAM", "SRAM"}, {"bypass", "SRAM"}, {"SRAM", "bypass"}, {"bypass", "bypass"}};
  for (size_t k = 0; k < ways.size(); ++k) {
    INFO(k);
    CHECK(memory_of(ways[k], "A") == expected[k].first);
    CHECK(memory_of(ways[k], "B") == expected[k].second);
    CHECK(memory_of(ways[k], "C") == "SRAM");
    CHECK(ways[k].root.children.at(0).keeps.size() == (expected[k].first == "SRAM" ? 1u : 0u));
  }
  // A mapping without free buffers is its own only way.
  CHECK(buffer_choices(ways[1]).size() == 1);

  // Compiled as it is, a free buffer is an error at its line: the mapper settles it.
  const ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  const Operator op = make_gemm("g", 64, 64, 64);
  const InputError direct = input_error_of([&] { compile_mapping(tmpl, op, g, true); });
  CHECK(direct.where().file == "t.yaml");
  CHECK(direct.where().line == 9);
  CHECK_THAT(direct.message(), Catch::Contains("leaves to the mapper"));

  // Five free buffers would be 32 searches: an error at the fifth, naming the limit.
  Mapping many = tmpl;
  MappingNode& sram = many.root.children.at(0);
  sram.placements.at(2).memory = kFreeBuffer;
  many.root.placements = {{"A", kFreeBuffer, {"t.yaml", 5, 3}},
                          {"B", kFreeBuffer, {"t.yaml", 5, 9}}};
  const InputError too_many = input_error_of([&] { buffer_choices(many); });
  CHECK(too_many.where().line == 9);
  CHECK_THAT(too_many.message(), Catch::Contains("more than 4 free buffers"));
}

TEST_CASE("the mapper bypasses the scratchpad on the bundled mesh where that is faster",
          "[mapper][keep]") {
  // mesh-4x4's GEMM template leaves A, B and C free at the scratchpad. On a 256 x 256 x 64 GEMM
  // the best of the 8 ways writes C straight out: strictly faster than the best the search finds
  // holding every operand (the template before the choice), and written back as a bypass.
  const ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/mesh-4x4.yaml");
  const Operator op = make_gemm("g", 256, 256, 64);
  MappingProgram chosen;
  const Prediction p = predict_operator(op, g, {}, &chosen);
  const Mapping tmpl = template_menu(op, g).front();
  const std::vector<Mapping> ways = buffer_choices(tmpl);
  REQUIRE(ways.size() == 8);
  OperatorPredictionOptions held_only;
  held_only.mapping = &ways.front();
  const Prediction held = predict_operator(op, g, held_only);
  CHECK(p.device_us < held.device_us * 0.99);
  const NodeId scratchpad = *g.find_node("Scratchpad");
  int bypassed = 0;
  for (const ProgramNode& n : chosen.nodes)
    if (n.kind == MappingNodeKind::tile && n.memory == scratchpad)
      for (int t = 0; t < chosen.ntensors; ++t)
        bypassed += !n.buffer[static_cast<size_t>(t)].valid();
  CHECK(bypassed > 0);
  const std::string written = mapping_yaml(chosen, "m", "");
  CHECK_THAT(written, Catch::Contains(": bypass"));
  MappingProgram again = compile_mapping(parse_mapping(written, "m.yaml"), op, g);
  AnalysisScratch eval;
  CHECK(evaluate(again, eval) * 1e6 == Approx(p.device_us).epsilon(1e-12));
}
