#include "plan/SuiteEntry.hpp"

#include "analysis/Prediction.hpp"
#include "analysis/TileAnalysis.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/PredictionRecordOf.hpp"

namespace ts {

void fill_mapped_entry(SuiteEntry& entry, const Operator& op, const OperatorKey& key,
                       std::string implementation, std::string dtype, const MappingProgram& program,
                       const std::string& mapping_name, const ArchitectureGraph& graph) {
  Evaluation eval;
  evaluate(program, eval);
  throw_if_invalid(program, eval);
  entry.op = op;
  entry.key = key;
  entry.implementation = std::move(implementation);
  entry.dtype = std::move(dtype);
  entry.mapping = mapping_record(program, mapping_name);
  entry.prediction =
      prediction_record(make_prediction(program, eval), key, entry.mapping, graph, "");
}

}  // namespace ts
