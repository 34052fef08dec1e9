// `tilescope measure --collector cupti`: the plan it writes for tilescope-cupti-runner, and the
// one-line exit 2 without a CUDA device (this machine has none; the runner is built beside
// tilescope where the CUDA toolkit is found).
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "RunTilescope.hpp"
#include "TempDir.hpp"

namespace {

using namespace ts::cli_test;

bool gpu_visible() { return std::system("nvidia-smi -L >/dev/null 2>&1") == 0; }

}  // namespace

TEST_CASE("measure --collector cupti --plan writes a runner plan", "[cli][cupti]") {
  ts::test::TempDir dir("cupti-plan");
  const std::string plan = dir / "suite.plan";
  const RunResult r = run_tilescope({"measure", "--collector", "cupti", "--workload",
                                     "tests/fixtures/cupti/small-gpu-suite.yaml", "--arch",
                                     "samples/arch/nvidia-h200.yaml", "--mappings-per-gemm", "2",
                                     "--repetitions", "10", "--plan", plan});
  REQUIRE(r.status == 0);
  // score has one mapping the kernel runs as written among its candidates (the others are left
  // out with the reason, e.g. loops above a grid part smaller than the SMs)
  CHECK(r.out.find("wrote 17 jobs (3 cublas, 3 cublaslt, 5 tilescope, 6 vector) to " + plan) == 0);
  const std::vector<std::string> lines = split_lines(read_text(plan));
  REQUIRE(!lines.empty());
  CHECK(lines[0] == "tilescope-plan 1");
  size_t jobs = 0, tiled = 0, fused_bias = 0, whole_grid = 0;
  for (const std::string& l : lines) {
    if (l.rfind("job ", 0) == 0) ++jobs;
    if (l.find(" impl=tilescope block=") != std::string::npos) {
      ++tiled;
      CHECK(l.find(" warp=") != std::string::npos);
      CHECK(l.find(" mapping_yaml=") != std::string::npos);
    }
    // the runner has a kernel for every vector step: the fused bias + GELU is measured too
    if (l.find("job suite=small-gpu-suite op=bias_act type=fused steps=bias,gelu ") == 0)
      ++fused_bias;
    if (l.rfind("# left out: score mapping", 0) == 0 &&
        l.find("the kernel runs all of its blocks at once") != std::string::npos)
      ++whole_grid;
    if (l.rfind("job ", 0) == 0) {
      CHECK(l.find(" spec=") != std::string::npos);
      CHECK(l.find(" reps=10 l2=cold") != std::string::npos);
    }
  }
  CHECK(jobs == 17);
  CHECK(tiled == 5);
  CHECK(fused_bias == 1);
  CHECK(whole_grid > 0);
}

TEST_CASE("measure --collector cupti needs --plan or --db", "[cli][cupti]") {
  const RunResult r = run_tilescope({"measure", "--collector", "cupti", "--workload",
                                     "tests/fixtures/cupti/small-gpu-suite.yaml"});
  CHECK(r.status == 2);
  CHECK(r.err.find("needs --plan FILE") != std::string::npos);
  const RunResult bad = run_tilescope(
      {"measure", "--collector", "tpu", "--workload", "tests/fixtures/cupti/small-gpu-suite.yaml"});
  CHECK(bad.status == 2);
  CHECK(bad.err.find("(this build has: host, cupti)") != std::string::npos);
}

TEST_CASE("measure --collector cupti without a device exits 2 with the runner's line",
          "[cli][cupti]") {
  const auto runner =
      std::filesystem::path(TILESCOPE_BINARY).parent_path() / "tilescope-cupti-runner";
  if (!std::filesystem::exists(runner)) {
    WARN("no tilescope-cupti-runner in this build (no CUDA toolkit): skipped");
    return;
  }
  if (gpu_visible()) {
    WARN("a GPU is visible: the no-device path is not checked here");
    return;
  }
  ts::test::TempDir dir("cupti-nodevice");
  const std::string db = dir / "results.sqlite";
  const RunResult r = run_tilescope({"measure", "--collector", "cupti", "--workload",
                                     "tests/fixtures/cupti/small-gpu-suite.yaml", "--arch",
                                     "samples/arch/nvidia-h200.yaml", "--db", db});
  CHECK(r.status == 2);
  const std::vector<std::string> lines = split_lines(r.err);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].rfind("no CUDA device visible: ", 0) == 0);
  CHECK_FALSE(std::filesystem::exists(db));
}
