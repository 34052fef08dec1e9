#pragma once
// A task graph's run as Chrome-trace JSON (the Trace Event Format that Perfetto and
// chrome://tracing open): one track per stream, one complete event per task, times in
// microseconds.
#include <cstdint>
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

// The name of a track that nobody named: "stream 3". The writer gives it to streams without a
// name, and the reader (SimulationTimeline) to tracks without a thread_name event.
std::string unnamed_track_name(int64_t track);

// `stream_names[i]` names track i (missing names: unnamed_track_name). Counters are written in
// GiB, as counter events ("ph": "C").
std::string chrome_trace_json(const TaskGraph& graph, const TaskTimes& times,
                              const std::vector<std::string>& stream_names,
                              const std::vector<CounterTrack>& counters = {});

}  // namespace ts
