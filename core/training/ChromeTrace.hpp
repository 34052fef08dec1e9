#pragma once
// A task graph's run as Chrome-trace JSON (the Trace Event Format that Perfetto and
// chrome://tracing open): one track per stream, one complete event per task, times in
// microseconds.
#include <string>
#include <vector>

#include "training/MemoryTimeline.hpp"
#include "training/TaskGraph.hpp"

namespace ts {

// A counter track: a named step function over the run, such as a GPU's memory.
struct CounterTrack {
  std::string name;
  std::vector<MemorySample> samples;
};

// `stream_names[i]` names track i (missing names become "stream i"). Counters are written in
// GiB, as counter events ("ph": "C").
std::string chrome_trace_json(const TaskGraph& graph, const TaskTimes& times,
                              const std::vector<std::string>& stream_names,
                              const std::vector<CounterTrack>& counters = {});

}  // namespace ts
