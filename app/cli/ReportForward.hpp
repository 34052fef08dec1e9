#pragma once
// `tilescope report` is the program tilescope-report beside tilescope (app/report): the report
// draws with the Qt views, and tilescope links no Qt.
#include <string>
#include <vector>

namespace ts::cli {

inline constexpr const char* kReportDescription =
    "a self-contained HTML or PDF report of a measured run (no display needed): device, "
    "agreement per operator class with scatter plots, worst predictions with their mapping "
    "trees, the graph, a simulation, a comparison; or of a profiler's trace (--trace): where "
    "its time went per rank, and with --arch and --on the step on another chip";

// Replaces this process with tilescope-report from this executable's folder, given `report` and
// then `args`. Returns only when it cannot, after a one-line error: exit status 2.
int exec_report(const std::vector<std::string>& args);

}  // namespace ts::cli
