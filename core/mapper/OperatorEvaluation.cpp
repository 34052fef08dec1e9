#include "mapper/OperatorEvaluation.hpp"

#include <exception>
#include <optional>

#include "analysis/MappingWriter.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "tile/MappingLoader.hpp"

namespace ts {
namespace {

OperatorOutcome outcome_of(const MappingProgram& program, const AnalysisResult& result,
                           std::string origin) {
  OperatorOutcome out;
  out.ok = true;
  out.prediction = make_prediction(program, result);
  out.prediction.mapping_origin = std::move(origin);
  out.device_bound = bound_text(*program.graph, result.bound);
  out.mapping_yaml = mapping_yaml(program, program.op->name, "tilescope-gui");
  return out;
}

}  // namespace

OperatorOutcome map_operator(const Operator& op, const ArchitectureGraph& graph,
                             const MapperOptions& options, const std::string& start_yaml) {
  try {
    OperatorPredictionOptions po;
    po.mapper = options;
    std::optional<Mapping> start;
    if (!start_yaml.empty()) {
      start = parse_mapping(start_yaml, op.name + " (current mapping)");
      po.start = &*start;
    }
    std::string origin;
    SearchSummary search;
    MappingProgram program = resolve_mapping(op, graph, po, &origin, &search);
    const AnalysisResult result = analyse(program);
    throw_if_invalid(program, result);
    // As predict_operator says it: a comparison passes on only what a search found, and notes a
    // search cut short by its budget.
    OperatorOutcome out = outcome_of(program, result, origin);
    out.prediction.searched = search.searched;
    out.prediction.search_converged = search.converged;
    out.prediction.search_evaluations = search.evaluations;
    return out;
  } catch (const MapperCancelled& e) {
    OperatorOutcome out;
    out.error = e.what();
    out.cancelled = true;
    out.mapper_evaluations = e.evaluations;
    out.mapper_space_size = e.space_size;
    return out;
  } catch (const std::exception& e) {
    OperatorOutcome out;
    out.error = e.what();
    return out;
  }
}

MappingEvaluation evaluate_mapping_text(const Operator& op, const ArchitectureGraph& graph,
                                        const std::string& mapping_yaml) {
  MappingEvaluation out;
  try {
    const Mapping mapping = parse_mapping(mapping_yaml, op.name + " (mapping)");
    out.program = std::make_unique<MappingProgram>(compile_mapping(mapping, op, graph, false));
  } catch (const std::exception& e) {
    out.error = e.what();
    return out;
  }
  out.result = analyse(*out.program);
  try {
    throw_if_invalid(*out.program, out.result);
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

OperatorOutcome evaluate_fixed_mapping(const Operator& op, const ArchitectureGraph& graph,
                                       const std::string& mapping_yaml) {
  MappingEvaluation m = evaluate_mapping_text(op, graph, mapping_yaml);
  if (!m.valid()) {
    OperatorOutcome out;
    out.error = m.error;
    out.mapping_yaml = mapping_yaml;
    return out;
  }
  OperatorOutcome out = outcome_of(*m.program, m.result, "fixed");
  out.mapping_yaml = mapping_yaml;  // the text replayed, not a rewrite of it
  return out;
}

}  // namespace ts
