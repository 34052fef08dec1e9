#pragma once
// `tilescope report --compare`: one workload on two or more architecture graphs as a report
// (HTML or PDF, no database): a summary box (the graphs, the workload, the totals, the speed-up
// and what bounds each), the per-operator table of `tilescope compare`, and bars per operator
// drawn by views/ComparisonBars, the builder the GUI's Compare page uses. See docs/report.md.
#include <string>
#include <vector>

#include "report/ArchitectureComparison.hpp"
#include "views/ReportDocument.hpp"
#include "views/ReportFigures.hpp"

namespace ts::views {

struct ComparisonReport {
  ArchitectureComparison comparison;
  std::string workload_file;
  std::string tool_version, command_line, generated_at;  // generated_at: ISO 8601 UTC
  std::vector<std::string> notes;                        // e.g. searches that ran out of budget
  // A decode step's time per token on each graph ("A 3224.657 us per token, ...; B ..."), as
  // predict prints it (TimePerToken.hpp); empty for other workloads.
  std::string time_per_token;
};

// "comparison-time" (each operator's time on each graph, labelled with its bound) and
// "comparison-speedup" (each other graph's speed-up over the first). Needs a QApplication.
ReportFigures render_comparison_figures(const ComparisonReport& report);

// The report's text; in HTML it carries `compare --format json` in
// <script type="application/json" id="tilescope-comparison-data">.
std::string comparison_report_html(const ComparisonReport& report, const ReportFigures& figures,
                                   ReportFormat format);

// HTML or PDF by the extension, written whole or not at all (as write_report).
void write_comparison_report(const ComparisonReport& report, const ReportFigures& figures,
                             const std::string& out_path);

}  // namespace ts::views
