#pragma once
// One job of a measured suite, host or GPU: an operator, the implementation that runs it, the
// mapping its tiling follows (for kernels whose tiling is a mapping) and the prediction its
// measurement will be compared with. The host planner (HostSuitePlan) and the GPU planner
// (MeasurementPlan) both produce these; the GPU one adds the fields of its runner's plan line.
#include <optional>
#include <string>

#include "analysis/MappingProgram.hpp"
#include "arch/ArchitectureGraph.hpp"
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

// The fields every mapped kernel's entry has (operator, key, implementation, dtype, mapping
// record, the prediction of that mapping), filled in `entry`; throws InvalidMapping when the
// mapping does not fit the graph.
void fill_mapped_entry(SuiteEntry& entry, const Operator& op, const OperatorKey& key,
                       std::string implementation, std::string dtype, const MappingProgram& program,
                       const std::string& mapping_name, const ArchitectureGraph& graph);

}  // namespace ts
