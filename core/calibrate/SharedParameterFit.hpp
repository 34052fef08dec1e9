#pragma once
// One set of parameters fitted to the measurements of several graphs at once (`tilescope fit
// --graph DEVICE=ARCH ...`): the calibration of a family of chips, expressed relative to each
// chip's specification so that it carries to a chip that was never measured. A parameter that is
// a rate, a bandwidth or an efficiency is a factor on each graph's own value (a fraction of its
// peak or of its datasheet bandwidth); one that is a time or a number of cycles (a launch
// overhead, a kernel floor, a latency) is one value shared by all graphs as it is.
#include <cstddef>
#include <string>
#include <vector>

#include "calibrate/ParameterFit.hpp"

namespace ts {

// The measurements of one graph: the chip as its specification describes it (no fitted values),
// each sample with the group the objective weighs as one (its operator class).
struct GraphSamples {
  std::string label;  // the device as the measurements name it ("Tesla P4")
  ArchitectureGraph graph;
  std::vector<FitSample> samples;
  std::vector<std::string> groups;  // per sample
};

struct SharedParameter {
  std::string path;      // as written, without bounds
  bool relative = true;  // a factor on each graph's own value; false: one value for all
  double lower = 0;      // of the factor, or of the value in the parameter's unit (SI)
  double upper = 0;
  double initial = 0;  // 1 for a factor; the first graph's value for a shared one
  ParameterField field = ParameterField::launch_overhead;
};

// Whether a field is shared as it is (times and cycles) rather than as a factor.
bool is_absolute_field(ParameterField field);

// `PATH` or `PATH=LOW:HIGH`: the bounds of the factor for a relative parameter (`0.3:1.2`), of the
// value for an absolute one (`5us:80us`). Without bounds a factor ranges over 0.1..2 (an
// efficiency up to 1), a value over a quarter to four times the first graph's. The path must name
// something in every graph; InputError at `input` otherwise.
SharedParameter parse_shared_parameter(const std::string& text,
                                       const std::vector<GraphSamples>& graphs,
                                       const std::string& input = "--param");

// The graph with the parameters at these values (factors applied to its own values).
ArchitectureGraph with_shared_values(const ArchitectureGraph& graph,
                                     const std::vector<SharedParameter>& params,
                                     const std::vector<double>& values);

struct SharedFitResult {
  std::vector<double> values;  // per parameter: the factor, or the shared value
  double initial_error = 0;    // the objective (below) at the initial values, as a log-RMSE
  double final_error = 0;
  int evaluations = 0;
};

// Minimises the mean over (graph, group) cells of each cell's mean squared log error, so that
// every chip and every operator class weighs the same whatever its number of samples. Only the
// graphs whose indices `use` lists take part (empty: all): leave-one-graph-out fits the others.
// `starts`: points to start from besides the parameters' initial values (one descent each, the
// best kept): with a power limit and an efficiency that trade off, one descent can stop in the
// corner where every chip is power-bound; another start leaves it.
SharedFitResult fit_shared_parameters(const std::vector<GraphSamples>& graphs,
                                      const std::vector<SharedParameter>& params,
                                      int max_evaluations, const FitProgress& progress = {},
                                      const std::vector<size_t>& use = {},
                                      const std::vector<std::vector<double>>& starts = {});

// At most `per_group` samples of each graph's groups, taken evenly through them in their order
// (0: all): what a fit over 170,000 kernels fits to in minutes, while every sample is still
// predicted to judge it.
std::vector<GraphSamples> fit_subset(const std::vector<GraphSamples>& graphs, size_t per_group);

// The objective above as a log-RMSE, for the given values.
double shared_log_rmse(const std::vector<GraphSamples>& graphs,
                       const std::vector<SharedParameter>& params,
                       const std::vector<double>& values, const std::vector<size_t>& use = {});

}  // namespace ts
