// The issue limit fitted to synthetic sweep records made from known parameters: the fit must
// recover them (IssueFit.hpp). The records are written as the runner writes them
// (collectors/cupti/Calibration.cu), from the model's own prediction on the H200 graph with the
// known figures, so that a perfect fit exists and the test asks only whether the fit finds it.
#include <fmt/format.h>

#include <catch2/catch.hpp>

#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureParameterPath.hpp"
#include "calibrate/GpuCalibration.hpp"
#include "calibrate/IssueFit.hpp"
#include "common/InputError.hpp"
#include "trace/RunnerResults.hpp"

using namespace ts;

namespace {

// The bundled H200 graph with an issue limit on its fp16 tensor-core operation.
ArchitectureGraph h200_with_issue(const IssueLimit& issue) {
  ArchitectureGraph g =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-h200.yaml");
  ArchNode& tc = g.nodes[g.find_node("TensorCore")->index()];
  for (ComputeCapability& c : tc.capabilities)
    if (c.dtype == DataType::fp16) c.issue = issue;
  return g;
}

struct SweepShape {
  int block_m, block_n, warp_m, warp_n;
};

// The runner's sweeps (Calibration.cu): 64 x 64 warp tiles at 1 to 8 warps, then warp tiles of
// 16 x 16 to 64 x 64.
const SweepShape kShapes[] = {{64, 64, 64, 64},   {128, 64, 64, 64},  {192, 64, 64, 64},
                              {128, 128, 64, 64}, {192, 128, 64, 64}, {256, 128, 64, 64},
                              {64, 64, 16, 16},   {64, 64, 32, 32},   {128, 128, 32, 32},
                              {96, 96, 48, 48},   {128, 128, 32, 64}, {128, 128, 64, 32},
                              {64, 128, 16, 64},  {128, 64, 64, 16}};

// One line per shape, as the runner writes them: 132 blocks, K = 4096 in steps of 32, 2 stages;
// the rate is the one the graph predicts.
std::string sweep_file(const ArchitectureGraph& truth) {
  std::string text =
      "{\"record\":\"run\",\"runner_version\":1,\"mode\":\"calibrate\",\"plan\":\"\",\"jobs\":0,"
      "\"timing\":\"t\",\"device\":{}}\n";
  for (const SweepShape& s : kShapes) {
    IssueSweepPoint p{.line = 0,
                      .block_m = s.block_m,
                      .block_n = s.block_n,
                      .block_k = 32,
                      .warp_m = s.warp_m,
                      .warp_n = s.warp_n,
                      .warps = (s.block_m / s.warp_m) * (s.block_n / s.warp_n),
                      .blocks = 132,
                      .k = 4096,
                      .stages = 2,
                      .device_s = 0};
    const double seconds = predict_samples(truth, {issue_fit_sample(p)}).at(0);
    const double flops = 2.0 * s.block_m * s.block_n * 132.0 * 4096.0;
    text += fmt::format(
        "{{\"record\":\"calibration\",\"runner_version\":1,\"figure\":\"wmma_kernel_sweep\","
        "\"value\":{},\"unit\":\"FLOP/s\",\"method\":\"m\",\"properties\":{{\"sweep\":\"warps\","
        "\"block_m\":{},\"block_n\":{},\"block_k\":32,\"warps\":{},\"warp_m\":{},\"warp_n\":{},"
        "\"stages\":2,\"blocks\":132,\"k\":4096}}}}\n",
        flops / seconds, s.block_m, s.block_n, p.warps, s.warp_m, s.warp_n);
  }
  // A K-step point, at a rate no issue figure could give: the fit must leave it out.
  text +=
      "{\"record\":\"calibration\",\"runner_version\":1,\"figure\":\"wmma_kernel_sweep\","
      "\"value\":1e9,\"unit\":\"FLOP/s\",\"method\":\"m\",\"properties\":{\"sweep\":\"k_step\","
      "\"block_m\":128,\"block_n\":128,\"block_k\":16,\"warps\":4,\"warp_m\":64,\"warp_n\":64,"
      "\"stages\":2,\"blocks\":132,\"k\":4096}}\n";
  return text;
}

}  // namespace

