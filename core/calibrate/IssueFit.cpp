#include "calibrate/IssueFit.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "calibrate/GraphParameter.hpp"
#include "common/InputError.hpp"
#include "tile/MappingLoader.hpp"
#include "workload/OperatorBuilders.hpp"

namespace ts {

std::vector<IssueSweepPoint> issue_sweep_points(const RunnerResults& results) {
  std::vector<IssueSweepPoint> points;
  for (const RunnerCalibrationRecord& c : results.calibration) {
    if (c.figure != "wmma_kernel_sweep") continue;
    const SourceLocation where{results.file, c.line, 0};
    if (c.unit != "FLOP/s")
      throw InputError(where, fmt::format("wmma_kernel_sweep in '{}': expected FLOP/s", c.unit));
    const auto p = nlohmann::json::parse(c.properties_json.empty() ? "{}" : c.properties_json);
    // The K-step sweep varies what the issue term does not describe (a step's barrier and
    // load); it is kept for a K-step term, not fitted here.
    if (p.value("sweep", std::string()) == "k_step") continue;
    auto count = [&](const char* key) {
      if (!p.contains(key) || !p[key].is_number_integer() || p[key].get<int64_t>() <= 0)
        throw InputError(where, fmt::format("wmma_kernel_sweep: expected a positive integer "
                                            "`{}` in its properties (block_m, block_n, block_k, "
                                            "warp_m, warp_n, warps, blocks, k, stages)",
                                            key));
      return p[key].get<int64_t>();
    };
    IssueSweepPoint point;
    point.line = c.line;
    point.block_m = count("block_m");
    point.block_n = count("block_n");
    point.block_k = count("block_k");
    point.warp_m = count("warp_m");
    point.warp_n = count("warp_n");
    point.warps = count("warps");
    point.blocks = count("blocks");
    point.k = count("k");
    point.stages = static_cast<int>(count("stages"));
    if (point.block_m % point.warp_m || point.block_n % point.warp_n ||
        point.warps != (point.block_m / point.warp_m) * (point.block_n / point.warp_n) ||
        point.block_m % 16 || point.block_n % 16 || point.block_k % 16 || point.k % point.block_k)
      throw InputError(where,
                       "wmma_kernel_sweep: expected warp tiles that divide the block into `warps` "
                       "warps, blocks of multiples of 16, and K a multiple of block_k");
    const double flops = 2.0 * static_cast<double>(point.block_m) *
                         static_cast<double>(point.block_n * point.blocks) *
                         static_cast<double>(point.k);
    point.device_s = flops / c.value;
    points.push_back(point);
  }
  return points;
}

FitSample issue_fit_sample(const IssueSweepPoint& p) {
  FitSample s;
  s.op = make_gemm(fmt::format("wmma_sweep_{}x{}x{}_w{}x{}", p.block_m, p.block_n, p.block_k,
                               p.warp_m, p.warp_n),
                   p.block_m, p.block_n * p.blocks, p.k);
  // The WMMA kernel's mapping (nvidia-wmma-kernel-template.yaml): one wave of blocks over the
  // SMs, each walking K in steps of block_k through shared memory and registers in 16x8x16 mmas.
  // The grid is walked two blocks at a time at HBM, so that L2 holds two blocks' operands, not
  // the whole B (4096 x 16896 fp16 is 132 MiB); the SMs take the parts as they free up
  // (`dispatch: dynamic` on the NVIDIA graphs' SMEM), so this is still one wave.
  const int64_t beside = p.blocks % 2 == 0 ? 2 : p.blocks;
  const std::string text = fmt::format(
      R"(version: 1
kind: mapping
name: {}
tree:
  tile: HBM
  temporal: {{N: {}}}
  children:
    - tile: L2
      streamed: true
      buffers: {{C: bypass}}
      temporal: {{K: {}}}
      spatial: {{N: {}}}
      children:
        - tile: SMEM
          double_buffer: {}
          buffers: {{C: bypass}}
          children:
            - tile: RF
              double_buffer: true
              temporal: {{M: {}, N: {}, K: {}}}
              children:
                - op: TensorCore
                  factors: {{M: 16, N: 8, K: 16}}
                  warps: {{M: {}, N: {}}}
)",
      s.op.name, p.blocks / beside, p.k / p.block_k, beside, p.stages == 2 ? "true" : "false",
      p.block_m / 16, p.block_n / 8, p.block_k / 16, p.block_m / p.warp_m, p.block_n / p.warp_n);
  s.mapping = parse_mapping(text, s.op.name + ".yaml");
  s.scope = TimingScope::device;
  s.measured_s = p.device_s;
  return s;
}

FitResult fit_issue_limit(const ArchitectureGraph& graph, const std::string& node,
                          const std::vector<IssueSweepPoint>& points) {
  std::vector<FitSample> samples;
  for (const IssueSweepPoint& p : points) samples.push_back(issue_fit_sample(p));
  std::vector<GraphParameter> params;
  for (const char* field :
       {"issue_latency", "instructions_per_step", "instructions_per_fragment"}) {
    const std::string path = fmt::format("node:{}.{}", node, field);
    const double value = parameter_value(graph, path);
    params.push_back(parse_graph_parameter(fmt::format("{}={}:{}", path, value / 16, value * 16),
                                           graph, "calibration sweep"));
  }
  // The rate is a minimum of three bounds, so the error does not change with the instruction
  // figures while no point is issue-bound: a search that starts where none is stays there. It
  // starts again with the instructions 4x and 1/4x the graph's (within the same bounds), and
  // the best of the three fits is kept.
  FitResult best;
  bool first = true;
  for (const double scale : {1.0, 4.0, 0.25}) {
    ArchitectureGraph start = graph;
    for (size_t i = 1; i < params.size(); ++i)
      set_parameter_value(start, params[i].resolved,
                          parameter_value(graph, params[i].resolved) * scale);
    FitResult fit = fit_parameters(start, params, samples, 2000);
    if (first || fit.final_log_rmse < best.final_log_rmse) {
      const FitResult given = first ? fit : best;  // its initial figures are the graph's
      const int evaluations = fit.evaluations + (first ? 0 : best.evaluations);
      best = std::move(fit);
      best.initial_log_rmse = given.initial_log_rmse;
      best.initial_mape = given.initial_mape;
      best.evaluations = evaluations;
    } else {
      best.evaluations += fit.evaluations;
    }
    first = false;
  }
  return best;
}

}  // namespace ts
