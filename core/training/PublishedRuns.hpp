#pragma once
// Published training runs to check the simulator against (`kind: dist-validation` files): a
// cluster, and per run a model, a strategy, the measured iteration time and, where published,
// the memory per GPU.
#include <string>
#include <vector>

#include "common/InputError.hpp"

namespace ts {

struct PublishedRun {
  std::string model_file, strategy_file;  // resolved against the validation file
  double iteration_s = 0;
  // Published memory per GPU, in bytes, where the source gives it (0: not published): model
  // state (parameters, gradients, optimizer state) and activations.
  double model_state_bytes = 0, activation_bytes = 0;
  SourceLocation where;
};

struct PublishedRuns {
  std::string name;
  std::string file;
  std::string cluster_file;
  std::vector<PublishedRun> runs;
};

PublishedRuns load_published_runs(const std::string& path);
PublishedRuns parse_published_runs(const std::string& text, const std::string& file_name);

}  // namespace ts
