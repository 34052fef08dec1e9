// `tilescope validate-dist [FILE] [--format json]`: published training runs (by default Table 5
// of Korthikanti et al. 2022) against what the simulator predicts for them.
#include "ValidateDistCommand.hpp"

#include <fmt/format.h>

#include <iostream>

#include "OptionValues.hpp"
#include "common/DataDirectory.hpp"
#include "common/QuantityFormat.hpp"
#include "training/DistValidation.hpp"
#include "training/SimulationJson.hpp"

namespace ts::cli {
namespace {}  // namespace

int run_validate_dist(const ValidateDistOptions& a) {
  const PublishedRuns runs = load_published_runs(bundled_file(a.file).string());
  const Cluster cluster = load_cluster(runs.cluster_file);
  const OperatorTimeSource times = operator_times(a.operator_times);
  DistValidation v;
  v.name = runs.name;
  v.cluster = cluster.name;
  if (a.format == "table")
    std::cout << fmt::format("{} on {}\n{:<12} {:<22} {:>12} {:>12} {:>9}\n", runs.name,
                             cluster.name, "model", "strategy", "predicted_s", "published_s",
                             "error");
  for (const PublishedRun& run : runs.runs) {
    const PublishedRunCheck& c = v.runs.emplace_back(check_published_run(run, cluster, times));
    if (a.format == "table")
      std::cout << fmt::format("{:<12} {:<22} {:>12.3f} {:>12.3f} {:>9}\n", c.model, c.strategy,
                               c.predicted_s, c.published_s, format_signed_percent(c.error));
  }
  summarize_dist_validation(v);
  if (a.format == "json") {
    std::cout << dist_validation_json(v) << "\n";
    return 0;
  }
  std::cout << fmt::format("mean absolute error {:.1f} %, worst {:.1f} %\n", v.mean_abs_error * 100,
                           v.worst_abs_error * 100);
  bool any_memory = false;
  for (const PublishedRunCheck& c : v.runs) any_memory = any_memory || !c.memory.empty();
  if (!any_memory) return 0;
  const double gib = 1024.0 * 1024 * 1024;
  std::cout << fmt::format("\nmemory per GPU (GiB)\n{:<12} {:<22} {:<12} {:>9} {:>9} {:>9}\n",
                           "model", "strategy", "component", "predicted", "published", "error");
  for (const PublishedRunCheck& c : v.runs)
    for (const MemoryCheck& m : c.memory)
      std::cout << fmt::format("{:<12} {:<22} {:<12} {:>9.2f} {:>9.2f} {:>9}\n", c.model,
                               c.strategy, m.component, m.predicted_bytes / gib,
                               m.published_bytes / gib, format_signed_percent(m.error));
  std::cout << fmt::format("memory: worst error {:.1f} %\n", v.memory_worst_abs_error * 100);
  return 0;
}

}  // namespace ts::cli
