// `tilescope fit --graph DEVICE=ARCH ... --measurements T.csv ...`: one calibration, relative to
// each graph's specification, fitted to the measured kernels of several devices at once, and
// written as a `kind: calibration` file that `profiles new gpu --calibration` applies to a chip
// nobody measured. With --leave-one-out, each device is also predicted from the fit on the others.
#include "FitAcrossGraphs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "CommandLine.hpp"
#include "OptionValues.hpp"
#include "TerminalProgress.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/GraphCalibration.hpp"
#include "common/AtomicFile.hpp"
#include "common/UtcTime.hpp"
#include "correlate/LeaveOneGraphOut.hpp"
#include "profile/ArchitectureReference.hpp"

namespace ts::cli {
namespace {

// `23us`, `1.5e+03` cycles as a plain number: a value the calibration reader parses back.
std::string value_text(ParameterField field, double value) {
  if (parameter_unit(field) == "s") return fmt::format("{:.6g}us", value * 1e6);
  return fmt::format("{:.6g}", value);
}

DeviceGraph device_graph(const std::string& text) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw InputError(SourceLocation{"--graph", 0, 0},
                     fmt::format("'{}': expected DEVICE=ARCH, a device as the tables name it and "
                                 "its graph (a file or profile:NAME/VARIANT), e.g. \"Tesla "
                                 "P4=profile:nvidia/p4\"",
                                 text));
  DeviceGraph d;
  d.device = text.substr(0, eq);
  d.arch_file = resolve_architecture_option(text.substr(eq + 1), "--graph");
  d.graph = load_architecture(d.arch_file);
  return d;
}

}  // namespace

int run_fit_across_graphs(const FitAcrossGraphsArgs& a) {
  if (a.leave_one_out && a.graphs.size() < 2)
    throw InputError(SourceLocation{"--leave-one-out", 0, 0},
                     "leaving one device out needs at least two --graph devices");
  DeviceMeasurementsOptions o;
  o.paths = a.measurements;
  for (const std::string& g : a.graphs) o.devices.push_back(device_graph(g));
  GraphCalibration base;
  if (!a.base_calibration.empty()) {
    base = load_calibration(a.base_calibration);
    for (DeviceGraph& d : o.devices) apply_calibration(d.graph, base);
  }
  o.dtype = data_type_option(a.dtype);
  o.per_type_limit = a.rows;
  o.scope = timing_scope_option(a.timing_scope);
  o.mapper.budget = a.budget;
  TerminalProgress progress("fit");
  o.progress = [&](size_t done, size_t total) {
    progress.show_count(done, total, fmt::format("mapping {}/{}", done, total));
  };
  const DeviceMeasurements data = device_measurements(o);
  progress.clear();

  std::vector<SharedParameter> params;
  for (const std::string& text : a.params)
    params.push_back(parse_shared_parameter(text, data.graphs, "--param"));
  std::vector<std::string> devices;
  size_t samples = 0;
  for (const GraphSamples& g : data.graphs) {
    devices.push_back(g.label);
    samples += g.samples.size();
  }
  std::cout << fmt::format("fit {} parameters to {} samples of {} devices from {}\n", params.size(),
                           samples, devices.size(), data.source);
  for (const std::string& note : data.notes) std::cout << "note: " << note << "\n";

  SharedFitResult all;
  std::string table;
  if (a.leave_one_out) {
    const LeaveOneGraphOut r = leave_one_graph_out(
        data, params, a.max_evaluations, a.sample,
        [&](size_t fold, size_t folds, int evaluations, double error) {
          progress.show(fmt::format("fit {}/{} ({}): evaluation {}, log-RMSE {:.4f}", fold + 1,
                                    folds, fold == 0 ? "all devices" : "w/o " + devices[fold - 1],
                                    evaluations, error));
        });
    progress.clear();
    all = r.all;
    table = leave_one_graph_out_text(r, params, devices);
    std::cout << "\nleave-one-device-out (each device predicted from the fit on the others):\n"
              << table;
  } else {
    all = fit_shared_parameters(
        fit_subset(data.graphs, a.sample), params, a.max_evaluations,
        [&](int evaluations, double error) {
          progress.show(fmt::format("fitting: evaluation {}, log-RMSE {:.4f}", evaluations, error));
        });
    progress.clear();
    std::cout << fmt::format(
        "objective (log-RMSE over device x type cells): {:.4f} -> {:.4f} "
        "({} evaluations)\n",
        all.initial_error, all.final_error, all.evaluations);
    for (size_t p = 0; p < params.size(); ++p)
      std::cout << fmt::format("  {:<36} {}\n", params[p].path,
                               params[p].relative
                                   ? fmt::format("x{:.4g} of each graph's own value", all.values[p])
                                   : format_parameter(params[p].field, all.values[p]));
  }

  if (a.out.empty()) return 0;
  GraphCalibration cal;
  cal.name = std::filesystem::path(a.out).stem().string();
  cal.description =
      fmt::format("fitted to {} measured kernels of {} devices", samples, devices.size());
  cal.fitted_by = fmt::format("tilescope {} on {}\ncommand: {}\nmeasurements: {}\n",
                              TILESCOPE_VERSION, utc_now_iso(), command_line(), data.source);
  for (const std::string& note : data.notes) cal.fitted_by += "note: " + note + "\n";
  cal.fitted_by += fmt::format("objective (log-RMSE over device x type cells): {:.4f} -> {:.4f}",
                               all.initial_error, all.final_error);
  if (!table.empty()) cal.fitted_by += "\nleave-one-device-out:\n" + table;
  cal.entries = base.entries;
  if (!a.base_calibration.empty())
    cal.fitted_by += fmt::format("\non top of {}: its entries first", a.base_calibration);
  for (size_t p = 0; p < params.size(); ++p) {
    CalibrationEntry e;
    e.path = params[p].path;
    const auto earlier = std::find_if(cal.entries.begin(), cal.entries.end(),
                                      [&](const CalibrationEntry& x) { return x.path == e.path; });
    if (params[p].relative)
      e.factor = all.values[p] *
                 (earlier != cal.entries.end() && earlier->factor ? *earlier->factor : 1.0);
    else
      e.value = value_text(params[p].field, all.values[p]);
    if (earlier != cal.entries.end())
      *earlier = e;
    else
      cal.entries.push_back(e);
  }
  if (auto parent = std::filesystem::path(a.out).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent);
  write_file_atomically(a.out, calibration_yaml(cal));
  std::cout << fmt::format("wrote {}\n", a.out);
  return 0;
}

}  // namespace ts::cli
