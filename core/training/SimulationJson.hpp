#pragma once
// The simulator's output formats, defined here and nowhere else: what `tilescope simulate`
// prints with `--format json` and writes with `--out` (the summary, and the pipeline's run as a
// Chrome trace whose track names SimulationTimeline reads back), what `simulate --sweep --format
// json` prints, and what `validate-dist --format json` prints. Each carries schema_version 1.
#include <cstdint>
#include <string>
#include <vector>

#include "training/Cluster.hpp"
#include "training/DistValidation.hpp"
#include "training/ParallelStrategy.hpp"
#include "training/StrategySweep.hpp"
#include "training/TaskGraph.hpp"
#include "training/TrainingSimulation.hpp"
#include "training/TransformerModel.hpp"

namespace ts {

// Track names of the pipeline's run, in the order of its streams (PipelineOrder.hpp): a compute
// stream per stage, then per stage a link for activations and one for gradients; and a memory
// counter per stage.
std::string stage_compute_track_name(int64_t stage);               // "stage 0 compute"
std::string stage_link_track_name(int64_t stage, bool gradients);  // "link from stage 0 (...)"
std::string stage_memory_track_name(int64_t stage);                // "memory stage 0"
std::vector<std::string> pipeline_track_names(const TaskGraph& pipeline, int64_t stages);
// A track that carries transfers between pipeline stages (named by stage_link_track_name).
bool is_link_track(const std::string& name);

// The pipeline's run as Chrome-trace JSON (`simulate --timeline`): named tracks, and each
// stage's memory as a counter.
std::string simulation_trace_json(const TrainingSimulation& result, int64_t stages);

// `simulate --format json`: schema_version, model, strategy, cluster, gpus and the summary,
// indented by two spaces.
std::string simulation_summary_json(const TransformerModel& model, const ParallelStrategy& strategy,
                                    const Cluster& cluster, const TrainingSimulation& result);

// `simulate --out`: the trace as simulation_trace_json writes it (a Chrome trace object, which
// Perfetto opens) with the summary's fields beside its traceEvents (schema_version 2), on one
// line.
std::string simulation_file_json(const TransformerModel& model, const ParallelStrategy& strategy,
                                 const Cluster& cluster, const TrainingSimulation& result,
                                 const std::string& trace_json);

// `simulate --sweep --format json`: the ranked points, indented by two spaces.
std::string sweep_json(const TransformerModel& model, const std::vector<SweepPoint>& points);

// `validate-dist --format json`, indented by two spaces.
std::string dist_validation_json(const DistValidation& validation);

}  // namespace ts
