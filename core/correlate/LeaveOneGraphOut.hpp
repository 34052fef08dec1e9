#pragma once
// Leave-one-graph-out cross-validation of a shared calibration: each device predicted from the
// parameters fitted on all the others, as a chip nobody measured would be, per operator type and
// class, beside the datasheet roofline of the same specification.
#include <string>
#include <vector>

#include "correlate/DeviceMeasurements.hpp"

namespace ts {

// One device and one group (an operator type, or a class: gemm, elementwise, softmax, layernorm).
struct HoldOutCell {
  std::string device;
  std::string group;
  bool is_class = false;  // a class (several types pooled) rather than one operator type
  size_t count = 0;
  double mape = 0;                  // leave-one-out: this device predicted from the others' fit
  double training_mape = 0;         // the fit on every device, this device included
  double roofline_mape = 0;         // max(work / peak, bytes / bandwidth) of the specification
  double roofline_launch_mape = 0;  // the same plus the launch overhead the held-out fit gives
  // Rows whose measured kernel name says its tile (cuBLAS: ..._128x64_...) and how many of them
  // the mapper took the same tile for.
  size_t kernels_named = 0;
  size_t kernels_agreeing = 0;
};

struct LeaveOneGraphOut {
  SharedFitResult all;                    // fitted on every device
  std::vector<SharedFitResult> held_out;  // per device: fitted on the others
  std::vector<HoldOutCell> cells;         // per device: its types, then its classes
};

using GraphFoldProgress =
    std::function<void(size_t fold, size_t folds, int evaluations, double error)>;

// One fit on every device, then one per device on the others, each to at most `fit_per_type`
// samples of each device and operator type (fit_subset; 0: all); every sample is then predicted
// to judge it. Needs at least two devices.
LeaveOneGraphOut leave_one_graph_out(const DeviceMeasurements& data,
                                     const std::vector<SharedParameter>& params,
                                     int max_evaluations, size_t fit_per_type = 0,
                                     const GraphFoldProgress& progress = {});

// Whether a measured kernel's name and a kernel template's name give the same tile: the first
// `<cols>x<rows>` of each and whether either is `sliced`. False when the measured name gives
// none (the caller counts only those that do: `kernel_tile` non-empty).
std::string kernel_tile(const std::string& name);

}  // namespace ts

namespace ts {

// The cross-validation as a table, one line per device and group: rows, leave-one-out MAPE,
// training MAPE, the roofline's MAPE with and without the launch, and how often the mapper took
// the measured kernel's tile; then the fitted values of every fold.
std::string leave_one_graph_out_text(const LeaveOneGraphOut& result,
                                     const std::vector<SharedParameter>& params,
                                     const std::vector<std::string>& devices);

}  // namespace ts
