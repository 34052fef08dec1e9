#pragma once
// A simulated training iteration as the timeline view draws it: tracks (one per device stream
// and link) of spans, and the summary lines. Read from what `tilescope simulate --out` writes
// (summary + Chrome-trace timeline, SimulationJson.hpp) or from a bare Chrome trace
// (`--timeline`). The reader of the simulator's output; the GUI and reports draw it.
#include <string>
#include <vector>

namespace ts {

struct TimelineSpan {
  std::string label;  // "F mb0 c0 s0": forward of micro-batch 0, ...
  double start_s = 0;
  double duration_s = 0;
};

struct TimelineTrack {
  std::string name;  // "stage 0 compute", "link from stage 0 (activations)"
  std::vector<TimelineSpan> spans;
};

// A counter of the trace ("ph": "C"), such as a GPU's memory: a step function, each sample
// holding from its time to the next one's.
struct TimelineCounter {
  std::string name;  // "memory stage 0"
  std::string unit;  // the counter's argument: "GiB" for the simulator's memory tracks
  std::vector<std::pair<double, double>> samples;  // time (s), value; in time order
  double peak() const;
};

struct SimulationTimeline {
  std::string title;  // "gpt-22b with gpt-22b-full on selene (8 GPUs)"
  double iteration_s = 0;
  std::vector<std::pair<std::string, double>> breakdown;  // what, seconds
  std::vector<std::string> summary;                       // "tokens/s 6833", ...
  // The summary's figures as `tilescope simulate` prints them, name and value ("peak memory",
  // "59.66 GiB per GPU"), the iteration left out (it has its own field): the report's table.
  std::vector<std::pair<std::string, std::string>> facts;
  std::vector<TimelineTrack> tracks;      // tracks with no span are left out
  std::vector<TimelineCounter> counters;  // memory over time, one per pipeline stage's GPU
  double end_s() const;
};

// Throws InputError naming the file for JSON that does not parse or has no trace events.
SimulationTimeline load_simulation_timeline(const std::string& path);
SimulationTimeline parse_simulation_timeline(const std::string& text, const std::string& file);

// The kind of work a span is, from its label: forward, backward, recompute, communication, host,
// optimizer or other (what the timeline colours by).
std::string span_category(const TimelineSpan& span, const std::string& track);

}  // namespace ts
