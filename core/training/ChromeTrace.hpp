#pragma once
// Timelines as Chrome-trace JSON (the Trace Event Format that Perfetto and chrome://tracing
// open): a named process, named tracks (threads), complete events with a category and
// arguments, and counter tracks; times in microseconds.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "training/MemoryTimeline.hpp"
#include "training/TaskGraph.hpp"

namespace ts {

// A counter track: a named step function over the run, such as a GPU's memory.
struct CounterTrack {
  std::string name;
  std::vector<MemorySample> samples;
};

// One complete event: what ran on a track, from when, for how long, of which kind (`cat`:
// "forward", "collective", ...) and with what (`args`: micro-batch, layer, bytes, FLOPs).
struct TraceSpan {
  int64_t track = 0;
  std::string name, category;
  double start_s = 0, duration_s = 0;
  std::vector<std::pair<std::string, double>> args;
};

// The name of a track that nobody named: "stream 3". The writer gives it to tracks without a
// name, and the reader (SimulationTimeline) to tracks without a thread_name event.
std::string unnamed_track_name(int64_t track);

// A task graph's run as spans, one per task of positive duration on its stream's track, with
// the category `category_of_stream[stream]` (empty where the list is short).
std::vector<TraceSpan> task_spans(const TaskGraph& graph, const TaskTimes& times,
                                  const std::vector<std::string>& category_of_stream = {});

// `track_names[i]` names track i (missing names: unnamed_track_name); `tracks` is how many
// there are. Counters are written in GiB, as counter events ("ph": "C").
std::string chrome_trace_json(const std::string& process_name, int64_t tracks,
                              const std::vector<std::string>& track_names,
                              const std::vector<TraceSpan>& spans,
                              const std::vector<CounterTrack>& counters = {});

}  // namespace ts