TEST_CASE("issue fit: recovers known parameters from synthetic sweep records",
          "[calibrate][issue]") {
  // Latency-bound at 64 x 64 warp tiles (8 warps: 8 / 60 steps a cycle against 4 / (20 + 8 x
  // (8/64 + 16/64)) = 0.174), issue-bound at 16 warps of 16 x 16 (4 / 32 = 0.125 < 16 / 60) and
  // of 32 x 32 (4 / 26 < 16 / 60): both kinds of point are in the sweep, so all three figures
  // are determined.
  const IssueLimit truth_issue{.instructions_per_step = 20,
                               .instructions_per_fragment = 8,
                               .issue_per_cycle = 4,
                               .latency_cycles = 60};
  const ArchitectureGraph truth = h200_with_issue(truth_issue);
  const RunnerResults results = parse_runner_results(sweep_file(truth), "calibration.jsonl");
  const std::vector<IssueSweepPoint> points = issue_sweep_points(results);
  REQUIRE(points.size() == std::size(kShapes));
  CHECK(points[0].line == 2);
  CHECK(points[0].warps == 1);

  // Start a factor of 1.5 to 2.5 off on each; issue_per_cycle is the hardware's, given.
  const ArchitectureGraph start = h200_with_issue({.instructions_per_step = 8,
                                                   .instructions_per_fragment = 4,
                                                   .issue_per_cycle = 4,
                                                   .latency_cycles = 120});
  const FitResult fit = fit_issue_limit(start, "TensorCore", points);
  CHECK(fit.initial_log_rmse > 0.2);
  CHECK(fit.final_log_rmse < 1e-3);
  CHECK(parameter_value(fit.graph, "node:TensorCore.issue_latency") == Approx(60).epsilon(0.01));
  CHECK(parameter_value(fit.graph, "node:TensorCore.instructions_per_step") ==
        Approx(20).epsilon(0.01));
  CHECK(parameter_value(fit.graph, "node:TensorCore.instructions_per_fragment") ==
        Approx(8).epsilon(0.01));
}

TEST_CASE("issue fit: calibrate --tensor-peak wmma-kernel puts the fitted issue limit in",
          "[calibrate][issue]") {
  const ArchitectureGraph truth = h200_with_issue({.instructions_per_step = 20,
                                                   .instructions_per_fragment = 8,
                                                   .issue_per_cycle = 4,
                                                   .latency_cycles = 60});
  // The tensor cores' peak as mma.sync reaches it: 2048 MACs a cycle on 132 SMs at 1.83 GHz.
  const std::string peaks =
      "{\"record\":\"calibration\",\"runner_version\":1,\"figure\":\"tensor_fp16_mma_sync_"
      "flops\",\"value\":989429760000000,\"unit\":\"FLOP/s\",\"method\":\"m\"}\n"
      "{\"record\":\"calibration\",\"runner_version\":1,\"figure\":\"tensor_fp16_wmma_"
      "kernel_flops\",\"value\":7e13,\"unit\":\"FLOP/s\",\"method\":\"m\"}\n";
  const RunnerResults results =
      parse_runner_results(sweep_file(truth) + peaks, "calibration.jsonl");
  const ArchitectureGraph base =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-h200.yaml");
  const GpuCalibration cal =
      calibrate_gpu_graph(results, base, "nvidia-h200.yaml", TensorPeak::wmma_kernel);
  const ComputeCapability* fp16 = cal.graph.node(*cal.graph.find_node("TensorCore"))
                                      .capability(OpClass::matmul, DataType::fp16);
  REQUIRE(fp16->issue);
  CHECK(fp16->ops_per_cycle == Approx(2048));  // mma.sync's peak, not the one kernel rate
  CHECK(fp16->issue->latency_cycles == Approx(60).epsilon(0.01));
  CHECK(fp16->issue->instructions_per_step == Approx(20).epsilon(0.01));
  CHECK(fp16->issue->instructions_per_fragment == Approx(8).epsilon(0.01));
  // Without --tensor-peak wmma-kernel the sweeps are not used.
  const GpuCalibration library = calibrate_gpu_graph(results, base, "nvidia-h200.yaml");
  CHECK_FALSE(library.graph.node(*library.graph.find_node("TensorCore"))
                  .capability(OpClass::matmul, DataType::fp16)
                  ->issue);
}

TEST_CASE("issue fit: a sweep record without its warps names its line", "[calibrate][issue]") {
  const std::string text =
      "{\"record\":\"calibration\",\"runner_version\":1,\"figure\":\"wmma_kernel_sweep\","
      "\"value\":1e12,\"unit\":\"FLOP/s\",\"properties\":{\"block_m\":64,\"block_n\":64,"
      "\"block_k\":32,\"warp_m\":64,\"warp_n\":64,\"blocks\":132,\"k\":4096,\"stages\":2}}\n";
  const RunnerResults results = parse_runner_results(text, "calibration.jsonl");
  try {
    issue_sweep_points(results);
    FAIL("a record without warps was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("calibration.jsonl:1") != std::string::npos);
    CHECK(std::string(e.what()).find("`warps`") != std::string::npos);
  }
}

TEST_CASE("issue fit: the parameter paths name a node without an issue block",
          "[calibrate][issue]") {
  const ArchitectureGraph plain =
      load_architecture(std::string(TILESCOPE_SAMPLES) + "/arch/nvidia-h200.yaml");
  CHECK_THROWS_WITH(parse_parameter_path("node:TensorCore.issue_latency", plain, "--param"),
                    Catch::Contains("has no operation with an `issue:` block"));
  ArchitectureGraph g = h200_with_issue({.instructions_per_step = 8,
                                         .instructions_per_fragment = 4,
                                         .issue_per_cycle = 4,
                                         .latency_cycles = 64});
  set_parameter_value(g, "node:TensorCore.issue_latency", 99);
  CHECK(g.node(*g.find_node("TensorCore"))
            .capability(OpClass::matmul, DataType::fp16)
            ->issue->latency_cycles == 99);
  CHECK(format_parameter("node:TensorCore.issue_latency", 99) == "99 cycles");
}
