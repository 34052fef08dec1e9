#include "report/WorkloadPrediction.hpp"

#include <mutex>

#include "analysis/MappingWriter.hpp"
#include "common/WorkThreads.hpp"

namespace ts {

SuitePrediction predict_operators(const std::vector<const Operator*>& operators,
                                  const ArchitectureGraph& graph,
                                  const OperatorPredictionOptions& options,
                                  const PredictionProgress& progress,
                                  std::vector<MappingProgram>* programs) {
  const size_t total = operators.size();
  SuitePrediction suite;
  suite.operators.resize(total);
  std::vector<MappingProgram> resolved(programs ? total : 0);
  std::mutex lock;  // the progress calls, one at a time
  size_t done = 0;
  // Operators are independent: each writes its own row.
  for_each_item(total, [&](size_t i) {
    if (options.mapper.cancel && options.mapper.cancel->load())
      throw MapperCancelled(0, 0, options.mapper.budget);
    if (progress) {
      const std::lock_guard<std::mutex> hold(lock);
      progress(done, total, *operators[i]);
    }
    suite.operators[i] =
        predict_operator(*operators[i], graph, options, programs ? &resolved[i] : nullptr);
    const std::lock_guard<std::mutex> hold(lock);
    ++done;
  });
  for (const Prediction& p : suite.operators) suite.unconverged.note(p);
  if (programs)
    for (MappingProgram& p : resolved) programs->push_back(std::move(p));
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
