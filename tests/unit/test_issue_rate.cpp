// An issue-limited matmul unit (ComputeCapability::issue): its rate follows from the warps and
// warp tile of the op (`warps:` in the mapping). Every figure below is worked out by hand from
// the tiny graph (1 GHz: cycles = ns) and the formula in analysis/IssueRate.hpp.
#include <catch2/catch.hpp>

#include "AnalysisFixtures.hpp"
#include "analysis/IssueRate.hpp"
#include "analysis/MappingWriter.hpp"
#include "analysis/Prediction.hpp"
#include "arch/ArchitectureWriter.hpp"

using namespace ts;
using namespace ts::test;

namespace {

// The tiny graph's PE with an issue limit: 256 MACs/cycle in 8x8x4 granules (one step = 256
// MACs, so at most 1 step a cycle); a warp issues 2 instructions per step plus 4 per fragment;
// the schedulers issue 4 a cycle; a warp's next step waits 10 cycles.
const std::string kIssueOperation =
    "{class: matmul, dtype: fp16, ops_per_cycle: 256, granule: [8, 8, 4], issue: "
    "{instructions_per_step: 2, instructions_per_fragment: 4, issue_per_cycle: 4, "
    "latency_cycles: 10}}";

std::string issue_arch(const std::string& dram_bw = "64B/cycle") {
  return replace_once(tiny_arch("shared", dram_bw), fp16_matmul(256), kIssueOperation);
}

std::string with_warps(std::string mapping, const std::string& warps) {
  return mapping + "          warps: {" + warps + "}\n";
}

// mm64 walked over K in 4 steps at DRAM; each double-buffered SRAM tile (64 x 64 x 16) loops
// {M: 8, N: 8, K: 4} = 256 calls (steps) of 8 x 8 x 4.
std::string k_walk(const std::string& warps) {
  return with_warps(
      dram_sram_pe("K: 4", "", "double_buffer: true", "M: 8, N: 8, K: 4", "M: 8, N: 8, K: 4"),
      warps);
}

}  // namespace

TEST_CASE("issue rate: fragment loads per step fall as the warp tile grows", "[analysis][issue]") {
  IssueLimit issue{.instructions_per_step = 1,
                   .instructions_per_fragment = 4,
                   .issue_per_cycle = 4,
                   .latency_cycles = 100};
  const std::array<int64_t, 3> granule{16, 8, 16};
  // 64 x 64: A fragments 8 / 64, B fragments 16 / 64 a step: 1 + 4 * 0.375 = 2.5.
  CHECK(issue_instructions_per_step(issue, granule, 64, 64) == Approx(2.5));
  // 16 x 16: 8 / 16 + 16 / 16 = 1.5 fragments: 1 + 4 * 1.5 = 7.
  CHECK(issue_instructions_per_step(issue, granule, 16, 16) == Approx(7.0));
  // 20 x 12 pads to whole granules, 32 x 16: 8 / 16 + 16 / 32 = 1: 1 + 4 = 5.
  CHECK(issue_instructions_per_step(issue, granule, 20, 12) == Approx(5.0));

  ComputeCapability cap{.op_class = OpClass::matmul,
                        .dtype = DataType::fp16,
                        .ops_per_cycle = 2048,
                        .granule = granule,
                        .accumulator = std::nullopt,
                        .issue = issue,
                        .where = {}};
  // One step is 2048 MACs: peak 1 step a cycle. 64 warps of 64 x 64: latency 64 / 100 = 0.64,
  // issue 4 / 2.5 = 1.6: 0.64 steps = 1310.72 MACs a cycle.
  CHECK(issue_limited_ops_per_cycle(cap, 64, 64, 64) == Approx(0.64 * 2048));
  // 400 warps of 16 x 16: latency 4, issue 4 / 7: issue-bound.
  CHECK(issue_limited_ops_per_cycle(cap, 400, 16, 16) == Approx(4.0 / 7.0 * 2048));
  // 400 warps of 64 x 64 with 1 instruction a step and none per fragment: issue 4, latency 4:
  // the tensor-core peak, 1 step a cycle.
  cap.issue->instructions_per_fragment = 0;
  CHECK(issue_limited_ops_per_cycle(cap, 400, 64, 64) == Approx(2048.0));
  cap.issue.reset();
  CHECK(issue_limited_ops_per_cycle(cap, 1, 16, 16) == Approx(2048.0));
}

