#include "plan/SuiteEntry.hpp"

#include "analysis/Prediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/PredictionRecordOf.hpp"

namespace ts {

void fill_mapped_entry(SuiteEntry& entry, const Operator& op, const OperatorKey& key,
                       std::string implementation, std::string dtype, const MappingProgram& program,
                       const std::string& mapping_name, const ArchitectureGraph& graph) {
  const AnalysisResult result = analyse(program);
  throw_if_invalid(program, result);
  entry.op = op;
  entry.key = key;
  entry.implementation = std::move(implementation);
  entry.dtype = std::move(dtype);
  entry.mapping = mapping_record(program, mapping_name);
  entry.prediction =
      prediction_record(make_prediction(program, result), key, entry.mapping, graph, "");
}

}  // namespace ts
