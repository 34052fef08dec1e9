#pragma once
// Published training runs against the simulator (`tilescope validate-dist`): each run's
// iteration time and, where the source publishes them, its memory per GPU, predicted and
// published, with the relative errors.
#include <string>
#include <vector>

#include "training/Cluster.hpp"
#include "training/LayerTimes.hpp"
#include "training/PublishedRuns.hpp"

namespace ts {

// One component of a GPU's memory ("model_state", "activations") against the published figure.
struct MemoryCheck {
  std::string component;
  double predicted_bytes = 0, published_bytes = 0;
  double error = 0;  // predicted / published - 1
};

struct PublishedRunCheck {
  std::string model, strategy;  // their names
  double predicted_s = 0, published_s = 0;
  double error = 0;                 // predicted / published - 1
  std::vector<MemoryCheck> memory;  // the components the source publishes
};

struct DistValidation {
  std::string name;     // of the validation file
  std::string cluster;  // its name
  std::vector<PublishedRunCheck> runs;
  double mean_abs_error = 0, worst_abs_error = 0;  // of the iteration times
  double memory_worst_abs_error = 0;
};

// Simulates one published run on the cluster. The published model state counts the
// transformer layers a GPU holds without the embedding (Korthikanti et al. 2022), so it is
// compared with a middle pipeline stage's state.
PublishedRunCheck check_published_run(const PublishedRun& run, const Cluster& cluster,
                                      const OperatorTimeSource& times);

// The runs' mean and worst errors, filled in from `validation.runs`.
void summarize_dist_validation(DistValidation& validation);

}  // namespace ts
