#include "training/SimulationSpans.hpp"

#include <algorithm>

namespace ts {

namespace {

// A step's layers in the order it runs them (the backward from the last), each in an equal
// slot of the step as it ran, with its collectives at the slot's end for their share of the
// step (stretched as the step was, by interference or the host).
void add_collective_spans(std::vector<TraceSpan>& spans, int64_t track, const TraceSpan& step,
                          const StepContents& c, int64_t first_layer, bool backward,
                          int64_t micro_batch) {
  if (c.collective_s_per_layer <= 0 || c.layers <= 0 || c.alone_s <= 0) return;
  const auto layers = static_cast<int64_t>(c.layers);
  const double slot = step.duration_s / c.layers;
  const double stretch = step.duration_s / c.alone_s;
  const double length = std::min(slot, c.collective_s_per_layer * stretch);
  for (int64_t j = 0; j < layers; ++j) {
    const int64_t layer = first_layer + (backward ? layers - 1 - j : j);
    const double end = step.start_s + static_cast<double>(j + 1) * slot;
    spans.push_back({track,
                     std::string("tensor-parallel all-reduce ") + (backward ? "B" : "F") +
                         " layer " + std::to_string(layer) + " mb" + std::to_string(micro_batch),
                     "collective",
                     end - length,
                     length,
                     {{"layer", static_cast<double>(layer)},
                      {"micro_batch", static_cast<double>(micro_batch)},
                      {"collectives", c.collectives_per_layer},
                      {"bytes", c.collective_bytes_per_layer}}});
  }
}

}  // namespace

SimulationSpans simulation_spans(const TrainingSimulation& r,
                                 const std::vector<std::string>& pipeline_names) {
  SimulationSpans out;
  const TaskGraph& g = r.pipeline;
  const auto stages = static_cast<int64_t>(r.schedule.size());
  out.track_names = pipeline_names;
  out.track_names.resize(static_cast<size_t>(g.streams));
  std::vector<std::string> categories(static_cast<size_t>(g.streams), "pipeline transfer");
  for (int64_t st = 0; st < stages && st < g.streams; ++st)
    categories[static_cast<size_t>(st)] = "";
  const int64_t first_extra = g.streams;
  for (int64_t st = 0; st < stages; ++st) {
    out.track_names.push_back("stage " + std::to_string(st) + " tensor-parallel collectives");
    out.track_names.push_back("stage " + std::to_string(st) + " gradients and optimizer");
  }
  // The pipeline's transfers as they ran; its compute steps with what each holds.
  for (TraceSpan& span : task_spans(g, r.pipeline_times, categories))
    if (span.track >= stages) out.spans.push_back(std::move(span));
  for (int64_t st = 0; st < stages && st < g.streams; ++st) {
    const auto& ids = g.order[static_cast<size_t>(st)];
    const auto& steps = r.schedule[static_cast<size_t>(st)];
    for (size_t k = 0; k < ids.size() && k < steps.size(); ++k) {
      const auto id = static_cast<size_t>(ids[k]);
      const PipelineStep& step = steps[k];
      const bool backward = step.kind == PassKind::backward;
      const StepContents& c = backward ? r.backward_step : r.forward_step;
      const int64_t virtual_stage = step.chunk * stages + st;
      const auto first_layer = static_cast<int64_t>(static_cast<double>(virtual_stage) * c.layers);
      TraceSpan span{st,
                     g.tasks[id].label,
                     backward ? "backward" : "forward",
                     r.pipeline_times.start_s[id],
                     r.pipeline_times.end_s[id] - r.pipeline_times.start_s[id],
                     {{"stage", static_cast<double>(st)},
                      {"micro_batch", static_cast<double>(step.micro_batch)},
                      {"chunk", static_cast<double>(step.chunk)},
                      {"first_layer", static_cast<double>(first_layer)},
                      {"layers", c.layers},
                      {"matmul_flops", c.matmul_flops},
                      {"tensor_parallel_bytes", c.layers * c.collective_bytes_per_layer}}};
      add_collective_spans(out.spans, first_extra + 2 * st, span, c, first_layer, backward,
                           step.micro_batch);
      out.spans.push_back(std::move(span));
    }
  }
  // Per stage its host: when it issued each step's kernels (HostTimeline.hpp). A host that
  // issues the whole step while its GPU waits is the host-bound case.
  const int64_t first_host = first_extra + 2 * stages;
  for (int64_t st = 0; st < stages; ++st)
    out.track_names.push_back("stage " + std::to_string(st) + " host (CPU)");
  for (int64_t st = 0; st < stages && st < static_cast<int64_t>(r.host_issue.size()); ++st) {
    const auto& issues = r.host_issue[static_cast<size_t>(st)];
    const auto& steps = r.schedule[static_cast<size_t>(st)];
    for (size_t k = 0; k < issues.size() && k < steps.size(); ++k) {
      const PipelineStep& step = steps[k];
      out.spans.push_back({first_host + st,
                           std::string("issue ") + (step.kind == PassKind::backward ? "B" : "F") +
                               " mb" + std::to_string(step.micro_batch) + " c" +
                               std::to_string(step.chunk),
                           "host",
                           issues[k].start_s,
                           issues[k].end_s - issues[k].start_s,
                           {{"stage", static_cast<double>(st)},
                            {"micro_batch", static_cast<double>(step.micro_batch)}}});
    }
  }
  // After the pipeline (every stage at once, the replicas being alike): the gradient
  // all-reduce, its hidden part ending with the pipeline, then the optimizer step.
  const double optimizer_start = r.iteration_s - r.optimizer_s;
  const double syncs_start = optimizer_start - r.grad_sync_s;
  const double exposed = r.data_parallel_s - r.data_parallel_hidden_s;
  for (int64_t st = 0; st < stages; ++st) {
    const int64_t track = first_extra + 2 * st + 1;
    if (r.data_parallel_s > 0)
      out.spans.push_back({track,
                           "data-parallel all-reduce s" + std::to_string(st),
                           "collective",
                           syncs_start - exposed - r.data_parallel_hidden_s,
                           r.data_parallel_s,
                           {{"bytes", r.gradient_bytes}, {"hidden_s", r.data_parallel_hidden_s}}});
    if (r.grad_sync_s > 0)
      out.spans.push_back({track,
                           "norm and embedding gradient all-reduce s" + std::to_string(st),
                           "collective",
                           syncs_start,
                           r.grad_sync_s,
                           {}});
    if (r.optimizer_host_s > 0)
      out.spans.push_back({first_host + st,
                           "issue optimizer step",
                           "host",
                           optimizer_start,
                           r.optimizer_host_s,
                           {{"stage", static_cast<double>(st)}}});
    if (r.optimizer_s > 0)
      out.spans.push_back({track,
                           "optimizer step s" + std::to_string(st),
                           "optimizer",
                           optimizer_start,
                           r.optimizer_s,
                           {{"bytes", 2 * r.model_state_bytes}}});
  }
  return out;
}

}  // namespace ts
