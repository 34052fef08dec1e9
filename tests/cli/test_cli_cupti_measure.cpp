// `tilescope measure --collector cupti`: the plan it writes for tilescope-cupti-runner, and the
// one-line exit 2 without a CUDA device (this machine has none; the runner is built beside
// tilescope where the CUDA toolkit is found).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
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
  // every GEMM has mappings the kernel runs as written (a block of 192x192 leaves no warp tiling
  // within the registers, and is left out with the reason)
  CHECK(r.out.find("wrote 18 jobs (3 cublas, 3 cublaslt, 6 tilescope, 6 vector) to " + plan) == 0);
  const std::vector<std::string> lines = split_lines(read_text(plan));
  REQUIRE(!lines.empty());
  CHECK(lines[0] == "tilescope-plan 1");
  size_t jobs = 0, tiled = 0, fused_bias = 0;
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
    if (l.rfind("job ", 0) == 0) {
      CHECK(l.find(" spec=") != std::string::npos);
      CHECK(l.find(" reps=10 l2=cold") != std::string::npos);
    }
  }
  CHECK(jobs == 18);
  CHECK(tiled == 6);
  CHECK(fused_bias == 1);
}

TEST_CASE("a decode plan measures every operator of a mixture-of-experts layer", "[cli][cupti]") {
  // Mixtral 8x7B decode at batch 1: the router GEMV, the two experts a token is routed to as a
  // strided batched GEMM (B = 2 experts of M = 1 row), vLLM's RMSNorm, rotary embedding and
  // SiLU-and-multiply kernels, the residual adds and the split-KV attention. Nothing is left out
  // for want of a kernel.
  ts::test::TempDir dir("cupti-moe");
  const std::string plan = dir / "moe.plan";
  const RunResult r = run_tilescope({"measure", "--collector", "cupti", "--workload",
                                     "samples/workloads/llm/mixtral-8x7b-decode.yaml", "--arch",
                                     "samples/arch/nvidia-h200.yaml", "--plan", plan});
  REQUIRE(r.status == 0);
  const std::string text = read_text(plan);
  CHECK(text.find("the runner has no kernel") == std::string::npos);
  for (const char* job :
       {"op=experts_gate_up type=batched_gemm shape=B:2,M:1,N:28672,K:4096 dtype=fp16 impl=cublas ",
        "op=experts_down type=batched_gemm shape=B:2,M:1,N:4096,K:14336 dtype=fp16 impl=cublaslt ",
        "op=attn_norm type=rmsnorm shape=rows:1,cols:4096 ", "op=rope type=rope shape=T:1,H:40,",
        "op=experts_act type=silu_mul shape=rows:2,cols:14336 ",
        "op=attention type=decode_attention shape=B:8,H:4,"}) {
    INFO(job);
    CHECK(text.find(job) != std::string::npos);
  }
}

TEST_CASE("measure --collector cupti leaves out grid parts that a lockstep graph would misjudge",
          "[cli][cupti]") {
  // The same graph with its SMs in lockstep (no `dispatch: dynamic`): the model would run each
  // part of a grid smaller than the SMs on its own, where the kernel launches all of its blocks
  // at once, so such mappings are left out with that reason.
  ts::test::TempDir dir("cupti-lockstep");
  std::string graph = read_text(root_path("samples/arch/nvidia-h200.yaml"));
  const std::string key = "    dispatch: dynamic\n";
  REQUIRE(graph.find(key) != std::string::npos);
  graph.erase(graph.find(key), key.size());
  // its mapping templates are found relative to the graph's file
  const std::string templates = root_path("samples/mappings") + "/";
  for (size_t at; (at = graph.find("../mappings/")) != std::string::npos;)
    graph.replace(at, std::string("../mappings/").size(), templates);
  const std::string arch = dir / "lockstep.yaml";
  std::ofstream(arch) << graph;
  const std::string plan = dir / "suite.plan";
  const RunResult r = run_tilescope(
      {"measure", "--collector", "cupti", "--workload", "tests/fixtures/cupti/small-gpu-suite.yaml",
       "--arch", arch, "--mappings-per-gemm", "2", "--repetitions", "10", "--plan", plan});
  REQUIRE(r.status == 0);
  size_t whole_grid = 0;
  for (const std::string& l : split_lines(read_text(plan)))
    if (l.rfind("# left out: ", 0) == 0 &&
        l.find("the kernel runs all of its blocks at once") != std::string::npos)
      ++whole_grid;
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
