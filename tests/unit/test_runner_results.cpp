// The analysis side of the CUPTI runner: reading its JSON lines strictly, and the thread-block
// tile tilescope's CUDA GEMM takes from a mapping.
#include <catch2/catch.hpp>

#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "plan/MeasurementPlan.hpp"
#include "trace/RunnerResults.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

using namespace ts;

namespace {

const std::string kKernel =
    R"({"record":"kernel","runner_version":1,"plan_line":3,"suite":"s","operator":"g",)"
    R"("type":"gemm","shape":"M:64,N:64,K:64","dtype":"fp16","implementation":"cublas",)"
    R"("spec":"{name: g, type: gemm, M: 64, N: 64, K: 64, dtype: fp16}","repetitions":5,)"
    R"("device_ns":{"min":900,"median":1000,"max":1100,"spread":0.2},)"
    R"("host_call_ns":{"min":5900,"median":6000,"max":6100,"spread":0.03},)"
    R"("check":{"max_error":0.001,"passed":true}})";

std::string error_of(const std::string& text) {
  try {
    parse_runner_results(text, "r.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("runner results: run, kernel, calibration and error records", "[runner]") {
  const RunnerResults r = parse_runner_results(
      R"({"record":"run","runner_version":1,"device":{"name":"GPU X","sm_count":2}})"
      "\n\n" +
          kKernel + "\n" +
          R"({"record":"calibration","runner_version":1,"figure":"hbm_copy_bandwidth","value":4e12,"unit":"B/s","method":"copy"})"
          "\n"
          R"({"record":"error","runner_version":1,"plan_line":9,"operator":"x","implementation":"vector","message":"boom"})"
          "\n",
      "r.jsonl");
  CHECK(r.run_device_json == R"({"name":"GPU X","sm_count":2})");
  REQUIRE(r.kernels.size() == 1);
  const RunnerKernelRecord& k = r.kernels[0];
  CHECK(k.line == 3);
  CHECK(k.plan_line == 3);
  CHECK(k.op == "g");
  CHECK(k.implementation == "cublas");
  CHECK(k.device.median_ns == 1000);
  CHECK(k.host_call.min_ns == 5900);
  CHECK(k.checked);
  CHECK(k.max_error == 0.001);
  REQUIRE(r.calibration.size() == 1);
  CHECK(r.calibration[0].value == 4e12);
  REQUIRE(r.job_errors.size() == 1);
  CHECK(r.job_errors[0] == "r.jsonl:5: x vector: boom");
}

TEST_CASE("runner results: errors name file and line", "[runner]") {
  CHECK(error_of("{\"record\":\"run\",\"runner_version\":1}\n{oops\n").rfind("r.jsonl:2:", 0) == 0);
  CHECK(error_of("[1, 2]\n") == "r.jsonl:1:1: expected a JSON object");
  CHECK(error_of(R"({"record":"run"})") ==
        "r.jsonl:1:1: a record needs an integer 'runner_version'");
  CHECK(error_of(R"({"record":"run","runner_version":3})") ==
        "r.jsonl:1:1: record of runner version 3; this tilescope reads versions 1 to 1 (update "
        "tilescope)");
  CHECK(error_of(R"({"record":"trace","runner_version":1})") ==
        "r.jsonl:1:1: unknown record 'trace': expected run, kernel, calibration or error");
  std::string no_median = kKernel;
  no_median.replace(no_median.find("\"median\":1000"), 13, "\"median\":\"x\"");
  CHECK(error_of(no_median) == "r.jsonl:1:1: 'device_ns.median': expected a number");
  std::string no_spec = kKernel;
  no_spec.replace(no_spec.find("\"spec\""), 6, "\"spex\"");
  CHECK(error_of(no_spec) == "r.jsonl:1:1: a kernel record needs 'spec'");
  CHECK(
      error_of(
          R"({"record":"calibration","runner_version":1,"figure":"x","value":-1,"unit":"B/s"})") ==
      "r.jsonl:1:1: 'value' of x: expected a positive number");
}

namespace {

// qkv_proj (4096 x 2304 x 768) in the shape of the kernel template
// (samples/mappings/nvidia-wmma-kernel-template.yaml), with the loops given.
std::string kernel_mapping(const std::string& hbm, const std::string& l2, const std::string& rf) {
  return "version: 1\nkind: mapping\noperator: qkv_proj\ntree:\n  tile: HBM\n" + hbm +
         "  children:\n    - tile: L2\n      streamed: true\n      buffers: {C: bypass}\n" + l2 +
         "      children:\n        - tile: SMEM\n          double_buffer: true\n"
         "          buffers: {C: bypass}\n          children:\n            - tile: RF\n"
         "              double_buffer: true\n" +
         rf +
         "              children:\n                - op: TensorCore\n"
         "                  factors: {M: 16, N: 8, K: 16}\n";
}

}  // namespace

TEST_CASE("the CUDA GEMM's block tile is the tile below the spatial loop over the SMs",
          "[runner]") {
  const std::string samples = TILESCOPE_SAMPLES;
  const ArchitectureGraph graph = load_architecture(samples + "/arch/nvidia-h200.yaml");
  const Operator op = make_gemm("qkv_proj", 4096, 2304, 768, DataType::fp16);
  auto tiling_of = [&](const std::string& text, std::string& why) {
    const MappingProgram program = compile_mapping(parse_mapping(text, "m.yaml"), op, graph);
    return gpu_gemm_tiling(program, &why);
  };
  std::string why;
  // The grid of 32 x 18 blocks of 128 x 128, each walking K in 24 steps of 32, two stages.
  const auto tiling =
      tiling_of(kernel_mapping("", "      temporal: {K: 24}\n      spatial: {M: 32, N: 18}\n",
                               "              temporal: {M: 8, N: 16, K: 2}\n"),
                why);
  REQUIRE(tiling);
  CHECK(tiling->block_m == 128);
  CHECK(tiling->block_n == 128);
  CHECK(tiling->block_k == 32);
  CHECK(tiling->warp_m == 64);  // 4 warps of 64 x 64
  CHECK(tiling->warp_n == 64);
  CHECK(tiling->stages == 2);  // the SMEM tile is double-buffered

  // K split above the grid: partial sums the kernel does not make.
  CHECK_FALSE(tiling_of(kernel_mapping("  temporal: {K: 2}\n",
                                       "      temporal: {K: 12}\n      spatial: {M: 32, N: 18}\n",
                                       "              temporal: {M: 8, N: 16, K: 2}\n"),
                        why));
  CHECK(why == "temporal K=2 at HBM above the grid: the kernel does not split K into partial sums");
  // Blocks that take K in one step, with a loop over M above them: the model would keep each
  // block's B in shared memory for the next M.
  CHECK_FALSE(tiling_of(kernel_mapping("  temporal: {M: 2}\n", "      spatial: {M: 16, N: 18}\n",
                                       "              temporal: {M: 8, N: 16, K: 48}\n"),
                        why));
  CHECK(why.find("temporal M=2 at HBM above a grid whose blocks take K in one step") == 0);
  // The same walk over M with K in 24 steps is the kernel's: each step loads anew.
  CHECK(tiling_of(kernel_mapping("  temporal: {M: 2}\n",
                                 "      temporal: {K: 24}\n      spatial: {M: 16, N: 18}\n",
                                 "              temporal: {M: 8, N: 16, K: 2}\n"),
                  why));

  // The bundled mapping of the graph's own template splits K at HBM.
  const Mapping sample = load_mapping(samples + "/mappings/nvidia-h200-bert-base-qkv_proj.yaml");
  CHECK_FALSE(gpu_gemm_tiling(compile_mapping(sample, op, graph), &why));
  CHECK(why.find("temporal K=2 at HBM above the grid") == 0);

  // 192 x 192 needs 9 warps of 64 x 64 (220 registers a thread): 3 of them share one scheduler's
  // 16384 registers, which the H200 refused; no other warp tile of at least 4 warps fits either.
  CHECK_FALSE(
      tiling_of(kernel_mapping("", "      temporal: {K: 48}\n      spatial: {M: 22, N: 12}\n",
                               "              temporal: {M: 12/4, N: 24}\n"),
                why));
  CHECK(why.find("block 192x192: no warp tiling of 4 to 32 warps") == 0);
}
