#include "calibrate/SharedParameterFit.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "calibrate/UnitCubeDescent.hpp"
#include "common/InputError.hpp"

namespace ts {
namespace {

[[noreturn]] void fail_fit(const std::string& input, const std::string& message) {
  throw InputError(SourceLocation{input, 0, 0}, message);
}

std::vector<size_t> graphs_used(const std::vector<GraphSamples>& graphs,
                                const std::vector<size_t>& use) {
  if (!use.empty()) return use;
  std::vector<size_t> all(graphs.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  return all;
}

// Mean over the (group) cells of one graph of each cell's mean squared log error, with the sum
// and the count of cells returned so that graphs can be pooled cell by cell.
void add_cells(const GraphSamples& g, const std::vector<double>& predicted, double& sum,
               size_t& cells) {
  std::map<std::string, std::pair<double, size_t>> by_group;
  for (size_t i = 0; i < g.samples.size(); ++i) {
    const FitSample& s = g.samples[i];
    double e2 = kInvalidSamplePenalty;
    if (predicted[i] > 0 && std::isfinite(predicted[i]) && s.measured_s > 0) {
      const double e = std::log(predicted[i]) - std::log(s.measured_s);
      e2 = e * e;
    }
    auto& cell = by_group[i < g.groups.size() ? g.groups[i] : std::string()];
    cell.first += e2;
    ++cell.second;
  }
  for (const auto& [group, cell] : by_group) {
    sum += cell.first / static_cast<double>(cell.second);
    ++cells;
  }
}

}  // namespace

bool is_absolute_field(ParameterField field) {
  return parameter_unit(field) == "s" || parameter_unit(field) == "cycles";
}

SharedParameter parse_shared_parameter(const std::string& text,
                                       const std::vector<GraphSamples>& graphs,
                                       const std::string& input) {
  if (graphs.empty()) fail_fit(input, "no graphs to fit parameters of");
  SharedParameter p;
  const size_t eq = text.find('=');
  p.path = text.substr(0, eq);
  const ArchitectureGraph& first = graphs.front().graph;
  const ParameterPath resolved = parse_parameter_path(p.path, first, input);
  for (const GraphSamples& g : graphs) parse_parameter_path(p.path, g.graph, input);
  p.field = resolved.field;
  if (is_count(p.field))
    fail_fit(input, fmt::format("'{}' is a count, and a fit searches continuous values", p.path));
  p.relative = !is_absolute_field(p.field);
  if (p.relative) {
    p.initial = 1;
    p.lower = 0.1;
    p.upper = p.field == ParameterField::node_efficiency ? 1.0 : 2.0;
  } else {
    p.initial = parameter_value(first, resolved);
    if (!(p.initial > 0) && eq == std::string::npos)
      fail_fit(input, fmt::format("'{}' is {} in graph '{}', so it has no range to search around; "
                                  "give bounds, e.g. {}",
                                  p.path, p.initial, first.name, parameter_value_example(p.field)));
    p.lower = p.initial / 4;
    p.upper = p.initial * 4;
  }
  if (eq == std::string::npos) return p;
  const std::string bounds = text.substr(eq + 1);
  const size_t colon = bounds.find(':');
  const auto malformed = [&](const std::string& why) {
    fail_fit(input,
             fmt::format("bad bounds in '{}': {}; expected PATH=LOW:HIGH with LOW > 0, a factor on "
                         "each graph's own value for a rate or a bandwidth (`0.3:1`), a value in "
                         "the parameter's unit for a time or a number of cycles (e.g. {})",
                         text, why, parameter_value_example(p.field)));
  };
  if (colon == std::string::npos) malformed("no `:` between the bounds");
  const auto value = [&](const std::string& t) -> std::optional<double> {
    if (p.relative) {
      try {
        size_t used = 0;
        const double v = std::stod(t, &used);
        if (used == t.size() && std::isfinite(v)) return v;
      } catch (const std::exception&) {
      }
      return std::nullopt;
    }
    return parse_parameter_value(t, first, resolved);
  };
  const auto lo = value(bounds.substr(0, colon));
  const auto hi = value(bounds.substr(colon + 1));
  if (!lo) malformed(fmt::format("'{}' is not a value", bounds.substr(0, colon)));
  if (!hi) malformed(fmt::format("'{}' is not a value", bounds.substr(colon + 1)));
  if (!(*lo > 0)) malformed("the lower bound must be positive (the fit searches in log space)");
  if (!(*hi > *lo)) malformed("the upper bound must be above the lower bound");
  p.lower = *lo;
  p.upper = *hi;
  p.initial = std::clamp(p.initial, p.lower, p.upper);
  return p;
}

ArchitectureGraph with_shared_values(const ArchitectureGraph& graph,
                                     const std::vector<SharedParameter>& params,
                                     const std::vector<double>& values) {
  ArchitectureGraph g = graph;
  for (size_t i = 0; i < params.size() && i < values.size(); ++i) {
    // Resolved against the graph as given: a factor applies to its own value (an efficiency's
    // baseline reads 1, so the factor is the efficiency), whatever the other parameters did.
    const ParameterPath path = parse_parameter_path(params[i].path, graph, "--param");
    const double value = params[i].relative && path.field != ParameterField::node_efficiency
                             ? parameter_value(graph, path) * values[i]
                             : values[i];
    set_parameter_value(g, path, value);
  }
  return g;
}

std::vector<GraphSamples> fit_subset(const std::vector<GraphSamples>& graphs, size_t per_group) {
  if (per_group == 0) return graphs;
  std::vector<GraphSamples> out;
  for (const GraphSamples& g : graphs) {
    std::map<std::string, std::vector<size_t>> by_group;
    for (size_t i = 0; i < g.samples.size(); ++i)
      by_group[i < g.groups.size() ? g.groups[i] : std::string()].push_back(i);
    GraphSamples s;
    s.label = g.label;
    s.graph = g.graph;
    std::vector<size_t> kept;
    for (const auto& [group, list] : by_group) {
      const size_t n = std::min(per_group, list.size());
      for (size_t k = 0; k < n; ++k) kept.push_back(list[k * list.size() / n]);
    }
    std::sort(kept.begin(), kept.end());  // the table's order, whatever the groups' names
    for (size_t i : kept) {
      s.samples.push_back(g.samples[i]);
      s.groups.push_back(g.groups[i]);
    }
    out.push_back(std::move(s));
  }
  return out;
}

double shared_log_rmse(const std::vector<GraphSamples>& graphs,
                       const std::vector<SharedParameter>& params,
                       const std::vector<double>& values, const std::vector<size_t>& use) {
  double sum = 0;
  size_t cells = 0;
  for (size_t i : graphs_used(graphs, use)) {
    const GraphSamples& g = graphs[i];
    const ArchitectureGraph trial = with_shared_values(g.graph, params, values);
    add_cells(g, predict_samples(trial, g.samples), sum, cells);
  }
  return cells ? std::sqrt(sum / static_cast<double>(cells)) : 0;
}

SharedFitResult fit_shared_parameters(const std::vector<GraphSamples>& graphs,
                                      const std::vector<SharedParameter>& params,
                                      int max_evaluations, const FitProgress& progress,
                                      const std::vector<size_t>& use,
                                      const std::vector<std::vector<double>>& starts) {
  SharedFitResult result;
  for (const SharedParameter& p : params) result.values.push_back(p.initial);
  result.initial_error = shared_log_rmse(graphs, params, result.values, use);
  result.final_error = result.initial_error;
  if (params.empty() || graphs.empty()) return result;

  const size_t n = params.size();
  double best_error = std::numeric_limits<double>::infinity();
  std::vector<double> best_u(n);
  int evaluations = 0;
  const auto values_at = [&](const std::vector<double>& u) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = log_scale_value(params[i].lower, params[i].upper, u[i]);
    return v;
  };
  auto objective = [&](const std::vector<double>& u) {
    const double error = shared_log_rmse(graphs, params, values_at(u), use);
    ++evaluations;
    // As fit_parameters: the best point evaluated is kept, whatever the optimiser returns.
    if (error < best_error) {
      best_error = error;
      best_u = u;
    }
    if (progress) progress(evaluations, best_error);
    return error * error;
  };
  std::vector<double> u(n);
  for (size_t i = 0; i < n; ++i)
    u[i] = log_scale_coordinate(params[i].lower, params[i].upper, params[i].initial);
  best_u = u;
  // Other starts first, each evaluated once: the descents below begin at the best of them.
  for (const std::vector<double>& values : starts) {
    if (values.size() != n) continue;
    std::vector<double> s(n);
    for (size_t i = 0; i < n; ++i)
      s[i] = log_scale_coordinate(params[i].lower, params[i].upper, values[i]);
    objective(s);
  }
  // Restarts from the best point so far, each with a fresh trust region: with a dozen parameters
  // of which some change nothing over part of the space (a launch overhead under the device time
  // it is compared with), one descent can stop in a flat corner that a new one leaves.
  const int budget = std::max(max_evaluations, 2 * static_cast<int>(n) + 2);
  for (int round = 0; round < 4 && evaluations < budget; ++round) {
    const double before = best_error;
    descend_on_unit_cube(
        objective, best_u,
        {.max_evaluations = std::max(budget - evaluations, 2 * static_cast<int>(n) + 2),
         .xtol_abs = 1e-6,
         .ftol_abs = 1e-12,
         .initial_step = round == 0 ? 0.1 : 0.2});
    if (round > 0 && !(best_error < before * (1 - 1e-4))) break;  // the restart found nothing
  }
  result.values = values_at(best_u);
  result.final_error = std::isfinite(best_error) ? best_error : result.initial_error;
  result.evaluations = evaluations;
  return result;
}

}  // namespace ts
