#include "mapper/OperatorPrediction.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "analysis/MappingWriter.hpp"
#include "common/ByteFormat.hpp"
#include "mapper/BufferChoices.hpp"
#include "tile/MappingLoader.hpp"

namespace ts {

MapperCancelled::MapperCancelled(uint64_t evaluations_made, double space, uint64_t budget_given)
    : std::runtime_error(fmt::format("the mapper was cancelled after {} of at most {} evaluations",
                                     evaluations_made, budget_given)),
      evaluations(evaluations_made),
      space_size(space),
      budget(budget_given) {}

namespace {

bool compiles(const Mapping& tmpl, const Operator& op, const ArchitectureGraph& graph) {
  try {
    compile_mapping(buffer_choices(tmpl).front(), op, graph, true);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Names the stage at every op leaf of a pass, and drops the loops over dimensions that its stage
// does not use (the mapper of the stage alone may place them anywhere; in the whole operator a
// pass must not repeat over another stage's dimension).
// A tile takes memory for every tensor it buffers, whether or not a stage below it uses it, and
// buffers by default what it does not place: a pass's tiles bypass the other stages' tensors.
void settle_pass(MappingNode& node, const std::string& stage, const std::set<std::string>& dims,
                 const std::set<std::string>& foreign) {
  if (node.kind == MappingNodeKind::op) node.stage = stage;
  if (node.kind == MappingNodeKind::tile)
    for (const std::string& t : foreign)
      if (std::none_of(node.placements.begin(), node.placements.end(),
                       [&](const TensorPlacement& pl) { return pl.tensor == t; }))
        node.placements.push_back(TensorPlacement{t, kBypass, node.where});
  for (auto* list : {&node.temporal, &node.spatial, &node.op_factors, &node.op_warps})
    std::erase_if(*list, [&](const DimFactor& f) { return !dims.count(f.dim); });
  for (auto& c : node.children) settle_pass(c, stage, dims, foreign);
}

void collect_factors(MappingNode& node, const std::string& dim, std::vector<Factor*>& out) {
  for (auto* list : {&node.temporal, &node.spatial, &node.op_factors})
    for (DimFactor& f : *list)
      if (f.dim == dim) out.push_back(&f.factor);
  for (auto& c : node.children) collect_factors(c, dim, out);
}

// Siblings of a scope must cover the same extents, and a chain with a tail (512 as 7 x 5/2 x
// 16) covers a larger full extent than one without. Such a chain is rebuilt without tails in one
// of two ways, and the caller keeps the faster valid one:
// - grow: from the inside out, the inner factors are kept while their product divides the size,
//   the first that does not takes the rest of the size (512 / 16 = 32) and the factors above it
//   become 1: larger inner tiles where the mapper had more outer loops. Where the mapper's outer
//   loops were what made a tile fit (prefill attention at 2048 tokens: the probabilities' tile
//   in L2 grows from a block of query rows to all 256 MiB of them), it overflows.
// - shrink: from the inside out, each factor becomes the largest divisor of the size left that
//   is not above its full count (512: 16, then 5/2 -> 4), so that no tile grows, and a loop at
//   the pass's root takes the rest (512 / 64 = 8): what fitted alone still fits.
enum class TailRebuild { grow, shrink };

void drop_tails(MappingNode& root, const Operator& op, TailRebuild how) {
  for (const Dimension& d : op.dims) {
    std::vector<Factor*> factors;  // outermost first
    collect_factors(root, d.name, factors);
    if (std::none_of(factors.begin(), factors.end(), [](Factor* f) { return f->has_tail(); }))
      continue;
    if (how == TailRebuild::shrink) {
      // The root's own loop over d takes the rest: add one if the pass has none (before the
      // pointers are taken again, as the vector may move).
      const auto own = [&](const DimFactor& f) { return f.dim == d.name; };
      if (std::none_of(root.temporal.begin(), root.temporal.end(), own))
        root.temporal.push_back(DimFactor{d.name, Factor::exact(1), root.where});
      factors.clear();
      collect_factors(root, d.name, factors);
      Factor* rest = &std::find_if(root.temporal.begin(), root.temporal.end(), own)->factor;
      int64_t covered = 1;
      for (auto it = factors.rbegin(); it != factors.rend(); ++it) {
        if (*it == rest) continue;
        const int64_t left = d.size / covered;
        int64_t g = std::min((*it)->full, left);
        while (left % g != 0) --g;
        **it = Factor::exact(g);
        covered *= g;
      }
      *rest = Factor::exact(d.size / covered);
      continue;
    }
    int64_t covered = 1;
    bool rest_taken = false;
    for (auto it = factors.rbegin(); it != factors.rend(); ++it) {
      Factor& f = **it;
      if (rest_taken) {
        f = Factor::exact(1);
      } else if (!f.has_tail() && d.size % (covered * f.full) == 0) {
        covered *= f.full;
      } else {
        f = Factor::exact(d.size / covered);
        rest_taken = true;
      }
    }
  }
}

// A fused operator whose stages the primary class's template cannot serve in one tree (the
// Ascend 910B3's cube and vector cores are "split": they meet only in L2/HBM, so a fused
// attention's scores have no buffer between them): its stages run as passes, one after another,
// each mapped by its own class's template as if it were the operator alone, under a `sharing`
// scope at the outermost memory (a pass frees its buffers for the next), and the intermediates go
// through that memory. This is how the 910B runs flash attention: the cube writes the scores to
// a workspace in global memory, the vector cores read them for the softmax and write the
// probabilities back for the cube. Null when a stage finds no mapping alone.
std::optional<MappingProgram> stages_apart(const Operator& op, const ArchitectureGraph& graph,
                                           const MapperOptions& mapper, SearchSummary* summary) {
  std::vector<MappingNode> pass_roots;
  std::string root_memory;
  SearchSummary total{true, true, 0, 0};
  for (const Stage& st : op.stages) {
    // The same dimensions, this stage and its tensors only: the others would take room in
    // the search's tiles (above) and make it choose smaller blocks than the stage needs.
    Operator alone = op;
    alone.tensors.clear();
    Stage own = st;
    std::set<std::string> foreign;
    for (size_t t = 0; t < op.tensors.size(); ++t) {
      const int index = static_cast<int>(t);
      const bool used = st.output == index ||
                        std::find(st.inputs.begin(), st.inputs.end(), index) != st.inputs.end();
      if (!used) {
        foreign.insert(op.tensors[t].name);
        continue;
      }
      const int now = static_cast<int>(alone.tensors.size());
      if (st.output == index) own.output = now;
      for (int& in : own.inputs)
        if (in == index) in = now;
      alone.tensors.push_back(op.tensors[t]);
    }
    alone.stages = {own};
    // The stage's template, each way of settling its free buffers (the fastest found is kept).
    MapperResult r;
    bool all_converged = true;
    for (const Mapping& tmpl : buffer_choices(default_template(alone, graph))) {
      MappingProgram program;
      try {
        program = compile_mapping(tmpl, alone, graph, true);
      } catch (const InputError&) {
        continue;
      }
      MapperResult found = search_mapping(program, mapper);
      if (found.cancelled)
        throw MapperCancelled(found.evaluations, found.space_size, mapper.budget);
      all_converged = all_converged && found.converged;
      if (found.found && (!r.found || found.score < r.score)) {
        found.evaluations += r.evaluations;
        found.space_size += r.space_size;
        r = std::move(found);
      } else {
        r.evaluations += found.evaluations;
        r.space_size += found.space_size;
      }
    }
    if (!r.found) return std::nullopt;
    r.converged = all_converged;
    Mapping pass = parse_mapping(mapping_yaml(r.program, op.name + "-" + st.name, "stages apart"),
                                 "<stages apart>");
    if (root_memory.empty()) root_memory = pass.root.memory;
    if (pass.root.kind != MappingNodeKind::tile || pass.root.memory != root_memory)
      return std::nullopt;
    std::set<std::string> dims;
    for (int d : st.dims) dims.insert(op.dims[static_cast<size_t>(d)].name);
    settle_pass(pass.root, st.name, dims, foreign);
    pass_roots.push_back(std::move(pass.root));
    total.evaluations += r.evaluations;
    total.space_size += r.space_size;
    total.converged = total.converged && r.converged;
  }
  std::optional<MappingProgram> best;
  double best_s = 0;  // the objective's value (the device time for latency)
  for (TailRebuild how : {TailRebuild::grow, TailRebuild::shrink}) {
    MappingNode passes;
    passes.kind = MappingNodeKind::scope;
    passes.scope = ScopeKind::sharing;
    for (const MappingNode& pass : pass_roots) {
      passes.children.push_back(pass);
      drop_tails(passes.children.back(), op, how);
    }
    Mapping m;
    m.name = "stages-apart";
    m.source_file = "<stages apart>";
    m.root.kind = MappingNodeKind::tile;
    m.root.memory = root_memory;
    m.root.children.push_back(std::move(passes));
    try {
      MappingProgram program = compile_mapping(m, op, graph, false);
      AnalysisScratch eval;
      const double value = evaluate_objective(mapper.objective, program, eval);
      // Grown tiles overflow, or a shrunk op factor misses a granule.
      if (!eval.valid() || !std::isfinite(value)) continue;
      if (!best || value < best_s) {
        best_s = value;
        best = std::move(program);
      }
    } catch (const InputError&) {
      continue;
    }
  }
  if (best && summary) *summary = total;
  return best;
}

// The fastest valid program of `count` searches (`search(k, summary)`), the first on a tie, with
// their summaries added up in `total`; the best by `objective` where it is not latency. A search
// that throws an InputError is not a candidate; when none gives a program, the first one's error is
// thrown.
template <typename SearchOne>
MappingProgram fastest_search(size_t count, SearchSummary& total, MapperObjective objective,
                              SearchOne search) {
  std::optional<MappingProgram> best;
  double best_s = 0;
  std::optional<InputError> first_error;
  total = SearchSummary{true, true, 0, 0};
  for (size_t k = 0; k < count; ++k) {
    try {
      SearchSummary one;
      MappingProgram program = search(k, one);
      total.evaluations += one.evaluations;
      total.space_size += one.space_size;
      total.converged = total.converged && one.converged;
      AnalysisScratch eval;
      const double value = evaluate_objective(objective, program, eval);
      if (!eval.valid() || !std::isfinite(value)) continue;
      if (!best || value < best_s) {
        best_s = value;
        best = std::move(program);
      }
    } catch (const InputError& e) {
      if (!first_error) first_error = e;
    }
  }
  if (!best) throw *first_error;
  return std::move(*best);
}

// The mapper's search of one template with its buffers settled: its best point, or an
// InputError saying why there is none.
MappingProgram search_settled(const Mapping& tmpl, bool from_file, const Operator& op,
                              const ArchitectureGraph& graph,
                              const OperatorPredictionOptions& options, std::string* origin,
                              SearchSummary* summary) {
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
  if (origin)
    *origin = std::string(from_file ? "mapper (file template)" : "mapper") +
              objective_origin_suffix(mapper.objective);
  if (summary)
    *summary = SearchSummary{true, result.converged, result.evaluations, result.space_size};
  return std::move(result.program);
}

// The mapper's search of one template: where it leaves buffers free (keep or bypass), every way
// of settling them is searched and the fastest point of all is taken (the first way, holding
// every tensor, on a tie).
MappingProgram search_template(const Mapping& tmpl, bool from_file, const Operator& op,
                               const ArchitectureGraph& graph,
                               const OperatorPredictionOptions& options, std::string* origin,
                               SearchSummary* summary) {
  const std::vector<Mapping> choices = buffer_choices(tmpl);
  if (choices.size() == 1)
    return search_settled(choices.front(), from_file, op, graph, options, origin, summary);
  SearchSummary total;
  MappingProgram best = fastest_search(
      choices.size(), total, options.mapper.objective, [&](size_t k, SearchSummary& one) {
        return search_settled(choices[k], from_file, op, graph, options, origin, &one);
      });
  if (summary) *summary = total;
  return best;
}

}  // namespace

MappingProgram resolve_mapping(const Operator& op, const ArchitectureGraph& graph,
                               const OperatorPredictionOptions& options, std::string* origin,
                               SearchSummary* summary) {
  if (options.mapping != nullptr) {
    if (!options.mapping->has_free_factors()) {
      if (origin) *origin = "file";
      return compile_mapping(*options.mapping, op, graph, false);
    }
    return search_template(instantiate_template(*options.mapping, op), true, op, graph, options,
                           origin, summary);
  }
  std::vector<Mapping> menu = template_menu(op, graph);
  if (menu.size() == 1) {
    const Mapping& tmpl = menu.front();
    // A lookup GEMM that the graph gives no template of its own builds its tables in a pass of
    // their own, as T-MAC does (once per group of activations, written out and read by every
    // column's lookups): under one tree every tile of columns would build them again.
    const bool tables_apart = op.primary_class() == OpClass::lookup &&
                              !graph.operator_templates.count(std::string(to_string(op.type)));
    if (op.stages.size() > 1 && (tables_apart || !compiles(tmpl, op, graph)))
      if (std::optional<MappingProgram> split = stages_apart(op, graph, options.mapper, summary)) {
        if (origin)
          *origin = "mapper (stages apart)" + objective_origin_suffix(options.mapper.objective);
        return std::move(*split);
      }
    return search_template(tmpl, false, op, graph, options, origin, summary);
  }
  // A kernel menu: the library's kernels for the operator, each searched (its free factors, if
  // any) and evaluated; the fastest is taken, as a library's heuristic aims to take it.
  SearchSummary total;
  MappingProgram best = fastest_search(
      menu.size(), total, options.mapper.objective, [&](size_t k, SearchSummary& one) {
        return search_template(menu[k], false, op, graph, options, nullptr, &one);
      });
  if (origin)
    *origin = options.mapper.objective == MapperObjective::latency
                  ? fmt::format("mapper (fastest of {} kernels)", menu.size())
                  : fmt::format("mapper (best of {} kernels{})", menu.size(),
                                objective_origin_suffix(options.mapper.objective));
  if (summary) *summary = total;
  return best;
}

Prediction predict_operator(const Operator& op, const ArchitectureGraph& graph,
                            const OperatorPredictionOptions& options, MappingProgram* resolved) {
  std::string origin;
  SearchSummary search;
  MappingProgram program = resolve_mapping(op, graph, options, &origin, &search);
  const AnalysisResult result = analyse(program);
  throw_if_invalid(program, result);
  Prediction p = make_prediction(program, result);
  p.mapping_origin = origin;
  p.searched = search.searched;
  p.search_converged = search.converged;
  p.search_evaluations = search.evaluations;
  if (resolved) *resolved = std::move(program);
  return p;
}

}  // namespace ts
