// tilescope-report, what `tilescope report` runs: a self-contained HTML file or a PDF that says
// what was measured where, how the predictions agree (the figures of `correlate --by class`),
// the worst predictions with their mapping trees, the graph, a simulation, and a comparison with
// another run; made without a display. See docs/report.md.
//
// A program of its own because it draws with the Qt views: `tilescope` links no Qt and replaces
// itself with this program, beside it, for `tilescope report ARGS` (app/cli/ReportForward.cpp).
// Called either way, it records and shows itself as `tilescope report`.
#include "ReportCommand.hpp"

#include <fmt/format.h>
#include <yaml-cpp/exceptions.h>

#include <QApplication>
#include <QPalette>
#include <clocale>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>
#include <vector>

#include "CommandLine.hpp"
#include "GateExit.hpp"
#include "OptionValues.hpp"
#include "TerminalProgress.hpp"
#include "analysis/TimePerToken.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "common/UtcTime.hpp"
#include "correlate/AccuracyGate.hpp"
#include "correlate/FigureText.hpp"
#include "mapper/SearchConvergence.hpp"
#include "profile/ArchitectureReference.hpp"
#include "report/GraphComparison.hpp"
#include "report/ReportContent.hpp"
#include "trace/TraceFileKind.hpp"
#include "trace/TraceImport.hpp"
#include "trace/TraceLoad.hpp"
#include "trace/TraceStepPrediction.hpp"
#include "training/SimulationTimeline.hpp"
#include "views/ReportComparison.hpp"
#include "views/ReportDocument.hpp"
#include "views/ReportFigures.hpp"
#include "views/ReportTrace.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

// Qt's offscreen platform asks for a runtime folder that servers and CI often lack; the warning
// says nothing about the report. Everything else Qt says is passed on.
QtMessageHandler g_qt_handler = nullptr;
void quiet_runtime_dir(QtMsgType type, const QMessageLogContext& context, const QString& text) {
  if (text.contains(QLatin1String("XDG_RUNTIME_DIR"))) return;
  if (g_qt_handler) g_qt_handler(type, context, text);
}

// Reports are made on servers and in CI: never ask for a display, whatever the environment
// says. QApplication (not QGuiApplication) because QCustomPlot is a widget.
std::unique_ptr<QApplication> offscreen_application() {
  ::setenv("QT_QPA_PLATFORM", "offscreen", 1);
  g_qt_handler = qInstallMessageHandler(quiet_runtime_dir);
  static int argc = 1;
  static char name[] = "tilescope";
  static char* argv[] = {name, nullptr};
  auto app = std::make_unique<QApplication>(argc, argv);
  // Qt sets the C locale from the environment; numbers in files stay with a decimal point.
  std::setlocale(LC_NUMERIC, "C");
  QPalette light = QApplication::palette();
  light.setColor(QPalette::Base, Qt::white);
  light.setColor(QPalette::Window, Qt::white);
  light.setColor(QPalette::Text, Qt::black);
  light.setColor(QPalette::WindowText, Qt::black);
  QApplication::setPalette(light);
  return app;
}

// The output's checks every report makes before any work: HTML or PDF, in a folder that is
// there. (That it is none of the inputs, and not --figures, the grammar has checked: the
// output guard, common/OutputPath.hpp.)
void check_output(const ReportCommandOptions& a) {
  views::report_format(a.out);
  const std::filesystem::path folder = std::filesystem::path(a.out).parent_path();
  if (!folder.empty() && !std::filesystem::is_directory(folder))
    throw InputError(
        SourceLocation{a.out, 0, 0},
        fmt::format("cannot write the report: there is no folder '{}'", folder.string()));
}

