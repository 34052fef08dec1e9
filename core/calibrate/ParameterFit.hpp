#pragma once
// Fits chosen graph parameters to measurements with NLopt, minimising the mean squared error in
// log space between predicted (device + launch, or device alone for `device` measurements) and
// measured latencies. Parameters are searched in log space within their bounds.
#include <functional>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "arch/ArchitectureGraph.hpp"
#include "calibrate/GraphParameter.hpp"
#include "measure/MeasurementRecord.hpp"

namespace ts {

// One measured point with everything needed to re-predict it under a changed graph: a concrete
// mapping (the measured one, or the mapper's choice on the initial graph, kept fixed in the fit).
struct FitSample {
  Operator op;
  Mapping mapping;  // concrete
  TimingScope scope = TimingScope::host_call;
  double measured_s = 0;
};

struct FitResult {
  ArchitectureGraph graph;     // with the fitted values
  std::vector<double> values;  // per parameter
  double initial_log_rmse = 0;
  double final_log_rmse = 0;
  int evaluations = 0;
};

// Predicted latency (s) of each sample on a graph, comparable with its measurement.
std::vector<double> predict_samples(const ArchitectureGraph& graph,
                                    const std::vector<FitSample>& samples);

FitResult fit_parameters(const ArchitectureGraph& graph, const std::vector<GraphParameter>& params,
                         const std::vector<FitSample>& samples, int max_evaluations = 400);

}  // namespace ts
