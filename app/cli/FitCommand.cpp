// `tilescope fit`: fits chosen parameters of an architecture graph to measurements (a results
// database or a CSV table) and writes the fitted graph, with a header that says how it was made.
#include "FitCommand.hpp"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "CommandLine.hpp"
#include "FitAcrossGraphs.hpp"
#include "OptionValues.hpp"
#include "TerminalProgress.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "calibrate/GraphParameter.hpp"
#include "calibrate/ParameterFit.hpp"
#include "common/Fnv1a.hpp"
#include "common/UtcTime.hpp"
#include "correlate/CorrelationData.hpp"
#include "profile/ArchitectureReference.hpp"

namespace ts::cli {
namespace {

// Size and FNV-1a of a file's bytes: enough to tell later whether the data changed.
std::pair<uintmax_t, std::string> file_fingerprint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Fnv1a h;
  uintmax_t size = 0;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    const std::streamsize n = in.gcount();
    for (std::streamsize i = 0; i < n; ++i) h.add_byte(static_cast<uint8_t>(buffer[i]));
    size += static_cast<uintmax_t>(n);
  }
  return {size, hash_text(h.value())};
}

}  // namespace

int run_fit(FitOptions a) {
  if (!a.graphs.empty()) {
    if (!a.arch.empty())
      throw InputError(SourceLocation{"--arch", 0, 0},
                       "--arch and --graph do not go together: with --graph DEVICE=ARCH every "
                       "device's rows are predicted on its own graph");
    FitAcrossGraphsArgs m;
    m.measurements = a.measurements_list;
    m.graphs = a.graphs;
    m.params = a.params;
    m.out = a.out;
    m.timing_scope = a.timing_scope;
    m.dtype = a.dtype_given ? a.dtype : "fp32";
    m.base_calibration = a.base_calibration;
    m.leave_one_out = a.leave_one_out;
    m.sample = a.sample;
    m.rows = a.rows;
    m.max_evaluations = a.max_evaluations;
    m.budget = a.budget;
    return run_fit_across_graphs(m);
  }
  if (a.arch.empty())
    throw InputError(SourceLocation{"--arch", 0, 0},
                     "no graph: give --arch (one graph) or --graph DEVICE=ARCH (several)");
  if (a.measurements_list.size() != 1)
    throw InputError(SourceLocation{"--measurements", 0, 0},
                     "one --measurements with --arch; several tables go with --graph DEVICE=ARCH");
  if (a.out.empty())
    throw InputError(SourceLocation{"--out", 0, 0}, "--out: where to write the fitted graph");
  a.measurements = a.measurements_list.front();
  if (!std::filesystem::exists(a.measurements))
    throw InputError(SourceLocation{a.measurements, 0, 0},
                     "no such file; expected a results database or a CSV table of measurements");
  const bool from_db = is_sqlite_file(a.measurements);
  const DataType dtype = data_type_option(a.dtype);
  const TimingScope scope = timing_scope_option(a.timing_scope);
  const std::string arch_file = resolve_architecture_option(a.arch);
  const ArchitectureGraph graph = load_architecture(arch_file);
  std::vector<GraphParameter> params;
  for (const std::string& text : a.params)
    params.push_back(parse_graph_parameter(text, graph, "--param"));

  TerminalProgress progress("fit");
  MapperOptions mapper;
  mapper.budget = a.budget;
  CorrelationInput input;
  if (from_db) {
    DbInputOptions o;
    o.path = a.measurements;
    o.run = a.run;
    o.graph = &graph;
    o.mapper = mapper;
    o.with_samples = true;
    o.progress = [&](size_t done, size_t total) {
      progress.show_count(done, total, fmt::format("predicting {}/{}", done, total));
    };
    input = db_input(o);
  } else {
    CsvInputOptions o;
    o.path = a.measurements;
    o.op_type = a.op;
    o.device = a.device;
    o.dtype = dtype;
    o.scope = scope;
    o.mapper = mapper;
    o.with_samples = true;
    o.progress = [&](size_t done, size_t total) {
      progress.show_count(done, total, fmt::format("mapping {}/{}", done, total));
    };
    input = read_option("operator class", "--op", [&] { return csv_input(graph, o); });
  }
  const FitResult fit = fit_parameters(
      graph, params, input.samples, a.max_evaluations, [&](int evaluations, double log_rmse) {
        progress.show(
            fmt::format("fitting: evaluation {}, log-RMSE {:.4f}", evaluations, log_rmse));
      });
  progress.clear();

  const auto [size, hash] = file_fingerprint(a.measurements);
  std::string header;
  header += fmt::format("Fitted by tilescope {} on {}\n", TILESCOPE_VERSION, utc_now_iso());
  header += fmt::format("command: {}\n", command_line());
  header += fmt::format("measurements: {} ({} bytes, FNV-1a {})\n", a.measurements, size, hash);
  header += fmt::format("  {}; {} samples\n", input.source, input.samples.size());
  if (from_db)
    header +=
        "  mappings: each measurement's own; black boxes: the mapper's choice on the "
        "initial graph, fixed during the fit\n";
  else
    header += fmt::format(
        "  timing scope {}; mappings: the mapper's choice on the initial graph, "
        "fixed during the fit\n",
        a.timing_scope);
  for (const std::string& note : input.notes) header += "  note: " + note + "\n";
  header += fmt::format("initial graph: {} ({}, graph {})\n", arch_file, graph.name,
                        hash_text(graph.content_hash()));
  header += fmt::format(
      "objective: mean squared log error, NLopt LN_BOBYQA in log space, {} "
      "evaluations\n",
      fit.evaluations);
  header += "parameters (before -> after, bounds):\n";
  for (size_t i = 0; i < params.size(); ++i)
    header += fmt::format("  {}: {} -> {}  [{}, {}]\n", params[i].path,
                          format_parameter(params[i].path, params[i].initial),
                          format_parameter(params[i].path, fit.values[i]),
                          format_parameter(params[i].path, params[i].lower),
                          format_parameter(params[i].path, params[i].upper));
  const std::vector<std::string> at_bounds = bound_warnings(params, fit.values);
  for (const std::string& line : at_bounds) header += "  warning: " + line + "\n";
  header += fmt::format("training log-RMSE: {:.4f} -> {:.4f}\n", fit.initial_log_rmse,
                        fit.final_log_rmse);
  header += fmt::format("training MAPE: {:.2f}% -> {:.2f}%\n", fit.initial_mape * 100,
                        fit.final_mape * 100);
  header +=
      "These are training figures (the fit saw every sample); `tilescope correlate --fit "
      "... --folds K` gives cross-validated ones.";

  if (auto parent = std::filesystem::path(a.out).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent);
  write_architecture(fit.graph, header, a.out);
  // The fit keeps the mapper's first choices: a search cut short fixes a possibly slow mapping.
  std::cerr << unconverged_warning(input.unconverged.operators, a.budget);

  std::cout << fmt::format("fit {} to {} samples from {}\n", graph.name, input.samples.size(),
                           input.source);
  for (size_t i = 0; i < params.size(); ++i)
    std::cout << fmt::format("  {:<32} {:>16} -> {}\n", params[i].path,
                             format_parameter(params[i].path, params[i].initial),
                             format_parameter(params[i].path, fit.values[i]));
  std::cout << fmt::format(
      "training log-RMSE {:.4f} -> {:.4f}, MAPE {:.2f}% -> {:.2f}% ({} "
      "evaluations)\n",
      fit.initial_log_rmse, fit.final_log_rmse, fit.initial_mape * 100, fit.final_mape * 100,
      fit.evaluations);
  for (const std::string& note : input.notes) std::cout << "note: " << note << "\n";
  for (const std::string& line : at_bounds) std::cerr << "warning: fit: " << line << "\n";
  std::cout << fmt::format("wrote {}\n", a.out);
  return 0;
}

}  // namespace ts::cli
