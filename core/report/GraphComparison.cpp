#include "report/GraphComparison.hpp"

#include <fmt/format.h>

#include "analysis/MappingWriter.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "mapper/MappingExchange.hpp"
#include "report/WorkloadPrediction.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts {

ArchitectureComparison compare_graph_files(const std::vector<ComparisonGraphFile>& graphs,
                                           const std::string& workload_file,
                                           const OperatorPredictionOptions& options,
                                           const SourceLocation& graphs_where,
                                           const ComparisonProgress& progress) {
  if (graphs.size() < 2)
    throw InputError(
        graphs_where,
        fmt::format("a comparison needs two architecture graphs or more, {} given", graphs.size()));
  std::vector<ArchitectureGraph> loaded;
  for (const ComparisonGraphFile& g : graphs) loaded.push_back(load_architecture(g.file));
  const Workload workload = load_workload(workload_file);

  std::vector<const Operator*> operators;
  for (const Operator& op : workload.operators) operators.push_back(&op);
  std::vector<ComparedGraph> compared;
  std::vector<std::vector<OperatorOnGraph>> found(graphs.size());
  const size_t total = workload.operators.size() * graphs.size();
  for (size_t g = 0; g < graphs.size(); ++g) {
    PredictionProgress on_operator;
    if (progress)
      on_operator = [&, g](size_t done, size_t, const Operator& next) {
        progress(g, g * workload.operators.size() + done, total, loaded[g].name, next.name);
      };
    std::vector<MappingProgram> programs;
    SuitePrediction suite =
        predict_operators(operators, loaded[g], options, on_operator, &programs);
    for (size_t i = 0; i < operators.size(); ++i)
      found[g].push_back(
          OperatorOnGraph{true, suite.operators[i],
                          mapping_yaml(programs[i], operators[i]->name, "the mapper's choice")});
    compared.push_back(ComparedGraph{"", loaded[g].name, graphs[g].source, {}, {}});
  }
  // Each graph also tries the mappings the others' searches found, so that a graph that
  // dominates another is never predicted slower because of where its search ended.
  std::vector<const ArchitectureGraph*> graph_ptrs;
  for (const ArchitectureGraph& g : loaded) graph_ptrs.push_back(&g);
  for (size_t i = 0; i < operators.size(); ++i) {
    std::vector<OperatorOnGraph*> on;
    for (auto& per_graph : found) on.push_back(&per_graph[i]);
    exchange_best_mappings(*operators[i], graph_ptrs, on);
  }
  for (size_t g = 0; g < graphs.size(); ++g)
    for (OperatorOnGraph& o : found[g]) compared[g].predictions.push_back(std::move(o.prediction));
  return compare_architectures(workload.name, std::move(compared));
}

}  // namespace ts
