#include "report/GraphComparison.hpp"

#include <fmt/format.h>

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

  std::vector<ComparedGraph> compared;
  std::vector<std::vector<std::string>> mappings(graphs.size());
  const size_t total = workload.operators.size() * graphs.size();
  for (size_t g = 0; g < graphs.size(); ++g) {
    PredictionProgress on_operator;
    if (progress)
      on_operator = [&, g](size_t done, size_t, const Operator& next) {
        progress(g, g * workload.operators.size() + done, total, loaded[g].name, next.name);
      };
    compared.push_back(ComparedGraph{
        "",
        loaded[g].name,
        graphs[g].source,
        predict_workload(workload, loaded[g], options, on_operator, &mappings[g]).operators,
        {}});
  }
  // Each graph also tries the mappings the others' searches found, so that a graph that
  // dominates another is never predicted slower because of where its search ended.
  std::vector<const ArchitectureGraph*> graph_ptrs;
  std::vector<std::vector<Prediction>*> predictions;
  for (size_t g = 0; g < graphs.size(); ++g) {
    graph_ptrs.push_back(&loaded[g]);
    predictions.push_back(&compared[g].predictions);
  }
  exchange_suite_mappings(workload.operators, graph_ptrs, predictions, mappings);
  return compare_architectures(workload.name, std::move(compared));
}

}  // namespace ts
