#include "mapper/MapperObjective.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <set>

#include "analysis/AnalysisResult.hpp"
#include "analysis/Energy.hpp"
#include "common/InputError.hpp"

namespace ts {

std::string_view to_string(MapperObjective objective) {
  switch (objective) {
    case MapperObjective::latency:
      return "latency";
    case MapperObjective::energy:
      return "energy";
    case MapperObjective::edp:
      return "edp";
  }
  return "latency";
}

std::optional<MapperObjective> parse_mapper_objective(std::string_view text) {
  for (MapperObjective o :
       {MapperObjective::latency, MapperObjective::energy, MapperObjective::edp})
    if (text == to_string(o)) return o;
  return std::nullopt;
}

std::string objective_origin_suffix(MapperObjective objective) {
  switch (objective) {
    case MapperObjective::latency:
      return "";
    case MapperObjective::energy:
      return ", lowest energy";
    case MapperObjective::edp:
      return ", lowest EDP";
  }
  return "";
}

std::vector<std::string> objective_unpriced(const MappingProgram& p) {
  const ArchitectureGraph& g = *p.graph;
  // Sorted and distinct, as energy_of lists them.
  std::set<std::string> missing;
  std::set<int32_t> memories;
  for (NodeId m : p.memories) memories.insert(m.value);
  for (const ProgramNode& n : p.nodes)
    if (n.kind == MappingNodeKind::tile) memories.insert(n.memory.value);
  for (int32_t m : memories) {
    const ArchNode& node = g.node(NodeId{m});
    if (!node.energy) missing.insert(fmt::format("memory '{}' has no `energy`", node.name));
  }
  for (const ProgramNode& n : p.nodes) {
    if (n.kind != MappingNodeKind::op || n.stage < 0) continue;
    if (!n.capability || !(n.capability->energy_per_op_j > 0))
      missing.insert(fmt::format("compute node '{}' has no `energy_per_op` for this operation",
                                 g.node(n.compute).name));
  }
  return {missing.begin(), missing.end()};
}

void require_energy_for(MapperObjective objective, const MappingProgram& p) {
  if (objective == MapperObjective::latency) return;
  const std::vector<std::string> missing = objective_unpriced(p);
  if (missing.empty()) return;
  std::string what;
  for (const std::string& m : missing) what += (what.empty() ? "" : ", ") + m;
  const ArchitectureGraph& g = *p.graph;
  throw InputError(
      SourceLocation{g.source_file.empty() ? g.name : g.source_file, 0, 0},
      fmt::format("graph '{}' gives no energy for what operator '{}' uses ({}); --objective {} "
                  "needs energy on every memory and unit the operator uses (docs/energy.md)",
                  g.name, p.op != nullptr ? p.op->name : std::string("?"), what,
                  to_string(objective)));
}

double objective_value(MapperObjective objective, const MappingProgram& program,
                       const AnalysisScratch& eval, double device_s) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  if (!eval.valid() || !std::isfinite(device_s)) return kNone;
  if (objective == MapperObjective::latency) return device_s;
  // What energy_of reads of a result, and no more: the rest of analysis_result (buffers, per-node
  // timing) is what the faces show, not what the energy needs.
  AnalysisResult r;
  r.failure = eval.failure;
  r.device_s = device_s;
  r.edge_bytes = eval.edge_bytes;
  r.read_back_bytes = eval.read_back_bytes;
  r.accesses = access_counts(program, eval);
  const EnergyReport e = energy_of(program, r);
  if (!e.known) return kNone;
  return objective == MapperObjective::energy ? e.total_j : e.total_j * device_s;
}

double evaluate_objective(MapperObjective objective, const MappingProgram& program,
                          AnalysisScratch& eval) {
  const double device_s = evaluate(program, eval);
  return objective_value(objective, program, eval, device_s);
}

}  // namespace ts
