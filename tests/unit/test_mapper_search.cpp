// The mapper's search: the compute floor that prunes points, when a search says it converged,
// and a start point (the GUI's what-if) that is kept unless something is strictly faster.
#include <catch2/catch.hpp>

#include "AnalysisFixtures.hpp"
#include "analysis/MappingWriter.hpp"
#include "mapper/BufferChoices.hpp"
#include "mapper/ComputeFloor.hpp"
#include "mapper/Mapper.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;
using namespace ts::test;

namespace {

const char* const kSearchTemplate = kFreeDramSramPeTemplate;

// The same tree with every factor given: `spatial_m` SRAM instances take M = 64 between them.
std::string concrete(int spatial_m) {
  const int m = 64 / 8 / spatial_m;
  return "version: 1\nkind: mapping\nname: c\ntree:\n  tile: DRAM\n"
         "  temporal: {M: 1, N: 1, K: 1}\n  order: [M, N, K]\n  spatial: {M: " +
         std::to_string(spatial_m) +
         "}\n  children:\n    - tile: SRAM\n      double_buffer: true\n"
         "      temporal: {M: " +
         std::to_string(m) +
         ", N: 8, K: 16}\n      children:\n        - op: PE\n"
         "          factors: {M: 8, N: 8, K: 4}\n";
}

}  // namespace

TEST_CASE("the compute floor is the useful work over the instances busy at once", "[mapper]") {
  // tiny_arch: a PE does 256 MACs a cycle at 1 GHz; the DRAM tile spreads over 4 SRAMs. A
  // 64x64x64 GEMM is 262144 MACs: one busy instance takes at least 1024 ns, two 512 ns, and
  // four or more (8 parts still run 4 at a time) 256 ns.
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Operator op = make_gemm("g", 64, 64, 64);
  const MappingProgram tmpl =
      compile_mapping(parse_mapping(kSearchTemplate, "t.yaml"), op, g, true);
  const ComputeFloor floor(tmpl);
  for (auto [spatial, ns] :
       {std::pair{1, 1024.0}, std::pair{2, 512.0}, std::pair{4, 256.0}, std::pair{8, 256.0}}) {
    INFO("spatial M " << spatial);
    const MappingProgram p =
        compile_mapping(parse_mapping(concrete(spatial), "c.yaml"), op, g, false);
    CHECK(floor.seconds(p) == Approx(ns * 1e-9).epsilon(1e-12));
    AnalysisScratch e;
    const double t = evaluate(p, e);
    REQUIRE(e.valid());
    CHECK(t >= floor.seconds(p));  // a floor: the analysis never times the point below it
  }
}

TEST_CASE("the floor is below every sampled point of the bundled graphs' templates", "[mapper]") {
  for (const char* arch : {"ascend910b3", "nvidia-h100", "systolic-16x16", "mesh-4x4"}) {
    ArchitectureGraph g =
        load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/" + arch + ".yaml");
    for (const Operator& op :
         {make_gemm("g", 512, 768, 256), make_gemm("skinny", 16, 1024, 4096)}) {
      INFO(arch << " " << op.name);
      // Every way of settling the template's free buffers (mesh-4x4 keeps or bypasses each).
      for (const Mapping& settled : buffer_choices(default_template(op, g))) {
        const MappingProgram tmpl = compile_mapping(settled, op, g, true);
        const ComputeFloor floor(tmpl);
        for (const MappingProgram& p : sample_valid_mappings(tmpl, 200, 11)) {
          AnalysisScratch e;
          INFO(mapping_yaml(p, "sampled", ""));
          CHECK(evaluate(p, e) >= floor.seconds(p) * (1 - 1e-12));
        }
      }
    }
  }
}

TEST_CASE("pruning by the floor skips evaluations and finds the same best", "[mapper]") {
  // Memory-bound on tiny_arch (A, B and C are 8 KiB each through 64 B/cycle: 384 ns at least),
  // so every point on one SRAM instance (compute floor 1024 ns) and on two (512 ns) cannot win,
  // nor can a point whose traffic floor is above the best.
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  for (auto [m, n, k] : {std::tuple{64, 64, 64}, std::tuple{128, 32, 64}}) {
    Operator op = make_gemm("g", m, n, k);
    const MappingProgram tmpl =
        compile_mapping(parse_mapping(kSearchTemplate, "t.yaml"), op, g, true);
    for (uint64_t budget : {uint64_t(10'000'000), uint64_t(3000)}) {
      INFO(m << "x" << n << "x" << k << " budget " << budget);
      MapperOptions pruned, plain;
      pruned.budget = plain.budget = budget;
      plain.prune = false;
      const MapperResult a = search_mapping(tmpl, pruned);
      const MapperResult b = search_mapping(tmpl, plain);
      REQUIRE(a.found);
      CHECK(a.exhaustive == (budget > 3000));
      CHECK(a.pruned > 0);
      // Points that refetch A or B at DRAM (an N or K loop above a tile that holds the other
      // operand) move more bytes through the 64 B/cycle edges than the best point's time allows.
      CHECK(a.pruned_by_traffic > 0);
      CHECK(a.pruned_by_traffic <= a.pruned);
      CHECK(b.pruned == 0);
      CHECK(a.device_s == b.device_s);
      CHECK(mapping_yaml(a.program, "m", "") == mapping_yaml(b.program, "m", ""));
      if (a.exhaustive) CHECK(a.evaluations + a.pruned <= b.evaluations);
    }
  }
}

