#pragma once
// `tilescope fit --graph DEVICE=ARCH ...`: one calibration for several graphs (a GPU family),
// fitted to tables of measured kernels with a device column, with leave-one-graph-out
// cross-validation (docs/gpus.md).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ts::cli {

struct FitAcrossGraphsArgs {
  std::vector<std::string> measurements;
  std::vector<std::string> graphs;  // DEVICE=ARCH
  std::vector<std::string> params;
  std::string out;  // the calibration file; empty: none written
  std::string timing_scope = "host_call";
  bool leave_one_out = false;
  size_t sample = 0;
  int max_evaluations = 400;
  uint64_t budget = 0;
};

int run_fit_across_graphs(const FitAcrossGraphsArgs& args);

}  // namespace ts::cli