// `report --simulation`: what `tilescope simulate --out` writes, a JSON object with the
// simulation's summary and its timeline, and nothing else that parses: a profiler's trace is
// Chrome-trace JSON too, and drawn as a simulation it would show its kernels as pipeline stages
// under a summary of zeros. Refused in one line naming the option, before any work.
void check_simulation_file(const std::string& path) {
  const auto refuse = [&](const std::string& why) {
    throw InputError(SourceLocation{"--simulation", 0, 0},
                     fmt::format("'{}' is {}; expected the JSON file `tilescope simulate --out` "
                                 "writes (its summary and timeline)",
                                 path, why));
  };
  const std::string format = trace_format_of(path);
  if (format == "kineto" || format == "nsys")
    refuse(fmt::format("a profiler's trace ({}), not a simulation: `report --trace` reports it",
                       format == "kineto" ? "PyTorch profiler, Kineto" : "Nsight Systems"));
  if (format == "msprof") refuse("an msprof op_summary table, not a simulation");
  std::ifstream in(path, std::ios::binary);
  if (!in) return;  // the loader says why it cannot be read
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    load_simulation_timeline(path);  // not JSON: the reader says where it stops parsing
    return;
  }
  const bool has_trace = (j.contains("timeline") && j["timeline"].is_object()) ||
                         (j.contains("traceEvents") && j["traceEvents"].is_array());
  if (!j.is_object() || !j.contains("summary") || !j["summary"].is_object() || !has_trace)
    refuse(j.is_object() && j.contains("traceEvents")
               ? "a Chrome trace without a simulation's summary (`simulate --timeline` writes "
                 "those, or a profiler)"
               : "JSON of another kind, not a simulation");
}

// `report --compare`: the workload on every --arch, as `tilescope compare` computes it.
int run_comparison_report(const ReportCommandOptions& a) {
  check_output(a);
  std::vector<ComparisonGraphFile> graphs;
  for (const std::string& arch : a.archs)
    graphs.push_back({arch, resolve_architecture_option(arch)});
  OperatorPredictionOptions options;
  options.mapper.budget = a.budget;
  views::ComparisonReport report;
  {
    TerminalProgress progress("report");
    report.comparison = compare_graph_files(
        graphs, a.workload, options, SourceLocation{"--arch", 0, 0},
        [&](size_t, size_t done, size_t total, const std::string& graph, const std::string& op) {
          progress.show_bar(done, total, fmt::format("{} on {}", op, graph));
        });
  }
  report.workload_file = a.workload;
  {  // A decode step: its time per token on each graph, from the predictions just made.
    const Workload workload = load_workload(a.workload);
    for (size_t g = 0; g < graphs.size(); ++g) {
      const ComparedGraph& compared = report.comparison.graphs[g];
      const std::optional<ForwardPass> pass =
          decode_step(workload, compared.predictions, load_architecture(graphs[g].file));
      if (!pass) break;
      report.time_per_token +=
          fmt::format("{}{} {}", g == 0 ? "" : "; ", compared.label, time_per_token_text(*pass));
    }
  }
  report.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;
  report.command_line = command_line();
  report.generated_at = utc_now_iso();
  // As compare warns on stderr, the report says it in its notes: one line per graph.
  for (const std::string& line : unconverged_graph_notes(report.comparison, a.budget)) {
    report.notes.push_back(line);
    std::cerr << "warning: " << line << "\n";
  }

  const std::unique_ptr<QApplication> app = offscreen_application();
  const views::ReportFigures figures = views::render_comparison_figures(report);
  std::vector<std::string> figure_files;
  if (!a.figures.empty()) figure_files = views::write_report_figures(figures, a.figures);
  views::write_comparison_report(report, figures, a.out);
  const ArchitectureComparison& c = report.comparison;
  std::cout << fmt::format("report: {}\n", a.out);
  std::cout << fmt::format("  {} on {} graphs, {} operators, {} figures\n", c.workload,
                           c.graphs.size(), c.operators.size(), figures.figures.size());
  if (!figure_files.empty())
    std::cout << fmt::format("figures: {} ({} files)\n", a.figures, figure_files.size());
  return 0;
}

