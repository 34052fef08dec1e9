#pragma once
// A simulated iteration as the spans of its timeline, to read in Perfetto like a profile of
// one data-parallel replica: per pipeline stage its compute track (each chunk's forward and
// backward, with its micro-batch, chunk, layers and FLOPs), the links between stages, a track
// of the stage's tensor-parallel collectives (per layer, inside the step that runs them, with
// their bytes), a track of its gradient all-reduce and optimizer step after the pipeline, and its
// host's issuing of each step's kernels.
#include <cstdint>
#include <string>
#include <vector>

#include "training/ChromeTrace.hpp"
#include "training/TrainingSimulation.hpp"

namespace ts {

struct SimulationSpans {
  std::vector<std::string> track_names;
  std::vector<TraceSpan> spans;
};

// Track names of the pipeline's streams come from `pipeline_track_names` (SimulationJson.hpp);
// the tracks after them are named here: per stage "stage N tensor-parallel collectives" and
// "stage N gradients and optimizer", then per stage "stage N host (CPU)".
SimulationSpans simulation_spans(const TrainingSimulation& result,
                                 const std::vector<std::string>& pipeline_track_names);

}  // namespace ts
