#pragma once
// An NVIDIA architecture graph from the CUPTI runner's calibration records: the base graph
// (datasheet figures, samples/arch/nvidia-*.yaml) with the measured figures put in, and comment
// lines that say which figures were measured, how, and which stayed from the base.
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "trace/RunnerResults.hpp"

namespace ts {

// Which measured tensor-core rate the graph gets: the library's (cuBLAS on Hopper issues wgmma),
// warp-level mma.sync's (what tilescope's own WMMA kernels issue, slower), or the rate
// tilescope's WMMA GEMM kernel itself reaches on a large GEMM (its inner loop's instructions
// besides the mma bound it well below mma.sync's peak).
enum class TensorPeak { wgmma, mma_sync, wmma_kernel };

struct GpuCalibration {
  ArchitectureGraph graph;
  std::vector<std::string> comment_lines;  // for the written file's header
  std::vector<std::string> measured;       // "figure: value (method)" per figure put in
};

// The base must have the nodes of the NVIDIA profiles: HBM, L2, SMEM, RF, TensorCore,
// CUDACores. Throws InputError at the results file when it holds no calibration record, or at a
// record whose unit is not the one expected for its figure.
GpuCalibration calibrate_gpu_graph(const RunnerResults& results, ArchitectureGraph base,
                                   const std::string& base_file,
                                   TensorPeak peak = TensorPeak::wgmma);

}  // namespace ts