// `report --trace`: the traces read (a bar on the terminal), analysed by core, drawn by the
// Trace page's builders.
int run_trace_report(const ReportCommandOptions& a) {
  // A run's options mean nothing here: say so rather than leave them unused.
  if (!a.on.empty() && (a.archs.size() != 1 || a.traces.size() != 1 ||
                        std::filesystem::is_directory(a.traces.front())))
    throw InputError(SourceLocation{"--on", 0, 0},
                     "--on predicts one trace file's step on another chip: give one --trace file "
                     "and one --arch, the graph of the chip it ran on");
  if (a.on.empty() && !a.archs.empty())
    throw InputError(SourceLocation{"--arch", 0, 0},
                     "not with --trace alone: --arch names the chip the trace ran on, for --on "
                     "(the step predicted on another chip)");
  for (const auto& [given, name] :
       {std::pair{!a.simulation.empty(), "--simulation"}, std::pair{!a.sweep.empty(), "--sweep"},
        std::pair{!a.diff.empty(), "--diff"}, std::pair{a.diff_run.has_value(), "--diff-run"},
        std::pair{!a.fail_if.empty(), "--fail-if"}, std::pair{!a.workload.empty(), "--workload"}})
    if (given)
      throw InputError(SourceLocation{name, 0, 0},
                       "not with --trace: a trace's report takes --trace, --step, --arch with "
                       "--on, --budget, --out and --figures");
  check_output(a);
  views::TraceReport report;
  report.traces = a.traces;
  report.step = a.step.value_or(-1);
  Trace trace;
  {
    TerminalProgress progress("report");
    trace = load_trace(a.traces, [&](double fraction) {
      progress.show_bar(static_cast<size_t>(fraction * 1000), 1000, "read");
      return true;
    });
  }
  try {
    report.ranks = analyse_trace(trace, report.step);
  } catch (const std::out_of_range& e) {
    throw InputError(SourceLocation{"--step", 0, 0}, e.what());
  }
  if (!a.on.empty()) {
    const ArchitectureGraph here = load_architecture(resolve_architecture_option(a.archs.front()));
    const ArchitectureGraph there = load_architecture(resolve_architecture_option(a.on));
    MapperOptions mapper;
    mapper.budget = a.budget;
    TerminalProgress progress("report");
    report.elsewhere = predict_trace_step(
        a.traces.front(), here, there, report.step, mapper, [&](size_t done, size_t total) {
          progress.show_count(done, total, fmt::format("predicting {}/{}", done, total));
        });
  }
  report.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;
  report.command_line = command_line();
  report.generated_at = utc_now_iso();
  for (const RankAnalysis& r : report.ranks)
    for (const std::string& note : r.notes)
      std::cerr << "note: rank " << r.rank << " (" << r.file << "): " << note << "\n";

  const std::unique_ptr<QApplication> app = offscreen_application();
  const views::ReportFigures figures = views::render_trace_figures(report);
  std::vector<std::string> figure_files;
  if (!a.figures.empty()) figure_files = views::write_report_figures(figures, a.figures);
  views::write_trace_report(report, figures, a.out);
  std::cout << fmt::format("report: {}\n", a.out);
  std::cout << fmt::format("  {} ranks, {}, {} figures\n", report.ranks.size(),
                           report.step >= 0 ? fmt::format("ProfilerStep#{}", report.step)
                                            : std::string("the whole trace"),
                           figures.figures.size());
  if (!figure_files.empty())
    std::cout << fmt::format("figures: {} ({} files)\n", a.figures, figure_files.size());
  return 0;
}

