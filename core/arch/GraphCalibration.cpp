#include "arch/GraphCalibration.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <map>

#include "arch/ArchitectureParameterPath.hpp"
#include "common/YamlSource.hpp"

namespace ts {
namespace {

constexpr std::string_view kPathForms =
    "launch_overhead, launch_overhead:TYPE, clock, edge:FROM->TO.bandwidth, "
    "edge:FROM->TO.latency, node:NAME.capacity, node:NAME.bandwidth, node:NAME.efficiency, "
    "node:NAME.min_kernel_time, ... (docs/formats.md, \"Graph parameter paths\")";

CalibrationEntry read_entry(const YamlSource& src, const YAML::Node& e,
                            std::map<std::string, int>& seen) {
  src.expect_map(e, "a calibration entry");
  src.check_keys(e, {"path", "factor", "value", "note"}, "a calibration entry");
  CalibrationEntry entry;
  entry.where = src.where(e);
  const YAML::Node path = src.require(e, "path", "a calibration entry");
  entry.path = src.text(path, "path");
  const std::optional<ParameterField> field = parameter_field(entry.path);
  if (!field)
    src.fail(path, fmt::format("'{}' is not a graph parameter path; expected one of {}", entry.path,
                               kPathForms));
  if (is_count(*field))
    src.fail(path, fmt::format("'{}' is a count; a calibration changes how fast a chip runs, not "
                               "what it is made of: expected a rate, bandwidth, time or efficiency",
                               entry.path));
  if (auto [it, inserted] = seen.emplace(entry.path, entry.where.line); !inserted)
    src.fail(path, fmt::format("'{}' is calibrated twice (first at line {}); expected one entry "
                               "per path",
                               entry.path, it->second));
  const YAML::Node factor = e["factor"], value = e["value"];
  if (factor.IsDefined() == value.IsDefined())
    src.fail(e, fmt::format("entry '{}' needs one of `factor` (relative: x the graph's own value) "
                            "and `value` (absolute, e.g. `23us`), not {}",
                            entry.path, factor.IsDefined() ? "both" : "neither"));
  if (factor.IsDefined())
    entry.factor = src.positive_number(factor, "factor");
  else
    entry.value = src.text(value, "value");
  entry.note = src.text_or(e, "note", "");
  return entry;
}

GraphCalibration read_calibration(const YamlSource& src) {
  src.check_header("calibration");
  const YAML::Node& root = src.root();
  src.check_keys(root, {"version", "kind", "name", "description", "fitted_by", "entries"},
                 "a calibration");
  GraphCalibration c;
  c.file = src.file();
  c.name = src.text_or(root, "name", file_stem(src.file()));
  c.description = src.text_or(root, "description", "");
  c.fitted_by = src.text_or(root, "fitted_by", "");
  const YAML::Node entries = src.require(root, "entries", "a calibration");
  src.expect_sequence(entries, "`entries`");
  std::map<std::string, int> seen;
  for (const YAML::Node& e : entries) c.entries.push_back(read_entry(src, e, seen));
  return c;
}

// A number that reads back to the same double: fmt's shortest round-trip form.
std::string calibrated_number_text(double v) { return fmt::format("{}", v); }

}  // namespace

GraphCalibration load_calibration(const std::string& path) {
  return read_calibration(YamlSource::load(path));
}

GraphCalibration parse_calibration(const std::string& text, const std::string& file) {
  return read_calibration(YamlSource::parse(text, file));
}

std::string calibration_yaml(const GraphCalibration& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << 1;
  out << YAML::Key << "kind" << YAML::Value << "calibration";
  out << YAML::Key << "name" << YAML::Value << c.name;
  if (!c.description.empty()) out << YAML::Key << "description" << YAML::Value << c.description;
  if (!c.fitted_by.empty()) out << YAML::Key << "fitted_by" << YAML::Value << c.fitted_by;
  out << YAML::Key << "entries" << YAML::Value << YAML::BeginSeq;
  for (const CalibrationEntry& e : c.entries) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "path" << YAML::Value << e.path;
    if (e.factor)
      out << YAML::Key << "factor" << YAML::Value << calibrated_number_text(*e.factor);
    else
      out << YAML::Key << "value" << YAML::Value << e.value;
    if (!e.note.empty()) out << YAML::Key << "note" << YAML::Value << e.note;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

std::vector<CalibrationChange> apply_calibration(ArchitectureGraph& graph,
                                                 const GraphCalibration& calibration) {
  std::vector<CalibrationChange> changes;
  for (size_t i = 0; i < calibration.entries.size(); ++i) {
    const CalibrationEntry& e = calibration.entries[i];
    // Resolved against the graph as the earlier entries left it: an efficiency is then relative
    // to the throughputs the graph has now, as a factor on any other figure is.
    ParameterPath path;
    try {
      path = parse_parameter_path(e.path, graph, "calibration");
    } catch (const InputError& error) {
      throw InputError(e.where,
                       fmt::format("calibration of graph '{}': {}", graph.name, error.message()));
    }
    if (is_count(path.field))
      throw InputError(
          e.where, fmt::format("'{}' is a count; a calibration does not change counts", e.path));
    const double before = parameter_value(graph, path);
    double after = 0;
    if (e.factor) {
      after = before * *e.factor;
    } else {
      const std::optional<double> v = parse_parameter_value(e.value, graph, path);
      if (!v)
        throw InputError(
            e.where,
            fmt::format("'{}' for '{}' is not a value in {}; expected e.g. {}", e.value, e.path,
                        parameter_unit(path.field).empty()
                            ? std::string("a plain number")
                            : std::string(parameter_unit(path.field)),
                        parameter_value_example(path.field)));
      after = *v;
    }
    set_parameter_value(graph, path, after);
    changes.push_back({e.path, before, after, i});
  }
  return changes;
}

}  // namespace ts
