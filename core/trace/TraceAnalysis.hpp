#pragma once
// Every analysis of a trace, per rank, over one window (the whole trace or ProfilerStep#N), and
// their export as JSON and CSV: what `tilescope trace`, the GUI's Trace page and the report show,
// computed once here.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace/IdleTime.hpp"
#include "trace/LaunchStatistics.hpp"
#include "trace/RankTrace.hpp"
#include "trace/TraceBreakdown.hpp"
#include "trace/TraceDiff.hpp"

namespace ts {

struct RankAnalysis {
  int rank = 0;
  std::string file;
  std::string device_name;
  TimeWindow window;
  size_t iterations = 0;
  size_t cpu_operators = 0;
  size_t launches = 0;
  TemporalBreakdown temporal;
  CommunicationOverlap overlap;
  IdleBreakdown idle;
  LaunchStatistics launch;
  KernelBreakdown kernels;
  std::vector<std::string> notes;
};

// `step`: -1 for each rank's whole trace. Throws std::out_of_range when a rank lacks the step.
std::vector<RankAnalysis> analyse_trace(const Trace& trace, int64_t step = -1);

// The part of the analyses each `tilescope trace` subcommand prints.
enum class TraceView { summary, breakdown, overlap, idle, launch };

nlohmann::json trace_analysis_json(const std::vector<RankAnalysis>& ranks, TraceView view,
                                   size_t top_kernels = 20);
std::string trace_analysis_csv(const std::vector<RankAnalysis>& ranks, TraceView view,
                               size_t top_kernels = 20);
nlohmann::json trace_diff_json(const TraceDiff& diff);
std::string trace_diff_csv(const TraceDiff& diff);

}  // namespace ts
