#include "mapper/OperatorPrediction.hpp"

#include <fmt/format.h>

#include <optional>

#include "common/ByteFormat.hpp"

namespace ts {

MapperCancelled::MapperCancelled(uint64_t evaluations_made, double space, uint64_t budget_given)
    : std::runtime_error(fmt::format("the mapper was cancelled after {} of at most {} evaluations",
                                     evaluations_made, budget_given)),
      evaluations(evaluations_made),
      space_size(space),
      budget(budget_given) {}

MappingProgram resolve_mapping(const Operator& op, const ArchitectureGraph& graph,
                               const OperatorPredictionOptions& options, std::string* origin,
                               SearchSummary* summary) {
  Mapping tmpl;
  bool from_file = options.mapping != nullptr;
  if (from_file) {
    if (!options.mapping->has_free_factors()) {
      if (origin) *origin = "file";
      return compile_mapping(*options.mapping, op, graph, false);
    }
    tmpl = instantiate_template(*options.mapping, op);
  } else {
    tmpl = default_template(op, graph);
  }
  MappingProgram program = compile_mapping(tmpl, op, graph, true);
  // Whatever the factors, the root holds whole tensors: say so rather than search in vain.
  const ProgramNode& root = program.nodes.front();
  double whole = 0;
  for (int t = 0; t < program.ntensors; ++t)
    if (root.buffer[t] == root.memory) whole += program.tensor_bytes[t];
  const ArchNode& root_memory = graph.node(root.memory);
  if (whole > root_memory.capacity_bytes)
    throw InputError(
        op.where,
        fmt::format("operator '{}' ({}){} needs {} for its tensors but {}, the "
                    "outermost memory of '{}', holds {}",
                    op.name, op.shape_text(), op.sized_by.empty() ? "" : " " + op.sized_by + ",",
                    format_bytes(whole), root_memory.name, graph.name,
                    format_bytes(root_memory.capacity_bytes)));
  MapperOptions mapper = options.mapper;
  std::optional<MappingProgram> start;
  if (options.start) try {
      start = compile_mapping(*options.start, op, graph, false);
      mapper.start = &*start;
    } catch (const InputError&) {
      // A start that names what the edited graph lacks is no start: search from scratch.
    }
  MapperResult result = search_mapping(program, mapper);
  if (result.cancelled)
    throw MapperCancelled(result.evaluations, result.space_size, options.mapper.budget);
  if (!result.found)
    throw InputError(
        SourceLocation{tmpl.source_file, tmpl.root.where.line, tmpl.root.where.column},
        fmt::format("the mapper found no valid mapping for '{}' ({}) on '{}' in {} "
                    "evaluations of a {:.3g}-point space from template '{}' (every "
                    "point it tried overflows a memory; a larger mapper budget may help)",
                    op.name, op.shape_text(), graph.name, result.evaluations, result.space_size,
                    tmpl.name));
  if (origin) *origin = from_file ? "mapper (file template)" : "mapper";
  if (summary)
    *summary = SearchSummary{true, result.converged, result.evaluations, result.space_size};
  return std::move(result.program);
}

Prediction predict_operator(const Operator& op, const ArchitectureGraph& graph,
                            const OperatorPredictionOptions& options, MappingProgram* resolved) {
  std::string origin;
  SearchSummary search;
  MappingProgram program = resolve_mapping(op, graph, options, &origin, &search);
  Evaluation eval;
  evaluate(program, eval);
  throw_if_invalid(program, eval);
  Prediction p = make_prediction(program, eval);
  p.mapping_origin = origin;
  p.searched = search.searched;
  p.search_converged = search.converged;
  p.search_evaluations = search.evaluations;
  if (resolved) *resolved = std::move(program);
  return p;
}

}  // namespace ts
