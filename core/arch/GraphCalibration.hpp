#pragma once
// A calibration (`kind: calibration`, docs/formats.md): the values a fit found, written relative
// to a graph's own figures where they scale with the chip (a fraction of a bandwidth, of a peak
// rate) and absolute where they do not (a launch overhead, a kernel floor), so that one fit over
// several GPUs carries to a GPU that only has a specification (`tilescope profiles new gpu`
// applies the vendor's bundled one).
//
//   entries:
//     - {path: node:CUDACores.efficiency, factor: 0.82}   # x the graph's own value
//     - {path: edge:DRAM->L2.bandwidth, factor: 0.78}
//     - {path: launch_overhead, value: 23us}              # set, in the path's unit
//
// Paths are graph parameter paths (arch/ArchitectureParameterPath). A count (`instances`) is
// refused: a calibration changes how fast a chip runs, never what it is made of.
#include <optional>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "common/InputError.hpp"

namespace ts {

struct CalibrationEntry {
  std::string path;              // a graph parameter path, as written
  std::optional<double> factor;  // relative: new = old x factor (efficiency: the factor itself)
  std::string value;             // absolute, as written (`23us`, `1.2TB/s`); empty when relative
  std::string note;              // optional: where the figure comes from
  SourceLocation where;          // the entry in its file, for errors

  bool relative() const { return factor.has_value(); }
  // The same path and value (not where it was read).
  bool operator==(const CalibrationEntry& other) const {
    return path == other.path && factor == other.factor && value == other.value &&
           note == other.note;
  }
};

struct GraphCalibration {
  std::string file;  // where it was read from; empty when made in memory
  std::string name;
  std::string description;
  std::string fitted_by;  // free text: the command, the data and its fingerprint, the figures
  std::vector<CalibrationEntry> entries;

  bool operator==(const GraphCalibration& other) const {
    return name == other.name && description == other.description && fitted_by == other.fitted_by &&
           entries == other.entries;
  }
};

// InputError at file:line:col for a malformed file: an unknown key, an entry with neither or
// both of `factor` and `value`, a factor that is not a positive number, a path outside the
// grammar or naming a count, a path given twice.
GraphCalibration load_calibration(const std::string& path);
GraphCalibration parse_calibration(const std::string& text, const std::string& file);

// The file's text; parse_calibration reads it back to an equal calibration.
std::string calibration_yaml(const GraphCalibration& calibration);

// What one entry did to a graph: its value before and after, in the path's SI unit.
struct CalibrationChange {
  std::string path;
  double before = 0;
  double after = 0;
  size_t entry = 0;  // index into GraphCalibration::entries
};

// Applies every entry in order. Throws InputError at the entry's line, naming the path, when the
// graph lacks what the path names (an edge or node it does not have), or when an absolute value
// is not a quantity of the path's unit.
std::vector<CalibrationChange> apply_calibration(ArchitectureGraph& graph,
                                                 const GraphCalibration& calibration);

}  // namespace ts
