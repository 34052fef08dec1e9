#include "report/WorkloadPrediction.hpp"

#include "analysis/MappingWriter.hpp"

namespace ts {

SuitePrediction predict_operators(const std::vector<const Operator*>& operators,
                                  const ArchitectureGraph& graph,
                                  const OperatorPredictionOptions& options,
                                  const PredictionProgress& progress,
                                  std::vector<MappingProgram>* programs) {
  SuitePrediction suite;
  suite.operators.reserve(operators.size());
  for (const Operator* op : operators) {
    if (progress) progress(suite.operators.size(), operators.size(), *op);
    MappingProgram program;
    suite.operators.push_back(predict_operator(*op, graph, options, &program));
    suite.unconverged.note(suite.operators.back());
    if (programs) programs->push_back(std::move(program));
  }
  return suite;
}

SuitePrediction predict_workload(const Workload& workload, const ArchitectureGraph& graph,
                                 const OperatorPredictionOptions& options,
                                 const PredictionProgress& progress,
                                 std::vector<std::string>* mappings) {
  std::vector<const Operator*> operators;
  for (const Operator& op : workload.operators) operators.push_back(&op);
  if (!mappings) return predict_operators(operators, graph, options, progress);
  std::vector<MappingProgram> programs;
  SuitePrediction suite = predict_operators(operators, graph, options, progress, &programs);
  for (size_t i = 0; i < programs.size(); ++i)
    mappings->push_back(mapping_yaml(programs[i], operators[i]->name, "the mapper's choice"));
  return suite;
}

}  // namespace ts
