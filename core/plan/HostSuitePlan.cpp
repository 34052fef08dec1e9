#include "plan/HostSuitePlan.hpp"

#include <fmt/format.h>

#include "analysis/MappingWriter.hpp"
#include "analysis/Prediction.hpp"
#include "analysis/TileAnalysis.hpp"
#include "mapper/MappingSet.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/PredictionRecordOf.hpp"

namespace ts {

HostSuite host_suite(const Workload& workload, const ArchitectureGraph& graph,
                     const HostSuiteOptions& options,
                     const std::function<void(size_t, size_t, const Operator&)>& on_operator) {
  HostSuite suite;
  suite.arch_hash = hash_text(graph.content_hash());
  for (size_t i = 0; i < workload.operators.size(); ++i) {
    const Operator& op = workload.operators[i];
    if (on_operator) on_operator(i, workload.operators.size(), op);
    // The host collector's kernels are the tiled GEMM, OpenBLAS and the vector steps: a linear
    // layer (GEMM with a bias epilogue) has none, and is left out rather than fail the run.
    if (op.type == OperatorType::linear) {
      suite.notes.push_back(fmt::format(
          "{}: a linear layer (GEMM with its bias) has no host kernel; measure it as a gemm",
          op.name));
      continue;
    }
    const OperatorKey key = operator_key(op, workload.name);
    const std::string dtype(to_string(op.primary_dtype()));
    if (is_gemm(op)) {
      std::vector<NamedProgram> programs;
      if (auto it = options.given_mappings.find(op.name); it != options.given_mappings.end()) {
        for (const Mapping& m : it->second) {
          OperatorPredictionOptions o;
          o.mapping = &m;
          o.mapper = options.mapper;
          programs.push_back({m.name, resolve_mapping(op, graph, o)});
        }
      } else {
        programs =
            suite_mappings(op, graph, options.mappings_per_gemm, options.seed, options.mapper);
      }
      for (NamedProgram& np : programs) {
        SuiteEntry e;
        fill_mapped_entry(e, op, key, "tiled", dtype, np.program, np.name, graph);
        e.program = std::move(np.program);
        suite.entries.push_back(std::move(e));
      }
      if (!options.openblas) continue;
    }
    // A black box (OpenBLAS) or the vector kernels: the mapper's choice is the prediction.
    MappingProgram chosen;
    OperatorPredictionOptions o;
    o.mapper = options.mapper;
    const Prediction p = predict_operator(op, graph, o, &chosen);
    SuiteEntry e;
    e.op = op;
    e.key = key;
    e.implementation = is_gemm(op) ? "openblas" : "vector";
    e.dtype = dtype;
    e.prediction = prediction_record(p, key, std::nullopt, graph,
                                     mapping_yaml(chosen, op.name + "-mapper", ""));
    suite.entries.push_back(std::move(e));
  }
  return suite;
}

}  // namespace ts
