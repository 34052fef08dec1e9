// Row alignment on an edge (ArchEdge::alignment): rows of a tensor whose byte length is not a
// multiple of the edge's alignment move at its unaligned rate. Worked by hand on the tiny graph
// (1 GHz: cycles = ns; DRAM <-> SRAM 64 B/cycle, shared).
#include <catch2/catch.hpp>

#include "AnalysisFixtures.hpp"
#include "arch/ArchitectureWriter.hpp"

using namespace ts;
using namespace ts::test;

namespace {

// Both DRAM <-> SRAM edges vectorise 16-byte loads and stores only; other rows move at 1/8 of
// the rate (2-byte elements one at a time).
std::string aligned_arch() {
  const std::string align = "sharing: shared, alignment: {bytes: 16, unaligned_rate: 0.125}}";
  return replace_once(replace_once(tiny_arch(), "sharing: shared}", align), "sharing: shared}",
                      align);
}

// Y = X + Z over 64 rows of `cols` fp16: DRAM walks 16 tiles of 4 rows, double-buffered at SRAM,
// each 4 PE calls of one whole row.
double add_cycles(const std::string& arch, int cols) {
  const ArchitectureGraph g = parse_architecture(arch, "tiny.yaml");
  const Workload w = parse_workload(
      "version: 1\nkind: workload\nname: rows\noperators:\n"
      "  - {name: add, type: add, rows: 64, cols: " +
          std::to_string(cols) + "}\n",
      "rows.yaml");
  const Mapping m = parse_mapping(
      "version: 1\nkind: mapping\nname: m\ntree:\n" +
          dram_sram_pe("R: 16", "", "double_buffer: true", "R: 4", "C: " + std::to_string(cols)),
      "m.yaml");
  const MappingProgram p = compile_mapping(m, w.operators.at(0), g);
  AnalysisScratch e;
  evaluate(p, e);
  REQUIRE(e.valid());
  return e.device_s * g.clock_hz;
}

}  // namespace

TEST_CASE("row alignment: a 197-wide fp16 row moves at the unaligned rate, a 200-wide one does not",
          "[analysis][alignment]") {
  // Compute per tile: 4 calls of a row padded to 224 (granule 32) at 64 a cycle: 14 cycles.
  // 200 x 2 B = 400 B, a multiple of 16: X and Z tiles (4 x 400 B each) load in 3200 / 64 = 50
  // cycles, Y stores in 1600 / 64 = 25. 16 tiles, double-buffered:
  //   16 x 50 + (50 + 14 + 25 - 50) = 839.
  CHECK(add_cycles(aligned_arch(), 200) == Approx(839.0));
  // 197 x 2 B = 394 B, not a multiple of 16: at 8 B/cycle, loads 2 x 1576 / 8 = 394 cycles,
  // the store 1576 / 8 = 197: 16 x 394 + (394 + 14 + 197 - 394) = 6515.
  CHECK(add_cycles(aligned_arch(), 197) == Approx(6515.0));
  // Without the key, today's figure: loads 3152 / 64 = 49.25, store 24.625:
  //   16 x 49.25 + (49.25 + 14 + 24.625 - 49.25) = 826.625.
  CHECK(add_cycles(tiny_arch(), 197) == Approx(826.625));
}

TEST_CASE("row alignment: written back, hashed, and checked on load", "[analysis][alignment]") {
  const ArchitectureGraph g = parse_architecture(aligned_arch(), "tiny.yaml");
  const ArchitectureGraph again =
      parse_architecture(architecture_yaml(g, "", "tiny.yaml"), "t.yaml");
  CHECK(again.content_hash() == g.content_hash());
  REQUIRE(again.edges.at(0).alignment);
  CHECK(again.edges.at(0).alignment->bytes == 16);
  CHECK(again.edges.at(0).alignment->unaligned_rate == 0.125);
  CHECK(parse_architecture(tiny_arch(), "tiny.yaml").content_hash() != g.content_hash());
  try {
    parse_architecture(replace_once(aligned_arch(), "unaligned_rate: 0.125", "unaligned_rate: 2"),
                       "tiny.yaml");
    FAIL("an unaligned rate above 1 was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("tiny.yaml:17") != std::string::npos);
    CHECK(std::string(e.what()).find("at most 1") != std::string::npos);
  }
}
