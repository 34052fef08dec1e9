#include "calibrate/ParameterFit.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "analysis/MappingWriter.hpp"
#include "analysis/Prediction.hpp"
#include "analysis/TileAnalysis.hpp"
#include "calibrate/UnitCubeDescent.hpp"
#include "common/InputError.hpp"
#include "measure/ComparedTime.hpp"
#include "tile/MappingLoader.hpp"

namespace ts {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

SamplePrediction predict_one(const ArchitectureGraph& graph, const FitSample& sample) {
  SamplePrediction p;
  p.launch_s = graph.launch_overhead_for(to_string(sample.op.type));
  p.device_s = kInfinity;
  p.compared_s = kInfinity;
  try {
    // Recompiled per graph: a program caches values of the graph (path latencies, capability
    // pointers) that the parameters change.
    const MappingProgram program = compile_mapping(sample.mapping, sample.op, graph, false);
    AnalysisScratch eval;
    prepare(program, eval);
    const double device_s = evaluate(program, eval);
    if (!eval.valid() || !std::isfinite(device_s)) {
      p.bound_by = "invalid";
      return p;
    }
    p.valid = true;
    p.device_s = device_s;
    p.compared_s = compared_time(device_s, p.launch_s, sample.scope);
    // The same rule as make_prediction, without building the rest of a Prediction.
    p.bound_by = p.launch_s > device_s ? "launch" : bound_text(graph, eval.bound);
  } catch (const InputError&) {
    p.bound_by = "invalid";
  }
  return p;
}

double value_at(const GraphParameter& p, double u) { return log_scale_value(p.lower, p.upper, u); }
double coordinate_of(const GraphParameter& p, double value) {
  return log_scale_coordinate(p.lower, p.upper, value);
}

double mape_of(const std::vector<double>& predicted, const std::vector<FitSample>& samples) {
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < samples.size(); ++i)
    if (std::isfinite(predicted[i]) && predicted[i] > 0 && samples[i].measured_s > 0) {
      sum += std::abs(predicted[i] - samples[i].measured_s) / samples[i].measured_s;
      ++n;
    }
  return n ? sum / static_cast<double>(n) : 0;
}

}  // namespace

double log_scale_value(double lower, double upper, double u) {
  return std::exp(std::log(lower) + u * (std::log(upper) - std::log(lower)));
}

double log_scale_coordinate(double lower, double upper, double value) {
  if (!(value > 0)) value = std::sqrt(lower * upper);  // no current value: the middle
  value = std::clamp(value, lower, upper);
  return (std::log(value) - std::log(lower)) / (std::log(upper) - std::log(lower));
}

std::vector<SamplePrediction> predict_samples_detailed(const ArchitectureGraph& graph,
                                                       const std::vector<FitSample>& samples) {
  std::vector<SamplePrediction> out(samples.size());
  // Independent per sample; each writes its own slot, so the result does not depend on threads.
  tbb::parallel_for(size_t{0}, samples.size(),
                    [&](size_t i) { out[i] = predict_one(graph, samples[i]); });
  return out;
}

std::vector<double> predict_samples(const ArchitectureGraph& graph,
                                    const std::vector<FitSample>& samples) {
  std::vector<double> out;
  out.reserve(samples.size());
  for (const SamplePrediction& p : predict_samples_detailed(graph, samples))
    out.push_back(p.compared_s);
  return out;
}

double mean_squared_log_error(const std::vector<double>& predicted,
                              const std::vector<FitSample>& samples) {
  if (samples.empty()) return 0;
  double sum = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!(predicted[i] > 0) || !std::isfinite(predicted[i]) || !(samples[i].measured_s > 0)) {
      sum += kInvalidSamplePenalty;
      continue;
    }
    const double e = std::log(predicted[i]) - std::log(samples[i].measured_s);
    sum += e * e;
  }
  return sum / static_cast<double>(samples.size());
}

FitResult fit_parameters(const ArchitectureGraph& graph, const std::vector<GraphParameter>& params,
                         const std::vector<FitSample>& samples, int max_evaluations,
                         const FitProgress& progress) {
  // A fit over a time that is not a finite positive number (1e308 us read as inf, a negative
  // time) gives a NaN objective and a graph fitted to nothing: refused here, whatever read it.
  for (const FitSample& sample : samples)
    if (!std::isfinite(sample.measured_s) || sample.measured_s <= 0)
      throw InputError({"measurements", 0, 0},
                       fmt::format("operator '{}' was measured at {:g} s; expected a finite time "
                                   "above 0 to fit to",
                                   sample.op.name, sample.measured_s));
  FitResult result{graph, {}, 0, 0, 0, 0, 0};
  for (const GraphParameter& p : params)
    result.values.push_back(parameter_value(graph, p.resolved));
  const std::vector<double> initial_predictions = predict_samples(graph, samples);
  result.initial_log_rmse = std::sqrt(mean_squared_log_error(initial_predictions, samples));
  result.initial_mape = mape_of(initial_predictions, samples);
  result.final_log_rmse = result.initial_log_rmse;
  result.final_mape = result.initial_mape;
  if (params.empty() || samples.empty()) return result;

  const size_t n = params.size();
  ArchitectureGraph trial = graph;
  double best_error = kInfinity;
  std::vector<double> best_u(n);
  int evaluations = 0;
  auto objective = [&](const std::vector<double>& u) {
    for (size_t i = 0; i < n; ++i)
      set_parameter_value(trial, params[i].resolved, value_at(params[i], u[i]));
    const double error = mean_squared_log_error(predict_samples(trial, samples), samples);
    ++evaluations;
    // The optimiser's own answer is not trusted alone: a stop on a round-off limit can return a
    // point worse than one it has seen, so the best point evaluated is what is kept.
    if (error < best_error) {
      best_error = error;
      best_u = u;
    }
    if (progress) progress(evaluations, std::sqrt(best_error));
    return error;
  };
  // BOBYQA: derivative-free, bound-constrained, few evaluations per dimension; the objective is
  // smooth almost everywhere (it kinks where the bound of a sample changes). Deterministic.
  std::vector<double> u(n);
  for (size_t i = 0; i < n; ++i) u[i] = coordinate_of(params[i], result.values[i]);
  best_u = u;
  descend_on_unit_cube(objective, u,
                       {.max_evaluations = std::max(max_evaluations, 2 * static_cast<int>(n) + 2),
                        .xtol_abs = 1e-7,  // of the unit range: 1e-7 of a 16x range is 3e-7
                        .ftol_abs = 1e-14,
                        .initial_step = 0.1});

  result.graph = graph;
  for (size_t i = 0; i < n; ++i) {
    result.values[i] = value_at(params[i], best_u[i]);
    set_parameter_value(result.graph, params[i].resolved, result.values[i]);
  }
  const std::vector<double> final_predictions = predict_samples(result.graph, samples);
  result.final_log_rmse = std::sqrt(mean_squared_log_error(final_predictions, samples));
  result.final_mape = mape_of(final_predictions, samples);
  result.evaluations = evaluations;
  return result;
}

FitResult fit_parameters(const ArchitectureGraph& graph, const std::vector<GraphParameter>& params,
                         const std::vector<FitSample>& samples, int max_evaluations) {
  return fit_parameters(graph, params, samples, max_evaluations, FitProgress{});
}

Mapping concrete_mapping(const MappingProgram& program, const std::string& name) {
  return parse_mapping(mapping_yaml(program, name, ""), name);
}

}  // namespace ts
