#pragma once
// An NVIDIA architecture graph from the CUPTI runner's calibration records: the base graph
// (datasheet figures, samples/arch/nvidia-*.yaml) with the measured figures put in, and comment
// lines that say which figures were measured, how, and which stayed from the base.
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "measure/RunnerResults.hpp"

namespace ts {

// Which measured tensor-core rate the graph gets: the library's (cuBLAS on Hopper issues wgmma)
// or warp-level mma.sync's, which tilescope's own WMMA kernels use and which runs slower.
enum class TensorPeak { wgmma, mma_sync };

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
