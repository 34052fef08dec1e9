#pragma once
// A task graph's run as Chrome-trace JSON (the Trace Event Format that Perfetto and
// chrome://tracing open): one track per stream, one complete event per task, times in
// microseconds.
#include <string>
#include <vector>

#include "dist/TaskGraph.hpp"

namespace ts {

// `stream_names[i]` names track i (missing names become "stream i").
std::string chrome_trace_json(const TaskGraph& graph, const TaskTimes& times,
                              const std::vector<std::string>& stream_names);

}  // namespace ts
