#pragma once
// `tilescope simulate --model M --strategy S --cluster C`: one training iteration, simulated;
// with --sweep, every valid strategy over the given axes, ranked.
#include <string>
#include <vector>

namespace ts::cli {

struct SimulateOptions {
  std::string model, strategy, cluster, format = "table", timeline, out, operator_times = "tile";
  std::vector<std::string> sweep;
  bool every_replica = false;
};

// 0, or 130 when a --sweep was interrupted (the ranking holds the strategies done).
int run_simulate(const SimulateOptions& options);

}  // namespace ts::cli
