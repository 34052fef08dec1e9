#include "sweep/SweepAxis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/InputError.hpp"

namespace ts {
namespace {

[[noreturn]] void fail(const std::string& input, const std::string& message) {
  throw InputError(SourceLocation{input, 0, 0}, message);
}

std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

}  // namespace

double SweepAxis::min() const { return *std::min_element(values.begin(), values.end()); }
double SweepAxis::max() const { return *std::max_element(values.begin(), values.end()); }

std::string sweep_value_problem(ParameterField field, double value) {
  if (!std::isfinite(value)) return "a value must be finite";
  if (is_count(field)) {
    if (value < 1 || value != std::floor(value))
      return "a count must be a whole number, at least 1";
    return "";
  }
  switch (field) {
    case ParameterField::launch_overhead:
    case ParameterField::launch_overhead_of_type:
    case ParameterField::node_min_kernel_time:
    case ParameterField::edge_latency:
    case ParameterField::edge_reduction_latency:
    case ParameterField::node_issue_latency:
    case ParameterField::node_bandwidth:
    case ParameterField::node_read_bandwidth:
    case ParameterField::node_write_bandwidth:
      // A latency of nothing, or a port limit of 0 (none), is a value the graph files take.
      return value < 0 ? "this parameter must be at least 0" : "";
    default:
      return value > 0 ? "" : "this parameter must be positive";
  }
}

SweepAxis parse_sweep_axis(const std::string& text, const ArchitectureGraph& graph,
                           const std::string& input) {
  const size_t eq = text.find('=');
  SweepAxis axis;
  axis.path = text.substr(0, eq);
  axis.resolved = parse_parameter_path(axis.path, graph, input);
  const ParameterField field = axis.resolved.field;
  const auto malformed = [&](const std::string& why) {
    // The grammar's example is of a range (`fit`'s LOW:HIGH); a sweep lists values.
    std::string example(parameter_value_example(field));
    std::replace(example.begin(), example.end(), ':', ',');
    fail(input, fmt::format("bad values in '{}': {}; expected PATH=V1,V2,... in the parameter's "
                            "unit, e.g. {}",
                            text, why, example));
  };
  if (eq == std::string::npos || eq + 1 == text.size()) malformed("no values after `=`");
  for (const std::string& v : split_values(text.substr(eq + 1))) {
    const auto value = parse_parameter_value(v, graph, axis.resolved);
    if (!value) malformed(fmt::format("'{}' is not a value", v));
    const std::string problem = sweep_value_problem(field, *value);
    if (!problem.empty()) malformed(fmt::format("'{}': {}", v, problem));
    axis.values.push_back(*value);
  }
  return axis;
}

}  // namespace ts
