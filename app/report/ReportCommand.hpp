#pragma once
// tilescope-report's options as plain values (its grammar, the one file that sees CLI11, is
// ReportCommandLine.cpp) and the report they make.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"

namespace ts::cli {

struct ReportCommandOptions {
  std::string db, simulation, sweep, out, figures, diff, workload;
  std::vector<std::string> archs;  // one for a run's report, two or more with --compare
  bool compare = false;
  std::optional<int64_t> run, diff_run;
  // --trace: no database; where the traces' time went per rank (views/ReportTrace), over the
  // whole trace or ProfilerStep#step.
  std::vector<std::string> traces;
  std::optional<int64_t> step;
  // --on: with --trace and one --arch (the chip the trace ran on), the step predicted on this
  // other graph too (trace/TraceStepPrediction).
  std::string on;
  std::vector<std::string> fail_if;
  uint64_t budget = MapperOptions{}.budget;
  bool exclude_unstable = false;
};

// Writes the report (a run's, with `compare` the workload on every graph, with `traces` the
// traces' analyses): the exit status.
int run_report(const ReportCommandOptions& options);

}  // namespace ts::cli
