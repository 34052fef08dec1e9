// A compute unit's min_kernel_time (docs/analysis.md, "Kernel floor"), worked by hand: a kernel
// lasts the larger of its own time and the floor, on the graph of LlmFixtures.hpp.
#include <catch2/catch.hpp>
#include <string>

#include "LlmFixtures.hpp"
#include "analysis/Prediction.hpp"
#include "analysis/TileAnalysis.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

Prediction run(const ArchitectureGraph& g, int64_t n) {
  const Operator op = make_gemm("gemv", 1, n, 256);
  const std::string mapping =
      "version: 1\nkind: mapping\nname: m\ntree:\n  tile: DRAM\n  "
      "children:\n    - tile: BUF\n      children:\n        - op: PE\n"
      "          factors: {M: 1, N: " +
      std::to_string(n) + ", K: 256}\n";
  const MappingProgram p = compile_mapping(parse_mapping(mapping, "m.yaml"), op, g);
  AnalysisScratch e;
  evaluate(p, e);
  REQUIRE(e.valid());
  return make_prediction(p, analysis_result(p, e));
}

}  // namespace

TEST_CASE("a kernel lasts at least its unit's min_kernel_time", "[analysis][kernel_floor]") {
  const ArchitectureGraph none = parse_architecture(test::llm_ops_graph(), "none.yaml");
  const ArchitectureGraph floor =
      parse_architecture(test::llm_ops_graph("    min_kernel_time: 5us\n"), "floor.yaml");
  REQUIRE(floor.node(*floor.find_node("PE")).min_kernel_time_s == Approx(5e-6));
  SECTION("a short kernel takes the floor") {
    // GEMV 1 x 256 x 256: loads A 512 B and W 131072 B at 64 B/cycle (2056), the call reads
    // them at 1024 (128.5), C 512 B leaves at 64 (8): 2192.5 ns, under the 5000 ns floor.
    CHECK(run(none, 256).device_us == Approx(2.1925));
    const Prediction p = run(floor, 256);
    CHECK(p.device_us == Approx(5.0));
    CHECK(p.bound_by == "kernel_floor:PE");
  }
  SECTION("a long kernel keeps its own time: the floor is a max, not a sum") {
    // N = 1024: loads 512 + 524288 B (8200), the call 524800 / 1024 (512.5), C 2048 B (32):
    // 8744.5 ns, above the floor.
    CHECK(run(floor, 1024).device_us == Approx(8.7445));
    CHECK(run(floor, 1024).bound_by == "edge:DRAM->BUF");
  }
  SECTION("written back, and part of the graph's hash only when set") {
    const std::string written = architecture_yaml(floor, "", "w.yaml");
    CHECK(written.find("min_kernel_time: 5us") != std::string::npos);
    CHECK(parse_architecture(written, "again.yaml").content_hash() == floor.content_hash());
    CHECK(floor.content_hash() != none.content_hash());
    CHECK(architecture_yaml(none, "", "w.yaml").find("min_kernel_time") == std::string::npos);
  }
  SECTION("only a compute node has one") {
    CHECK_THROWS_WITH(
        parse_architecture("version: 1\nkind: architecture\nname: x\nclock: 1GHz\nnodes:\n  - "
                           "{name: M, type: memory, "
                           "capacity: 1KiB, min_kernel_time: 1us}\n",
                           "x.yaml"),
        Catch::Contains("x.yaml:6:45: `min_kernel_time` applies to compute nodes only"));
  }
}
