// `tilescope validate-dist [FILE] [--format json]`: published training runs (by default Table 5
// of Korthikanti et al. 2022) against what the simulator predicts for them.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "Commands.hpp"
#include "training/ModelState.hpp"
#include "training/PublishedRuns.hpp"
#include "training/TrainingSimulation.hpp"

namespace ts::cli {
namespace {

struct ValidateDistArgs {
  std::string file =
      std::string(TILESCOPE_SOURCE_DIR) + "/samples/dist/validation/korthikanti-table5.yaml";
  std::string format = "table";
  std::string operator_times = "tile";
};

int run_validate_dist(const ValidateDistArgs& a) {
  const PublishedRuns runs = load_published_runs(a.file);
  const Cluster cluster = load_cluster(runs.cluster_file);
  const OperatorTimeSource times = parse_operator_time_source(a.operator_times);
  nlohmann::json rows = nlohmann::json::array();
  double sum = 0, worst = 0;
  // Memory per GPU against what the source publishes, one component at a time.
  struct MemoryRow {
    std::string model, strategy, component;
    double predicted = 0, published = 0;
  };
  std::vector<MemoryRow> memory;
  double memory_worst = 0;
  if (a.format == "table")
    std::cout << fmt::format("{} on {}\n{:<12} {:<22} {:>12} {:>12} {:>9}\n", runs.name,
                             cluster.name, "model", "strategy", "predicted_s", "published_s",
                             "error");
  for (const PublishedRun& run : runs.runs) {
    const TransformerModel model = load_transformer_model(run.model_file);
    const ParallelStrategy strategy = load_parallel_strategy(run.strategy_file);
    const TrainingSimulation r = simulate_training(model, strategy, cluster, times);
    const double error = r.iteration_s / run.iteration_s - 1;
    sum += std::abs(error);
    worst = std::max(worst, std::abs(error));
    nlohmann::json row{{"model", model.name},
                       {"strategy", strategy.name},
                       {"predicted_s", r.iteration_s},
                       {"published_s", run.iteration_s},
                       {"error", error}};
    const double gib = 1024.0 * 1024 * 1024;
    // The paper's parameter component counts the transformer layers a GPU holds, without the
    // embedding: the state of a GPU of a middle pipeline stage.
    const double layers_state =
        model_state_per_gpu(model, strategy, PipelineStage::middle).total_bytes();
    for (const auto& [component, predicted, published] :
         {std::tuple{"model_state", layers_state, run.model_state_bytes},
          std::tuple{"activations", r.activation_bytes, run.activation_bytes}}) {
      if (published <= 0) continue;
      const double e = predicted / published - 1;
      memory_worst = std::max(memory_worst, std::abs(e));
      memory.push_back({model.name, strategy.name, component, predicted, published});
      row[std::string(component) + "_gib"] = {
          {"predicted", predicted / gib}, {"published", published / gib}, {"error", e}};
    }
    rows.push_back(row);
    if (a.format == "table")
      std::cout << fmt::format("{:<12} {:<22} {:>12.3f} {:>12.3f} {:>+8.1f}%\n", model.name,
                               strategy.name, r.iteration_s, run.iteration_s, error * 100);
  }
  const double mean = runs.runs.empty() ? 0 : sum / static_cast<double>(runs.runs.size());
  if (a.format == "json") {
    nlohmann::json j{{"schema_version", 1},
                     {"name", runs.name},
                     {"cluster", cluster.name},
                     {"runs", rows},
                     {"mean_abs_error", mean},
                     {"worst_abs_error", worst},
                     {"memory_worst_abs_error", memory_worst}};
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format("mean absolute error {:.1f} %, worst {:.1f} %\n", mean * 100,
                             worst * 100);
    if (!memory.empty()) {
      const double gib = 1024.0 * 1024 * 1024;
      std::cout << fmt::format("\nmemory per GPU (GiB)\n{:<12} {:<22} {:<12} {:>9} {:>9} {:>9}\n",
                               "model", "strategy", "component", "predicted", "published", "error");
      for (const MemoryRow& m : memory)
        std::cout << fmt::format("{:<12} {:<22} {:<12} {:>9.2f} {:>9.2f} {:>+8.1f}%\n", m.model,
                                 m.strategy, m.component, m.predicted / gib, m.published / gib,
                                 (m.predicted / m.published - 1) * 100);
      std::cout << fmt::format("memory: worst error {:.1f} %\n", memory_worst * 100);
    }
  }
  return 0;
}

}  // namespace

CommandAction add_validate_dist(CLI::App& app) {
  auto args = std::make_shared<ValidateDistArgs>();
  CLI::App* cmd = app.add_subcommand("validate-dist",
                                     "Published training runs against the simulator's predictions");
  cmd->add_option("file", args->file, "runs to check (kind: dist-validation); default Table 5");
  cmd->add_option("--operator-times", args->operator_times,
                  "tile, roofline:EFF or db:FILE, as simulate");
  cmd->add_option("--format", args->format, "output format")
      ->check(CLI::IsMember({"table", "json"}));
  return [args] { return run_validate_dist(*args); };
}

}  // namespace ts::cli
