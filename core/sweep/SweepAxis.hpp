#pragma once
// One varied parameter of a sweep, from `--vary PATH=v1,v2,...`: a path of the grammar in
// arch/ArchitectureParameterPath and the values it takes. Values are in the parameter's unit with
// SI suffixes as `fit` accepts them (`256KiB`, `1.6TB/s`, `64B/cycle`); unlike `fit`, counts
// (node:NAME.instances) are allowed, as whole numbers.
#include <string>
#include <vector>

#include "arch/ArchitectureParameterPath.hpp"

namespace ts {

struct SweepAxis {
  std::string path;  // as written
  ParameterPath resolved;
  std::vector<double> values;  // in SI base units, as written (at least one)
  double min() const;
  double max() const;
};

// Throws InputError located at `input` ("--vary") naming the text when the path names nothing
// in the graph, a value is not one of the parameter's unit, or a value cannot be written into
// the graph (sweep_value_problem).
SweepAxis parse_sweep_axis(const std::string& text, const ArchitectureGraph& graph,
                           const std::string& input = "--vary");

// Why `value` cannot be the parameter's value ("a count must be a whole number of at least 1"),
// or "" when it can: counts are whole and at least 1, latencies and port limits (0: none) at
// least 0, everything else positive, and every value finite.
std::string sweep_value_problem(ParameterField field, double value);

}  // namespace ts
