#pragma once
// A trace of a job from the files a profiler left: each path a trace (a Kineto JSON, plain or
// .gz, or an Nsight Systems SQLite export) or a folder of them, one per rank (what
// tensorboard_trace_handler writes for a distributed run). The rank of a Kineto trace is its
// `distributedInfo.rank`; a file that does not say takes its place in name order.
#include <functional>
#include <string>
#include <vector>

#include "trace/RankTrace.hpp"
#include "trace/TraceEvents.hpp"

namespace ts {

// `progress` is told the fraction of the bytes read over all files and returns false to stop
// (TraceImportCancelled). Throws InputError for a file that is no trace tilescope reads, an empty
// folder, two files of the same rank, or what the reader of a file throws.
Trace load_trace(const std::vector<std::string>& paths,
                 const std::function<bool(double)>& progress = {});

// The files a path stands for: itself, or a folder's trace files in name order.
std::vector<std::string> trace_files_of(const std::string& path);

// A trace read for import (Nsight Systems, msprof) as a rank's timeline: its kernels on their
// streams, each tied to a launch at its launch time (a point: the export gives no call's length)
// and its operators as CPU operators.
RankTrace rank_trace_from_events(const TraceEvents& events);

}  // namespace ts
