#pragma once
// `tilescope report --trace TRACE...`: where a trace's time went, per rank, as a report (HTML or
// PDF, no database): the stacked bars per rank (views/TraceBreakdownChart, the Trace page's
// builder), the temporal breakdown as a table, communication overlap, idle time by cause, launch
// statistics with the launch-delay histogram (views/LaunchDelayHistogram) and each rank's top
// kernels and launching operators: the figures of `tilescope trace summary`, computed once by
// core (trace/TraceAnalysis); with --on, the step on another chip (trace/TraceStepPrediction).
// See docs/report.md.
#include <optional>
#include <string>
#include <vector>

#include "trace/TraceAnalysis.hpp"
#include "trace/TraceStepPrediction.hpp"
#include "views/ReportDocument.hpp"
#include "views/ReportFigures.hpp"

namespace ts::views {

struct TraceReport {
  std::vector<std::string> traces;  // as given: files, or a folder of per-rank traces
  int64_t step = -1;                // ProfilerStep number, -1 for the whole trace
  std::vector<RankAnalysis> ranks;
  size_t top_kernels = 10;  // rows per rank in the kernel and operator tables
  // With --arch and --on: the step measured, predicted on the chip it ran on and on another.
  std::optional<TraceStepPrediction> elsewhere;
  std::string tool_version, command_line, generated_at;  // generated_at: ISO 8601 UTC
};

// "trace-breakdown" (a bar per rank) and "trace-launch-delays" (every rank's histogram side by
// side). Needs a QApplication.
ReportFigures render_trace_figures(const TraceReport& report);

// The report's text; in HTML it carries `tilescope trace summary --format json` in
// <script type="application/json" id="tilescope-trace-data">.
std::string trace_report_html(const TraceReport& report, const ReportFigures& figures,
                              ReportFormat format);

// HTML or PDF by the extension, written whole or not at all (as write_report).
void write_trace_report(const TraceReport& report, const ReportFigures& figures,
                        const std::string& out_path);

}  // namespace ts::views
