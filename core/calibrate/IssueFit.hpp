#pragma once
// The issue limit of a warp-fed tensor-core unit (ComputeCapability::issue) fitted to the
// runner's warp-count and warp-tile sweeps of tilescope's own WMMA kernel (calibration records
// `wmma_kernel_sweep`, docs/cupti.md), and only to them, never to results files. Each sweep
// point is one wave of blocks, one per SM, of a compute-bound GEMM; it is predicted through the
// whole model (ParameterFit) with the mapping the kernel runs, so that what the fit leaves to the
// issue figures is what the rest of the model does not already say.
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "calibrate/ParameterFit.hpp"
#include "trace/RunnerResults.hpp"

namespace ts {

// One sweep record: what the kernel ran and how long it took.
struct IssueSweepPoint {
  int line = 0;  // in the calibration file, for messages
  int64_t block_m = 0, block_n = 0, block_k = 0, warp_m = 0, warp_n = 0;
  int64_t warps = 0;   // per block, one block per SM
  int64_t blocks = 0;  // along N: the GEMM is block_m x (block_n x blocks) x k
  int64_t k = 0;
  int stages = 2;
  double device_s = 0;  // the GEMM's FLOPs over the record's FLOP/s
};

// The warp-count and warp-tile sweep records of a calibration file (those with `sweep: k_step`
// are left out). Throws InputError at a record whose properties lack a figure of the list above
// or whose unit is not FLOP/s.
std::vector<IssueSweepPoint> issue_sweep_points(const RunnerResults& results);

// A sweep point as a fit sample on a graph with the NVIDIA profiles' nodes (HBM, L2, SMEM, RF,
// TensorCore): the kernel's mapping (samples/mappings/nvidia-wmma-kernel-template.yaml) with
// the point's block, K step, stages and `warps:`.
FitSample issue_fit_sample(const IssueSweepPoint& point);

// Fits node:NODE.issue_latency, .instructions_per_step and .instructions_per_fragment (each from
// a sixteenth to sixteen times its value in `graph`; issue_per_cycle is the hardware's, held) to
// the points, from three starts (below). The graph's node must have an operation with an
// `issue:` block. initial_log_rmse is the graph's as given.
FitResult fit_issue_limit(const ArchitectureGraph& graph, const std::string& node,
                          const std::vector<IssueSweepPoint>& points);

}  // namespace ts
