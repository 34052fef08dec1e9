#include "report/WorkloadPrediction.hpp"

namespace ts {

std::vector<Prediction> predict_operators(const std::vector<const Operator*>& operators,
                                          const ArchitectureGraph& graph,
                                          const OperatorPredictionOptions& options,
                                          const PredictionProgress& progress,
                                          std::vector<MappingProgram>* programs) {
  std::vector<Prediction> rows;
  rows.reserve(operators.size());
  for (const Operator* op : operators) {
    if (progress) progress(rows.size(), operators.size(), *op);
    MappingProgram program;
    rows.push_back(predict_operator(*op, graph, options, &program));
    if (programs) programs->push_back(std::move(program));
  }
  return rows;
}

std::vector<Prediction> predict_workload(const Workload& workload, const ArchitectureGraph& graph,
                                         const OperatorPredictionOptions& options,
                                         const PredictionProgress& progress) {
  std::vector<const Operator*> operators;
  for (const Operator& op : workload.operators) operators.push_back(&op);
  return predict_operators(operators, graph, options, progress);
}

}  // namespace ts
