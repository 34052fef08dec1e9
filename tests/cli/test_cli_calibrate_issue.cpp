// `calibrate --from-runner --tensor-peak wmma-kernel` with the runner's WMMA sweep records: the
// written graph carries a fitted `issue:` block under mma.sync's peak, and a malformed sweep
// record is an input error at its line. (The fit's recovery of known figures is a unit test:
// test_issue_fit.cpp.)
#include <catch2/catch.hpp>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

using namespace ts::cli_test;

TEST_CASE("calibrate --tensor-peak wmma-kernel fits an issue limit to the sweep records",
          "[cli][cupti]") {
  ts::test::TempDir dir("calibrate-issue");
  const std::string out = dir / "nvidia-wmma.yaml";
  const RunResult r = run_tilescope(
      {"calibrate", "--from-runner", "tests/fixtures/cupti/calibration-sweeps.jsonl", "--out", out,
       "--base", "samples/arch/nvidia-h200.yaml", "--tensor-peak", "wmma-kernel"});
  REQUIRE(r.status == 0);
  const std::string text = read_text(out);
  // 528 TFLOP/s / 2 / 132 SMs / 1.98 GHz = 1010 MACs per cycle per SM: mma.sync's peak
  CHECK(text.find("{class: matmul, dtype: fp16, ops_per_cycle: 1010.") != std::string::npos);
  CHECK(text.find("issue: {instructions_per_step: ") != std::string::npos);
  CHECK(text.find("issue_per_cycle: 4, latency_cycles: ") != std::string::npos);
  CHECK(text.find("(3 wmma_kernel_sweep records;") != std::string::npos);
  CHECK(run_tilescope({"validate", out}).status == 0);

  // Without the peak of the kernel, the sweeps are not put in.
  const RunResult library =
      run_tilescope({"calibrate", "--from-runner", "tests/fixtures/cupti/calibration-sweeps.jsonl",
                     "--out", out, "--base", "samples/arch/nvidia-h200.yaml"});
  REQUIRE(library.status == 0);
  CHECK(read_text(out).find("issue:") == std::string::npos);

  const RunResult bad = run_tilescope(
      {"calibrate", "--from-runner", "tests/fixtures/cupti/calibration-sweep-no-warps.jsonl",
       "--out", out, "--base", "samples/arch/nvidia-h200.yaml", "--tensor-peak", "wmma-kernel"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("calibration-sweep-no-warps.jsonl:15:") != std::string::npos);
  CHECK(bad.err.find("`warps`") != std::string::npos);
}
