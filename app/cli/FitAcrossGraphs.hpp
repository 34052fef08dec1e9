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
  std::string dtype = "fp32";  // of the rows of a table that does not say (tilescope's own)
  // A calibration applied to every graph first; the one written holds its entries and the fitted
  // ones (a factor re-fitted on top of its entry multiplies it).
  std::string base_calibration;
  bool leave_one_out = false;
  size_t sample = 0;  // samples per device and operator type the fit fits to (0: all)
  size_t rows = 0;    // rows per device and operator type read at all (0: all)
  int max_evaluations = 400;
  uint64_t budget = 0;
};

int run_fit_across_graphs(const FitAcrossGraphsArgs& args);

}  // namespace ts::cli
