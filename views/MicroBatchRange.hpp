#pragma once
// One micro-batch's work on one pipeline stage, as a time range of the timeline: what "zoom to
// micro-batch" shows. The simulator labels a stage's spans with the micro-batch they serve
// ("F mb3 c1 s0": forward of micro-batch 3, chunk 1, stage 0; "tensor-parallel all-reduce F
// layer 2 mb3") and names its tracks "stage S ..." (SimulationJson.hpp).
#include <optional>
#include <string>

#include "training/SimulationTimeline.hpp"

namespace ts::views {

struct TimeRange {
  double from_s = 0;
  double to_s = 0;
};

// The micro-batch a span serves (the number after "mb"), or -1 when it names none.
int span_micro_batch(const std::string& label);
// The stage of a track named "stage S ...", or -1.
int track_stage(const std::string& track);

// How many stages and micro-batches the timeline's spans name (0 when none).
int stage_count(const SimulationTimeline& timeline);
int micro_batch_count(const SimulationTimeline& timeline);

// From the first start to the last end of the spans of `micro_batch` on the tracks of `stage`:
// its forward and backward (every chunk when interleaved) and the collectives inside them.
// Nothing when no span matches.
std::optional<TimeRange> micro_batch_range(const SimulationTimeline& timeline, int stage,
                                           int micro_batch);

}  // namespace ts::views
