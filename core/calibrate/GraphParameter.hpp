#pragma once
// A graph parameter to fit, for `fit` and `correlate --fit`: a path of the grammar in
// arch/ArchitectureParameterPath, with the range the fit searches. `PATH=lo:hi` bounds it (values
// in the parameter's unit, SI suffixes allowed: `10GB/s:200GB/s`); without bounds the fit
// searches from a quarter to four times the current value, and an efficiency no higher than 1.
// A count (node:NAME.instances) is named by the grammar but refused here: the fit searches
// continuous values.
#include <string>
#include <vector>

#include "arch/ArchitectureParameterPath.hpp"

namespace ts {

struct GraphParameter {
  std::string path;  // as written, without the bounds
  ParameterPath resolved;
  double lower = 0, upper = 0;
  double initial = 0;  // the value in the graph it was resolved against
};

// Throws InputError located at `input` ("--param" for `fit`, "--fit" for `correlate`), naming
// the text, when the path names nothing in the graph, names a count, or the bounds are
// malformed.
GraphParameter parse_graph_parameter(const std::string& text, const ArchitectureGraph& graph,
                                     const std::string& input = "--param");

// A fitted value that ended on its bound (within 0.1 % of it, as the fit searches in log
// space): the data would take it further, so the fit is not a minimum inside the range and the
// other parameters compensate. One line per such parameter, saying which bound and how to widen
// it; none when every value is inside.
std::vector<std::string> bound_warnings(const std::vector<GraphParameter>& params,
                                        const std::vector<double>& values);

}  // namespace ts