TEST_CASE("a search says whether it converged", "[mapper]") {
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Operator op = make_gemm("g", 96, 80, 64);
  const MappingProgram tmpl =
      compile_mapping(parse_mapping(kSearchTemplate, "t.yaml"), op, g, true);
  MapperOptions all;
  all.budget = 10'000'000;
  const MapperResult exhaustive = search_mapping(tmpl, all);
  REQUIRE(exhaustive.exhaustive);
  CHECK(exhaustive.converged);

  // A budget of a third of the space: the descents reach their local optima, or the best stops
  // improving for a quarter of the budget, before the budget ends.
  MapperOptions ample;
  ample.budget = static_cast<uint64_t>(exhaustive.space_size / 3);
  const MapperResult settled = search_mapping(tmpl, ample);
  REQUIRE_FALSE(settled.exhaustive);
  CHECK(settled.converged);
  CHECK(settled.evaluations < ample.budget);
  CHECK(settled.device_s <= exhaustive.device_s * 1.001);

  // Forty evaluations: the first descent is still improving when they are spent. Without
  // patience, so that only the descents' own ends can stop the search early.
  MapperOptions scant;
  scant.budget = 40;
  scant.patience = 0;
  const MapperResult cut = search_mapping(tmpl, scant);
  REQUIRE(cut.found);
  CHECK_FALSE(cut.converged);
  CHECK(cut.evaluations >= scant.budget);

  // Without patience the search runs to its budget.
  MapperOptions patient = ample;
  patient.patience = 0;
  CHECK(search_mapping(tmpl, patient).evaluations >= settled.evaluations);
}

TEST_CASE("a start point is kept unless something is strictly faster", "[mapper]") {
  ArchitectureGraph g = parse_architecture(tiny_arch(), "tiny.yaml");
  Operator op = make_gemm("g", 64, 64, 64);
  const MappingProgram tmpl =
      compile_mapping(parse_mapping(kSearchTemplate, "t.yaml"), op, g, true);
  MapperOptions all;
  all.budget = 10'000'000;
  const MapperResult best = search_mapping(tmpl, all);
  REQUIRE(best.found);

  // The optimum as a start: nothing is strictly faster, so it is what comes back.
  const std::string best_text = mapping_yaml(best.program, "best", "");
  const MappingProgram start = compile_mapping(parse_mapping(best_text, "best.yaml"), op, g, false);
  MapperOptions from_best;
  from_best.budget = 30;  // far too few to find anything by itself
  from_best.start = &start;
  const MapperResult kept = search_mapping(tmpl, from_best);
  CHECK(kept.from_start);
  CHECK(kept.device_s == best.device_s);
  CHECK(mapping_yaml(kept.program, "best", "") == best_text);

  // A poor start (one SRAM instance: at least 1024 ns) with a budget that finds better: left.
  const MappingProgram poor = compile_mapping(parse_mapping(concrete(1), "c.yaml"), op, g, false);
  AnalysisScratch e;
  const double poor_s = evaluate(poor, e);
  MapperOptions from_poor;
  from_poor.start = &poor;
  const MapperResult moved = search_mapping(tmpl, from_poor);
  CHECK_FALSE(moved.from_start);
  CHECK(moved.device_s < poor_s);

  // The what-if: DRAM twice as fast, the search starting from the mapping of the slower graph,
  // with too small a budget to search well: never slower than that mapping was.
  ArchitectureGraph fast = parse_architecture(tiny_arch("shared", "128B/cycle"), "tiny.yaml");
  const MappingProgram fast_tmpl =
      compile_mapping(parse_mapping(kSearchTemplate, "t.yaml"), op, fast, true);
  const MappingProgram shown =
      compile_mapping(parse_mapping(best_text, "best.yaml"), op, fast, false);
  MapperOptions what_if;
  what_if.budget = 30;
  what_if.start = &shown;
  CHECK(search_mapping(fast_tmpl, what_if).device_s <= best.device_s);
}
