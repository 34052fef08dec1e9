#pragma once
// Published training runs to check the simulator against (`kind: dist-validation` files): a
// cluster, and per run a model, a strategy and the measured iteration time.
#include <string>
#include <vector>

#include "common/InputError.hpp"

namespace ts {

struct PublishedRun {
  std::string model_file, strategy_file;  // resolved against the validation file
  double iteration_s = 0;
  SourceLocation where;
};

struct PublishedRuns {
  std::string name;
  std::string file;
  std::string cluster_file;
  std::vector<PublishedRun> runs;
};

PublishedRuns load_published_runs(const std::string& path);

}  // namespace ts
