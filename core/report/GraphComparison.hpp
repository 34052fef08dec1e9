#pragma once
// A workload compared across architecture graph files: loads them and the workload, predicts
// every operator on each graph (predict_workload, as `predict` does) and builds the
// ArchitectureComparison. What `compare` and `report --compare` both run.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "mapper/OperatorPrediction.hpp"
#include "report/ArchitectureComparison.hpp"

namespace ts {

struct ComparisonGraphFile {
  std::string source;  // as the user named it (a file, or profile:NAME/VARIANT)
  std::string file;    // the architecture file it resolved to
};

// Called as each prediction starts, one call at a time but from any thread (the graphs are
// predicted at once): the graph's index, how many predictions are done of how many in all
// (operators x graphs), the graph's name and the operator that starts.
using ComparisonProgress =
    std::function<void(size_t graph, size_t done, size_t total, const std::string& graph_name,
                       const std::string& op_name)>;

// Every graph and the workload are loaded before any prediction, so that a bad file is found at
// once. Throws InputError for bad files, as the loaders and predict_operator do, and for fewer
// than two graphs (at `graphs_where`, e.g. the option that named them).
ArchitectureComparison compare_graph_files(const std::vector<ComparisonGraphFile>& graphs,
                                           const std::string& workload_file,
                                           const OperatorPredictionOptions& options,
                                           const SourceLocation& graphs_where,
                                           const ComparisonProgress& progress = {});

}  // namespace ts
