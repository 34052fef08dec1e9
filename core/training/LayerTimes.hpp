#pragma once
// How long a layer's operators take on one device, from the tile model: each operator of
// `layer_forward_operators` mapped and predicted on the device's architecture graph. Device time
// only: in training, kernels are queued ahead of the GPU, so their launch cost overlaps the
// kernel before.
#include <memory>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "measure/MeasuredCost.hpp"
#include "training/TransformerModel.hpp"
#include "workload/Operator.hpp"

namespace ts {

struct OperatorTime {
  std::string name;
  double seconds = 0;
  double matmul_flops = 0;
  std::string bound_by;
  // False when the tile model's mapper search ran out of budget while still improving.
  bool search_converged = true;
  // Set by layer_forward_time (LayerOperators.hpp says which operators): selective
  // recomputation recomputes it; sequence parallelism splits its time over the tp ranks.
  bool recomputed_selectively = false;
  bool split_by_sequence_parallelism = false;
};

struct LayerTime {
  std::vector<OperatorTime> operators;
  double forward_s = 0;
  double matmul_flops = 0;
};

// Measured operator times from a results database: each operator identity's fastest
// measurement over every run in it (measure/MeasuredCost.hpp says which and why).
struct MeasuredTimes {
  std::string database;
  FastestMeasurements fastest;
};

// Where operator times come from: the tile model on the device graph (the default); a roofline:
// the longer of the operator's work at `efficiency` times the device's peak for its class and
// its tensors' bytes at the device's HBM bandwidth; or measurements, falling back to the tile
// model for operators the database has not measured.
struct OperatorTimeSource {
  enum class Kind { tile_model, roofline, measured } kind = Kind::tile_model;
  double efficiency = 1;
  std::shared_ptr<const MeasuredTimes> measured;
};

// "tile", "roofline:EFF" (EFF in (0, 1]) or "db:FILE" (a results database); throws InputError
// at `--operator-times` otherwise, or the store's error for a database it cannot open.
OperatorTimeSource parse_operator_time_source(const std::string& text);

LayerTime layer_forward_time(const TransformerModel& model, int64_t micro_batch, int64_t tp,
                             const ArchitectureGraph& device, bool decoder = false,
                             const OperatorTimeSource& source = {});

// The device's peak operations per second for a class and type (the largest over its compute
// nodes; matmul counts multiply-accumulates), and its HBM bandwidth (the largest combined port).
double peak_ops_per_s(const ArchitectureGraph& device, OpClass cls, DataType dtype);
// The same peak at the datasheet's rate (ComputeCapability::datasheet_ops_per_cycle where a fit
// derated the unit): what MFU and HFU divide by.
double datasheet_peak_ops_per_s(const ArchitectureGraph& device, OpClass cls, DataType dtype);
double hbm_bytes_per_s(const ArchitectureGraph& device);

// One operator's time by the source (seconds) and what bounds it.
OperatorTime operator_time(const Operator& op, const ArchitectureGraph& device,
                           const OperatorTimeSource& source);

}  // namespace ts
