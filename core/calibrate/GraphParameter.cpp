#include "calibrate/GraphParameter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/InputError.hpp"

namespace ts {
namespace {

[[noreturn]] void fail(const std::string& input, const std::string& message) {
  throw InputError(SourceLocation{input, 0, 0}, message);
}

}  // namespace

GraphParameter parse_graph_parameter(const std::string& text, const ArchitectureGraph& graph,
                                     const std::string& input) {
  GraphParameter p;
  const size_t eq = text.find('=');
  p.path = text.substr(0, eq);
  p.resolved = parse_parameter_path(p.path, graph, input);
  const ParameterField field = p.resolved.field;
  if (is_count(field))
    fail(input, fmt::format("'{}' is a count, and a fit searches continuous values; set it in the "
                            "graph, or fit a rate such as an efficiency or a bandwidth",
                            p.path));
  p.initial = parameter_value(graph, p.resolved);

  if (eq == std::string::npos) {
    if (!(p.initial > 0))
      fail(input, fmt::format("'{}' is {} in graph '{}', so it has no range to search around; "
                              "give bounds, e.g. {}",
                              text, p.initial, graph.name, parameter_value_example(field)));
    p.lower = p.initial / 4;
    p.upper = p.initial * 4;
    // An efficiency is a fraction of the baseline's peak unless bounds say otherwise.
    if (field == ParameterField::node_efficiency) p.upper = std::min(p.upper, 1.0);
    return p;
  }
  const std::string bounds = text.substr(eq + 1);
  const size_t colon = bounds.find(':');
  const auto malformed = [&](const std::string& why) {
    fail(input, fmt::format("bad bounds in '{}': {}; expected PATH=LOW:HIGH with LOW > 0 in the "
                            "parameter's unit, e.g. {}",
                            text, why, parameter_value_example(field)));
  };
  if (colon == std::string::npos) malformed("no `:` between the bounds");
  const auto lo = parse_parameter_value(bounds.substr(0, colon), graph, p.resolved);
  const auto hi = parse_parameter_value(bounds.substr(colon + 1), graph, p.resolved);
  if (!lo) malformed(fmt::format("'{}' is not a value", bounds.substr(0, colon)));
  if (!hi) malformed(fmt::format("'{}' is not a value", bounds.substr(colon + 1)));
  if (!(*lo > 0)) malformed("the lower bound must be positive (the fit searches in log space)");
  if (!(*hi > *lo)) malformed("the upper bound must be above the lower bound");
  p.lower = *lo;
  p.upper = *hi;
  return p;
}

std::vector<std::string> bound_warnings(const std::vector<GraphParameter>& params,
                                        const std::vector<double>& values) {
  std::vector<std::string> lines;
  constexpr double kNearBound = 1e-3;  // relative: log-space steps this small are the optimiser's
  for (size_t i = 0; i < params.size() && i < values.size(); ++i) {
    const GraphParameter& p = params[i];
    const double v = values[i];
    const bool at_lower = p.lower > 0 && std::abs(std::log(v / p.lower)) < kNearBound;
    const bool at_upper = p.upper > 0 && std::abs(std::log(v / p.upper)) < kNearBound;
    if (!at_lower && !at_upper) continue;
    lines.push_back(fmt::format(
        "{} ended at its {} bound ({}): the measurements pull it further, so the fit is not a "
        "minimum inside [{}, {}] and the other parameters make up for it; widen the range "
        "(`{}=LO:HI`) if the value beyond is physical, else suspect the mappings or the data",
        p.path, at_lower ? "lower" : "upper", format_parameter(p.path, v),
        format_parameter(p.path, p.lower), format_parameter(p.path, p.upper), p.path));
  }
  return lines;
}

}  // namespace ts
