#pragma once
// Fits chosen graph parameters to measurements with NLopt, minimising the mean squared error in
// log space between predicted (device + launch, or device alone for `device` measurements) and
// measured latencies. Parameters are searched in log space within their bounds.
#include <functional>
#include <string>
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
  double initial_mape = 0;  // a fraction, over the valid samples
  double final_mape = 0;
};

// Predicted latency (s) of each sample on a graph, comparable with its measurement.
std::vector<double> predict_samples(const ArchitectureGraph& graph,
                                    const std::vector<FitSample>& samples);

FitResult fit_parameters(const ArchitectureGraph& graph, const std::vector<GraphParameter>& params,
                         const std::vector<FitSample>& samples, int max_evaluations = 400);

// ---- additions ---------------------------------------------------------------------------

// A sample's prediction in full: what `correlate` shows for it.
struct SamplePrediction {
  double device_s = 0;
  double launch_s = 0;
  double compared_s = 0;  // device + launch for host_call, device alone for device; inf: invalid
  std::string bound_by;   // as `predict` says it: compute:<node>, edge:<from>-><to> or launch
  bool valid = false;     // false when the mapping no longer fits the graph
};
std::vector<SamplePrediction> predict_samples_detailed(const ArchitectureGraph& graph,
                                                       const std::vector<FitSample>& samples);

// The fit's objective: mean over samples of (ln predicted - ln measured)^2, where a sample whose
// mapping is invalid on the graph counts kInvalidSamplePenalty.
constexpr double kInvalidSamplePenalty = 47.7;  // (ln 1000)^2: as bad as a factor of 1000
double mean_squared_log_error(const std::vector<double>& predicted,
                              const std::vector<FitSample>& samples);

// Called after each evaluation of the objective with the count so far and the best log-RMSE.
using FitProgress = std::function<void(int evaluations, double best_log_rmse)>;
FitResult fit_parameters(const ArchitectureGraph& graph, const std::vector<GraphParameter>& params,
                         const std::vector<FitSample>& samples, int max_evaluations,
                         const FitProgress& progress);

// A parameter at a point of the unit cube the optimiser searches: coordinate 0 is the lower
// bound, 1 the upper, log-linear in between, so that the optimiser's steps are relative changes
// and every parameter spans the same range whatever its unit. And back (clamped to the bounds;
// a value that is not positive gives the middle).
double log_scale_value(double lower, double upper, double u);
double log_scale_coordinate(double lower, double upper, double value);

// A resolved program as a concrete mapping tree (through its written form), for a FitSample
// whose mapping the mapper chose.
Mapping concrete_mapping(const MappingProgram& program, const std::string& name);

}  // namespace ts
