#include "training/DistValidation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "training/ModelState.hpp"
#include "training/TrainingSimulation.hpp"

namespace ts {

PublishedRunCheck check_published_run(const PublishedRun& run, const Cluster& cluster,
                                      const OperatorTimeSource& times) {
  const TransformerModel model = load_transformer_model(run.model_file);
  const ParallelStrategy strategy = load_parallel_strategy(run.strategy_file);
  const TrainingSimulation r = simulate_training(model, strategy, cluster, times);
  PublishedRunCheck check;
  check.model = model.name;
  check.strategy = strategy.name;
  check.predicted_s = r.iteration_s;
  check.published_s = run.iteration_s;
  check.error = r.iteration_s / run.iteration_s - 1;
  const double layers_state =
      model_state_per_gpu(model, strategy, PipelineStage::middle).total_bytes();
  for (const auto& [component, predicted, published] :
       {std::tuple{"model_state", layers_state, run.model_state_bytes},
        std::tuple{"activations", r.activation_bytes, run.activation_bytes}}) {
    if (published <= 0) continue;
    check.memory.push_back({component, predicted, published, predicted / published - 1});
  }
  return check;
}

void summarize_dist_validation(DistValidation& v) {
  double sum = 0;
  v.worst_abs_error = 0;
  v.memory_worst_abs_error = 0;
  for (const PublishedRunCheck& run : v.runs) {
    sum += std::abs(run.error);
    v.worst_abs_error = std::max(v.worst_abs_error, std::abs(run.error));
    for (const MemoryCheck& m : run.memory)
      v.memory_worst_abs_error = std::max(v.memory_worst_abs_error, std::abs(m.error));
  }
  // No runs, no figure (NaN prints as n/a), never a 0 % that reads as perfect.
  v.mean_abs_error = v.runs.empty() ? std::numeric_limits<double>::quiet_NaN()
                                    : sum / static_cast<double>(v.runs.size());
}

}  // namespace ts
