#pragma once
// Names for the runs of one results database that tell them apart: runs imported from one
// benchmark file differ only by implementation or timing scope, and a label of workload and
// device alone would read the same for all of them. One function for every face (the GUI's Run
// box, `tilescope db runs`), so that a run is called the same everywhere.
#include <optional>
#include <string>
#include <vector>

#include "measure/MeasurementRecord.hpp"

namespace ts {

// One label per run, in the order given: the workload, then each of collector, implementation,
// timing scope, device and start time (to the minute) whose values differ between `runs`
// ("bert-base, cublas, timing host_call"). When none differs (one run, or repeats of one
// command) the device and collector say what the run is ("bert-base on H100, import:nsys").
// A field a run does not record is left out of its label. Without the run id, which the faces
// put in front.
std::vector<std::string> run_labels(const std::vector<RunInfo>& runs);

// The run a face opens first: one with at least one measurement, preferring (in this order) a
// run predicted on the graph `open_arch_hash` (empty: no graph open), a run with stored
// predictions at all (a device that names a graph, unlike an imported trace), a complete run,
// then the newest. None when no run holds a measurement.
std::optional<int64_t> most_interesting_run(const std::vector<RunInfo>& runs,
                                            const std::string& open_arch_hash);

}  // namespace ts
