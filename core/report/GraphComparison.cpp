#include "report/GraphComparison.hpp"

#include <fmt/format.h>

#include <mutex>

#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "common/WorkThreads.hpp"
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

  std::vector<ComparedGraph> compared(graphs.size());
  std::vector<std::vector<std::string>> mappings(graphs.size());
  const size_t total = workload.operators.size() * graphs.size();
  // The graphs are predicted at once, and each graph's operators too (predict_workload), so
  // that the last few operators of one graph do not leave threads idle. Progress counts the
  // operators done on every graph, one call at a time.
  std::mutex lock;
  std::vector<size_t> done_on(graphs.size(), 0);
  for_each_item(graphs.size(), [&](size_t g) {
    PredictionProgress on_operator;
    if (progress)
      on_operator = [&, g](size_t done, size_t, const Operator& next) {
        const std::lock_guard<std::mutex> hold(lock);
        done_on[g] = done;
        size_t all = 0;
        for (size_t d : done_on) all += d;
        progress(g, all, total, loaded[g].name, next.name);
      };
    compared[g] = ComparedGraph{
        "",
        loaded[g].name,
        graphs[g].source,
        predict_workload(workload, loaded[g], options, on_operator, &mappings[g]).operators,
        {},
        {}};
  });
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
