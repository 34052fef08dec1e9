// `tilescope validate FILE...`: checks any input file; a mapping is checked against a graph and an
// operator too when --arch and --workload are given.
#include "ValidateCommand.hpp"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "analysis/AnalysisResult.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/YamlSource.hpp"
#include "mapper/BufferChoices.hpp"
#include "mapper/Mapper.hpp"
#include "profile/ArchitectureReference.hpp"
#include "tile/MappingLoader.hpp"
#include "training/Cluster.hpp"
#include "training/ParallelStrategy.hpp"
#include "training/PublishedRuns.hpp"
#include "training/TransformerModel.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::cli {
namespace {

// The graph and workload that mappings are checked against, each read once for all mappings (a
// pipe can be read only once).
struct MappingContext {
  std::optional<ArchitectureGraph> graph;
  std::optional<Workload> workload;
};

std::string check_mapping(const Mapping& m, const ValidateOptions& a, MappingContext& context) {
  if (a.arch.empty() || a.workload.empty())
    return "structure only; add --arch and --workload to check it against a graph";
  if (!context.graph) context.graph = load_architecture(resolve_architecture_option(a.arch));
  if (!context.workload) context.workload = load_workload(a.workload);
  const ArchitectureGraph& graph = *context.graph;
  const Workload& w = *context.workload;
  std::string name = a.op.empty() ? m.op_name : a.op;
  const Operator* op = nullptr;
  for (const auto& o : w.operators)
    if (o.name == name || (name.empty() && w.operators.size() == 1)) op = &o;
  if (!op)
    throw InputError(
        a.op.empty() && !m.op_name.empty()
            ? m.op_where
            : SourceLocation{m.source_file, m.root.where.line, m.root.where.column},
        fmt::format("operator '{}' is not in workload '{}'; name one with --op", name, w.name));
  if (m.has_free_factors()) {
    // Free buffers: the mapper searches the ways of settling them that compile.
    const std::vector<Mapping> choices = buffer_choices(instantiate_template(m, *op));
    std::optional<InputError> first_error;
    size_t fitting = 0;
    for (const Mapping& settled : choices) try {
        compile_mapping(settled, *op, graph, true);
        ++fitting;
      } catch (const InputError& e) {
        if (!first_error) first_error = e;
      }
    if (fitting == 0) throw *first_error;
    return fmt::format("template fits '{}' on '{}'{}", op->name, graph.name,
                       choices.size() == 1 ? ""
                                           : fmt::format(" ({} of {} ways to settle its free "
                                                         "buffers)",
                                                         fitting, choices.size()));
  }
  MappingProgram program = compile_mapping(m, *op, graph, false);
  const AnalysisResult result = analyse(program);
  throw_if_invalid(program, result);
  return fmt::format("maps '{}' on '{}': {:.3f} us", op->name, graph.name, result.device_s * 1e6);
}

}  // namespace

int run_validate(const ValidateOptions& a) {
  int failures = 0;
  MappingContext context;
  const bool json = a.format == "json";
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::array();
  for (const auto& file : a.files) {
    std::string kind;
    try {
      // Read once: `validate <(cat file.yaml)` gives a pipe, which a second open finds empty.
      const std::string text = YamlSource::read_file(file);
      kind = kind_of(YamlSource::parse(text, file));
      std::string summary;
      if (kind == "architecture") {
        ArchitectureGraph g = parse_architecture(text, file);
        summary = fmt::format("architecture '{}': {} nodes, {} edges", g.name, g.nodes.size(),
                              g.edges.size());
      } else if (kind == "workload") {
        Workload w = parse_workload(text, file);
        summary = fmt::format("workload '{}': {} operators", w.name, w.operators.size());
      } else if (kind == "llm-model") {
        // A pass (it names `phase`) builds its operators; a model file only its hyper-parameters.
        const YamlSource src = YamlSource::parse(text, file);
        if (src.root()["phase"].IsDefined()) {
          const Workload w = load_workload(file);
          summary = fmt::format("llm-model '{}': {} pass, {} operators", w.name, w.phase,
                                w.operators.size());
        } else {
          const LlmModel m = read_llm_hyper_parameters(src);
          summary = fmt::format("llm-model '{}': {} layers, hidden {}, {} heads ({} KV)", m.name,
                                m.layers, m.hidden, m.heads, m.kv_heads);
        }
      } else if (kind == "mapping") {
        Mapping m = parse_mapping(text, file);
        summary = fmt::format("mapping '{}': {}", m.name, check_mapping(m, a, context));
      } else if (kind == "model") {
        TransformerModel m = parse_transformer_model(text, file);
        summary = fmt::format("model '{}': {} {} layers, hidden {}, {:.3g} parameters", m.name,
                              to_string(m.family), m.layers, m.hidden, m.parameters());
      } else if (kind == "strategy") {
        ParallelStrategy s = parse_parallel_strategy(text, file);
        summary = fmt::format(
            "strategy '{}': DP {} x TP {} x PP {} = {} GPUs, {} schedule, "
            "recompute {}",
            s.name, s.dp.value, s.tp.value, s.pp.value, s.gpus(), to_string(s.schedule.value),
            to_string(s.recompute));
      } else if (kind == "cluster") {
        Cluster c = parse_cluster(text, file);
        summary = fmt::format("cluster '{}': {} nodes x {} {} = {} GPUs", c.name, c.nodes,
                              c.devices_per_node, c.device.name, c.gpus());
      } else if (kind == "dist-validation") {
        PublishedRuns r = parse_published_runs(text, file);
        summary = fmt::format("dist-validation '{}': {} runs", r.name, r.runs.size());
      } else {
        throw InputError(SourceLocation{file, 1, 1},
                         fmt::format("unknown kind '{}'; expected architecture, workload, "
                                     "llm-model, mapping, model, strategy, cluster or "
                                     "dist-validation",
                                     kind));
      }
      const std::string tree =
          a.tree && kind == "mapping" ? render_tree(parse_mapping(text, file)) : std::string();
      if (json) {
        nlohmann::ordered_json verdict{
            {"file", file}, {"ok", true}, {"kind", kind}, {"summary", summary}};
        if (!tree.empty()) verdict["tree"] = tree;
        verdicts.push_back(std::move(verdict));
      } else {
        std::cout << fmt::format("{}: ok ({})\n", file, summary) << tree;
      }
    } catch (const InputError& e) {
      std::cerr << e.what() << "\n";
      ++failures;
      if (json)
        verdicts.push_back(
            {{"file", file},
             {"ok", false},
             {"kind", kind.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(kind)},
             {"error", e.what()},
             {"line", e.where().line},
             {"column", e.where().column}});
    }
  }
  // The verdicts for scripts: one object per file in the order given (schema_version 1).
  if (json)
    std::cout << nlohmann::ordered_json{{"schema_version", 1}, {"files", std::move(verdicts)}}.dump(
                     2)
              << "\n";
  return failures ? 2 : 0;
}

}  // namespace ts::cli
