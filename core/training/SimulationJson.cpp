#include "training/SimulationJson.hpp"

#include <nlohmann/json.hpp>

#include "training/ChromeTrace.hpp"
#include "training/SimulationSpans.hpp"

namespace ts {
namespace {

constexpr double kGib = 1024.0 * 1024 * 1024;
constexpr const char* kLinkTrackPrefix = "link from stage ";

nlohmann::json summary_json(const TransformerModel& model, const ParallelStrategy& strategy,
                            const Cluster& cluster, const TrainingSimulation& r) {
  nlohmann::json j;
  j["schema_version"] = 1;
  j["model"] = model.name;
  j["strategy"] = strategy.name;
  j["cluster"] = cluster.name;
  j["gpus"] = strategy.gpus();
  j["summary"] = {{"iteration_s", r.iteration_s},
                  {"tokens_per_s", r.tokens_per_s},
                  {"mfu", r.mfu},
                  {"hfu", r.hfu},
                  {"peak_tflops_per_gpu", r.peak_flops_per_gpu * 1e-12},
                  {"bubble_fraction", r.bubble_fraction},
                  {"model_state_gib_per_gpu", r.model_state_bytes / kGib},
                  {"activation_gib_per_gpu", r.activation_bytes / kGib},
                  {"peak_memory_gib_per_gpu", r.peak_memory_bytes / kGib},
                  {"device_memory_gib", r.device_memory_bytes / kGib},
                  {"out_of_memory", r.out_of_memory}};
  nlohmann::json parts = nlohmann::json::array();
  for (const TimeShare& t : r.breakdown) parts.push_back({{"what", t.what}, {"s", t.seconds}});
  j["summary"]["breakdown"] = parts;
  j["mapper_unconverged"] = r.unconverged.operators;
  return j;
}

}  // namespace

std::string stage_compute_track_name(int64_t stage) {
  return "stage " + std::to_string(stage) + " compute";
}

std::string stage_link_track_name(int64_t stage, bool gradients) {
  return kLinkTrackPrefix + std::to_string(stage) + (gradients ? " (gradients)" : " (activations)");
}

std::string stage_memory_track_name(int64_t stage) {
  return "memory stage " + std::to_string(stage);
}

std::vector<std::string> pipeline_track_names(const TaskGraph& g, int64_t stages) {
  std::vector<std::string> names;
  for (int s = 0; s < g.streams; ++s) {
    if (s < stages) {
      names.push_back(stage_compute_track_name(s));
    } else {
      const int64_t k = s - stages;
      names.push_back(stage_link_track_name(k / 2, k % 2 != 0));
    }
  }
  return names;
}

bool is_link_track(const std::string& name) { return name.rfind(kLinkTrackPrefix, 0) == 0; }

std::string simulation_trace_json(const TrainingSimulation& r, int64_t stages) {
  std::vector<CounterTrack> memory;
  for (size_t st = 0; st < r.stage_memory.size(); ++st)
    memory.push_back({stage_memory_track_name(static_cast<int64_t>(st)), r.stage_memory[st]});
  const SimulationSpans timeline = simulation_spans(r, pipeline_track_names(r.pipeline, stages));
  return chrome_trace_json("one data-parallel replica, a GPU per pipeline stage",
                           static_cast<int64_t>(timeline.track_names.size()), timeline.track_names,
                           timeline.spans, memory);
}

std::string simulation_summary_json(const TransformerModel& model, const ParallelStrategy& strategy,
                                    const Cluster& cluster, const TrainingSimulation& r) {
  return summary_json(model, strategy, cluster, r).dump(2);
}

std::string simulation_file_json(const TransformerModel& model, const ParallelStrategy& strategy,
                                 const Cluster& cluster, const TrainingSimulation& r,
                                 const std::string& trace_json) {
  // The file is a Chrome trace in its object form (traceEvents and displayTimeUnit at the top),
  // so that Perfetto and chrome://tracing open it as it is; the summary rides along as keys of
  // its own, which the trace viewers skip. (Schema 1 nested the trace under `timeline`: the
  // readers still take that.)
  nlohmann::json whole = nlohmann::json::parse(trace_json);
  const nlohmann::json summary = summary_json(model, strategy, cluster, r);
  for (const auto& [key, value] : summary.items()) whole[key] = value;
  whole["schema_version"] = 2;
  return whole.dump();
}

std::string sweep_json(const TransformerModel& model, const std::vector<SweepPoint>& points) {
  nlohmann::json rows = nlohmann::json::array();
  int64_t valid = 0;  // out-of-memory points are listed, not counted
  for (const SweepPoint& p : points) {
    if (!p.result.out_of_memory) ++valid;
    rows.push_back({{"tp", p.strategy.tp.value},
                    {"pp", p.strategy.pp.value},
                    {"dp", p.strategy.dp.value},
                    {"micro_batch", p.strategy.micro_batch.value},
                    {"iteration_s", p.result.iteration_s},
                    {"tokens_per_s", p.result.tokens_per_s},
                    {"mfu", p.result.mfu},
                    {"memory_gib", p.result.peak_memory_bytes / kGib},
                    {"out_of_memory", p.result.out_of_memory}});
  }
  return nlohmann::json{
      {"schema_version", 1}, {"model", model.name}, {"valid_points", valid}, {"sweep", rows}}
      .dump(2);
}

std::string dist_validation_json(const DistValidation& v) {
  nlohmann::json rows = nlohmann::json::array();
  for (const PublishedRunCheck& run : v.runs) {
    nlohmann::json row{{"model", run.model},
                       {"strategy", run.strategy},
                       {"predicted_s", run.predicted_s},
                       {"published_s", run.published_s},
                       {"error", run.error}};
    for (const MemoryCheck& m : run.memory)
      row[m.component + "_gib"] = {{"predicted", m.predicted_bytes / kGib},
                                   {"published", m.published_bytes / kGib},
                                   {"error", m.error}};
    rows.push_back(row);
  }
  return nlohmann::json{{"schema_version", 1},
                        {"name", v.name},
                        {"cluster", v.cluster},
                        {"runs", rows},
                        {"mean_abs_error", v.mean_abs_error},
                        {"worst_abs_error", v.worst_abs_error},
                        {"memory_worst_abs_error", v.memory_worst_abs_error}}
      .dump(2);
}

}  // namespace ts
