#pragma once
// An imported trace's kernels as timeline tracks, a group of their own beside a simulation's:
// per device and stream, one track of the kernels as measured and, once the trace's run is
// compared with the open graph, one of the same kernels at their measured starts lasting what
// the graph predicts for their operator. Plain values in and out, so that a report can draw it.
#include <string>
#include <vector>

#include "correlate/Correlation.hpp"
#include "trace/TraceImport.hpp"
#include "training/SimulationTimeline.hpp"

namespace ts::views {

// Tracks are named "trace NAME: GPU D stream S measured" / "... predicted" (what the plot
// colours by, trace_span_category). `predicted`: the points of the trace's run (op_name and
// implementation = kernel name); empty: no predicted tracks. At most `max_spans` kernels are
// drawn (the earliest); the summary says how many were left out.
SimulationTimeline trace_timeline(const std::vector<TraceKernelSpan>& kernels,
                                  const std::string& name,
                                  const std::vector<ComparedPoint>& predicted,
                                  size_t max_spans = 20000);

// `timeline`'s tracks followed by `trace`'s, with both summaries; the title of the one that has
// tracks (the simulation's when both have).
SimulationTimeline merged_timeline(const SimulationTimeline& timeline,
                                   const SimulationTimeline& trace);

// "measured kernel" or "predicted kernel" for a span of a trace track, else "".
std::string trace_span_category(const std::string& track);

}  // namespace ts::views