// A run's report, from a results database.
int run_database_report(const ReportCommandOptions& a) {
  // A run's report draws and evaluates on one graph; two are compared with --compare.
  if (a.archs.size() > 1)
    throw InputError(SourceLocation{"--arch", 0, 0},
                     fmt::format("given {} times; a run's report takes one graph (two or more "
                                 "are compared with --compare --workload W)",
                                 a.archs.size()));
  // A simulation or a sweep is a report of its own; what reads a run needs its database.
  if (a.db.empty() && a.simulation.empty() && a.sweep.empty())
    throw InputError(SourceLocation{"--db", 0, 0},
                     "a results database is needed (or --simulation, --sweep, --trace, or "
                     "--compare with two --arch and --workload)");
  if (a.db.empty())
    for (const auto& [given, name] :
         {std::pair{!a.archs.empty(), "--arch"}, std::pair{!a.diff.empty(), "--diff"},
          std::pair{a.diff_run.has_value(), "--diff-run"},
          std::pair{!a.fail_if.empty(), "--fail-if"},
          std::pair{a.exclude_unstable, "--exclude-unstable"}})
      if (given)
        throw InputError(SourceLocation{name, 0, 0},
                         "reads a run: give its results database with --db");
  const std::string arch = a.archs.empty() ? std::string() : a.archs.front();
  ReportOptions o;
  // Everything that can be checked cheaply is checked before any work: a malformed gate, an
  // output that cannot be HTML or PDF, a folder that is not there.
  for (const std::string& text : a.fail_if)
    o.gates.push_back(
        read_option("accuracy gate", "--fail-if", [&] { return parse_accuracy_gate(text); }));
  o.exclude_unstable = a.exclude_unstable;
  check_output(a);
  if (!a.simulation.empty()) check_simulation_file(a.simulation);
  o.db = a.db;
  o.run = a.run;
  o.arch = resolve_architecture_option(arch);
  o.simulation = a.simulation;
  o.sweep = a.sweep;
  o.diff = a.diff;
  o.diff_run = a.diff_run;
  o.mapper.budget = a.budget;
  o.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;
  o.command_line = command_line();
  const std::unique_ptr<ReportContent> content = gather_report(o);

  const std::unique_ptr<QApplication> app = offscreen_application();
  const views::ReportFigures figures = views::render_report_figures(*content);
  std::vector<std::string> figure_files;
  if (!a.figures.empty()) figure_files = views::write_report_figures(figures, a.figures);
  views::write_report(*content, figures, a.out);
  std::cout << fmt::format("report: {}\n", a.out);
  if (!content->has_run()) {
    std::cout << fmt::format(
        "  {} figures:{}{}\n", figures.figures.size(), content->simulation ? " the simulation" : "",
        content->sweep ? (content->simulation ? " and the sweep" : " the sweep") : "");
    if (!figure_files.empty())
      std::cout << fmt::format("figures: {} ({} files)\n", a.figures, figure_files.size());
    return 0;
  }
  // Re-predicted on another graph: the searches that ran out of budget, as the report says.
  std::cerr << unconverged_warning(content->run.input->unconverged.operators, a.budget);

  const AgreementStats& s = content->correlation.overall;
  std::cout << fmt::format("  {} figures; overall {} points: pearson {}, spearman {}, MAPE {}\n",
                           figures.figures.size(), s.count, figure_text(s.pearson, 4),
                           figure_text(s.spearman, 4), percent_text(s.mape, 2));
  if (!figure_files.empty())
    std::cout << fmt::format("figures: {} ({} files)\n", a.figures, figure_files.size());
  // A comparison with nothing in common is said once: by the gate it leaves unchecked when
  // there is one, else here.
  if (content->comparison && content->comparison->matched.empty() && content->gates.empty())
    std::cerr << "warning: "
              << nothing_in_common_text(*content->comparison, content->before->input->source,
                                        content->run.input->source)
              << "\n";
  return gate_exit_status(content->gates);
}

}  // namespace

int run_report(const ReportCommandOptions& a) {
  if (a.compare) return run_comparison_report(a);
  if (!a.traces.empty()) return run_trace_report(a);
  return run_database_report(a);
}

}  // namespace ts::cli