TEST_CASE("issue-bound unit: the rate rises with warps until the memory bound takes over",
          "[analysis][issue]") {
  // DRAM -> SRAM at 8 B/cycle: an iteration loads A and B (64 x 16 x 2 B each, 4 KiB) in 512
  // cycles; C (64 x 64 x 2 B = 8 KiB) is written once, a quarter a step: 256 cycles, and its
  // last store drains 256 cycles. Compute of an iteration: 256 steps at
  //   min(1, 4 / i, W / 10) steps a cycle, with warp tile 64/wm x 64/wn:
  //   W = 1 (64 x 64): latency 0.1                                  -> 2560 cycles
  //   W = 2 (32 x 64): latency 0.2                                  -> 1280
  //   W = 4 (32 x 32): latency 0.4                                  ->  640
  //   W = 8 (16 x 32): i = 2 + 4 (8/32 + 8/16) = 5, issue and latency 0.8 -> 320
  // Four double-buffered iterations: 4 * max(L, C, S) + (L + C + S - max):
  //   W = 1: 4 * 2560 + 512 + 256 = 11008      W = 2: 4 * 1280 + 768 = 5888
  //   W = 4: 4 * 640 + 768 = 3328              W = 8: 4 * 512 + 320 + 256 = 2624, on DRAM.
  struct Row {
    const char* warps;
    double cycles;
    const char* bound;
  };
  for (const Row& row :
       {Row{"M: 1", 11008, "compute:PE"}, Row{"M: 2", 5888, "compute:PE"},
        Row{"M: 2, N: 2", 3328, "compute:PE"}, Row{"M: 4, N: 2", 2624, "edge:DRAM->SRAM"}}) {
    CAPTURE(row.warps);
    Case c;
    run_case(c, issue_arch("8B/cycle"), "mm64", k_walk(row.warps));
    REQUIRE(c.eval.valid());
    CHECK(c.cycles() == Approx(row.cycles));
    CHECK(bound_text(c.graph, c.eval.bound) == row.bound);
  }
}

TEST_CASE("issue-bound unit: a larger warp tile issues fewer instructions per mma",
          "[analysis][issue]") {
  // mm64 in one SRAM tile of 1024 steps, 8 warps; loads 256 cycles, store 128, in turn.
  //   {M: 8}      8 x 64: i = 2 + 4 (8/64 + 8/8)  = 6.5, issue 4 / 6.5 steps a cycle: 1664 cycles
  //   {M: 4, N: 2} 16 x 32: i = 2 + 4 (8/32 + 8/16) = 5,  issue 0.8 (latency 0.8):      1280
  Case thin, square;
  run_case(thin, issue_arch(), "mm64", with_warps(gemm_tiles(), "M: 8"));
  run_case(square, issue_arch(), "mm64", with_warps(gemm_tiles(), "M: 4, N: 2"));
  REQUIRE(thin.eval.valid());
  REQUIRE(square.eval.valid());
  CHECK(thin.cycles() == Approx(256 + 1024 * 6.5 / 4 + 128));
  CHECK(square.cycles() == Approx(256 + 1280 + 128));
}

TEST_CASE("issue: without the block the rate is fixed, and warps change nothing",
          "[analysis][issue]") {
  // The same mapping with and without `warps:` on the plain tiny graph: 1408 cycles (see
  // "compute-bound GEMM" in test_analysis.cpp).
  Case plain, warped;
  run_case(plain, tiny_arch(), "mm64", gemm_tiles());
  run_case(warped, tiny_arch(), "mm64", with_warps(gemm_tiles(), "M: 4, N: 2"));
  CHECK(plain.cycles() == Approx(1408.0));
  CHECK(warped.cycles() == Approx(1408.0));
  // The mapping's hash changes only when warps are written.
  CHECK(canonical_text(plain.mapping) != canonical_text(warped.mapping));
}

TEST_CASE("issue: the writers round-trip the issue block and the warps", "[analysis][issue]") {
  Case c;
  run_case(c, issue_arch(), "mm64", with_warps(gemm_tiles(), "M: 4, N: 2"));
  const std::string arch = architecture_yaml(c.graph, "", "tiny.yaml");
  const ArchitectureGraph again = parse_architecture(arch, "tiny.yaml");
  CHECK(again.content_hash() == c.graph.content_hash());
  const ComputeCapability* cap =
      again.node(*again.find_node("PE")).capability(OpClass::matmul, DataType::fp16);
  REQUIRE(cap->issue);
  CHECK(cap->issue->latency_cycles == 10);
  CHECK(cap->issue->instructions_per_fragment == 4);
  // A graph without the block hashes differently.
  CHECK(parse_architecture(tiny_arch(), "tiny.yaml").content_hash() != c.graph.content_hash());
  const std::string mapping = mapping_yaml(c.program, "m", "");
  CHECK(mapping.find("warps: {M: 4, N: 2}") != std::string::npos);
}

TEST_CASE("issue: loader errors name the line and what was expected", "[analysis][issue]") {
  auto error_of = [](const std::string& arch) {
    try {
      parse_architecture(arch, "tiny.yaml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = error_of(replace_once(issue_arch(), "latency_cycles: 10", "x: 1"));
  CHECK(missing.find("tiny.yaml:") != std::string::npos);
  CHECK(missing.find("unknown key") != std::string::npos);
  const std::string on_vector = error_of(
      replace_once(tiny_arch(), "granule: [32]}", "granule: [32], issue: {issue_per_cycle: 1}}"));
  CHECK(on_vector.find("tiny.yaml:14") != std::string::npos);
  CHECK(on_vector.find("matmul operations only") != std::string::npos);
  const std::string negative = error_of(
      replace_once(issue_arch(), "instructions_per_fragment: 4", "instructions_per_fragment: -1"));
  CHECK(negative.find("at least 0") != std::string::npos);
  try {
    parse_mapping(
        "version: 1\nkind: mapping\nname: m\ntree:\n" + with_warps(gemm_tiles(), "M: 2/1"),
        "m.yaml");
    FAIL("a tail in warps was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("m.yaml:") != std::string::npos);
    CHECK(std::string(e.what()).find("positive integer") != std::string::npos);
  }
}
