#pragma once
// One job of a measured suite, host or GPU: an operator, the implementation that runs it, the
// mapping its tiling follows (for kernels whose tiling is a mapping) and the prediction its
// measurement will be compared with. The host planner (HostSuitePlan) and the GPU planner
// (MeasurementPlan) both produce these; the GPU one adds the fields of its runner's plan line.
#include <optional>
#include <string>

#include "analysis/MappingProgram.hpp"
#include "measure/MeasurementRecord.hpp"
#include "workload/Operator.hpp"

namespace ts {

struct SuiteEntry {
  Operator op;
  OperatorKey key;
  std::string
      implementation;  // host: tiled, openblas, vector; GPU: tilescope, cublas, cublaslt, vector
  std::string dtype;   // fp16, bf16, fp32
  std::optional<MappingRecord> mapping;   // kernels whose tiling is a mapping; none: a black box
  std::optional<MappingProgram> program;  // host tiled kernel: the concrete program it runs
  PredictionRecord prediction;
};

}  // namespace ts
