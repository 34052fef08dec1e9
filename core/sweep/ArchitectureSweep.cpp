#include "sweep/ArchitectureSweep.hpp"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "analysis/MappingWriter.hpp"
#include "common/Fnv1a.hpp"
#include "common/InputError.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"

namespace ts {

double memory_cost_bytes(const ArchitectureGraph& graph) {
  double bytes = 0;
  for (const ArchNode& n : graph.nodes)
    if (n.kind == NodeKind::memory) bytes += n.capacity_bytes * static_cast<double>(n.instances);
  return bytes;
}

std::optional<double> graph_area_m2(const ArchitectureGraph& graph) {
  std::optional<double> area;
  for (const ArchNode& n : graph.nodes)
    if (n.area_m2) area = area.value_or(0) + *n.area_m2 * static_cast<double>(n.instances);
  return area;
}

std::optional<double> suite_energy_j(const Workload& workload,
                                     const std::vector<SweepOperatorTime>& operators) {
  if (operators.size() != workload.operators.size() || operators.empty()) return std::nullopt;
  double total = 0;
  for (size_t i = 0; i < operators.size(); ++i) {
    if (!operators[i].energy_j) return std::nullopt;
    // Once each, as the point's total time counts them: the EDP of the two is one figure.
    total += *operators[i].energy_j;
  }
  return total;
}

ArchitectureSweep::ArchitectureSweep(ArchitectureGraph base, Workload workload,
                                     std::vector<SweepAxis> axes, std::vector<SweepValues> points,
                                     MapperOptions mapper)
    : base_(std::move(base)),
      workload_(std::move(workload)),
      axes_(std::move(axes)),
      points_(std::move(points)),
      mapper_(mapper) {
  std::set<std::string> named;
  for (const SweepAxis& a : axes_)
    if (!named.insert(a.path).second)
      throw InputError(
          SourceLocation{"--vary", 0, 0},
          fmt::format("'{}' is varied twice; give all its values in one --vary", a.path));
  // Everything that changes a point's result but is not one of its values: the base graph and
  // how hard the mapper searches (its thread count does not change what it finds).
  Fnv1a sweep;
  sweep.add_string("tilescope-sweep-1");
  sweep.add_u64(base_.content_hash());
  sweep.add_u64(mapper_.budget);
  sweep.add_u64(mapper_.seed);
  sweep.add_double(mapper_.patience);
  sweep_key_ = hash_text(sweep.value());
  Fnv1a suite;
  suite.add_string("tilescope-sweep-workload-1");
  for (const Operator& op : workload_.operators) {
    const OperatorKey key = operator_key(op, workload_.name);
    for (const std::string* field : {&key.suite, &key.name, &key.type, &key.dims, &key.dtypes})
      suite.add_string(*field);
  }
  workload_hash_ = hash_text(suite.value());
}

std::string ArchitectureSweep::parameters_json(size_t index) const {
  nlohmann::json values = nlohmann::json::object();  // keys come out sorted
  for (size_t k = 0; k < axes_.size(); ++k) values[axes_[k].path] = points_[index][k];
  return values.dump();
}

ArchitectureGraph ArchitectureSweep::graph_at(size_t index) const {
  ArchitectureGraph graph = base_;
  for (size_t k = 0; k < axes_.size(); ++k)
    set_parameter_value(graph, axes_[k].resolved, points_[index][k]);
  return graph;
}

SweepPointRecord ArchitectureSweep::evaluate(size_t index, const std::atomic<bool>* cancel) const {
  const ArchitectureGraph graph = graph_at(index);
  SweepPointRecord point;
  point.sweep_key = sweep_key_;
  point.workload_hash = workload_hash_;
  point.parameters_json = parameters_json(index);
  point.arch_hash = hash_text(graph.content_hash());
  point.cost = memory_cost_bytes(graph);
  point.area_m2 = graph_area_m2(graph);
  OperatorPredictionOptions options;
  options.mapper = mapper_;
  options.mapper.cancel = cancel;
  for (const Operator& op : workload_.operators) {
    SweepOperatorTime time{op.name, 0, 0, "", true};
    try {
      MappingProgram program;
      const Prediction p = predict_operator(op, graph, options, &program);
      // Kept so that the sweep's exchange can try it at the other points (SweepExchange).
      time.mapping = mapping_yaml(program, op.name, "");
      time.device_s = p.device_us * 1e-6;
      time.launch_s = p.launch_overhead_us * 1e-6;
      time.bound_by = p.bound_by;
      time.converged = !p.searched || p.search_converged;
      if (p.energy.known) time.energy_j = p.energy.total_j;
    } catch (const InputError& e) {
      time.device_s = std::numeric_limits<double>::infinity();
      time.bound_by = "no valid mapping: " + e.message();
    }
    point.total_s += time.device_s + time.launch_s;
    point.operators.push_back(std::move(time));
  }
  point.energy_j = suite_energy_j(workload_, point.operators);
  return point;
}

UnconvergedSearches unconverged_searches(const std::vector<SweepPointRecord>& points) {
  UnconvergedSearches out;
  for (const SweepPointRecord& p : points)
    for (const SweepOperatorTime& o : p.operators) out.note(o.name, true, o.converged);
  return out;
}

}  // namespace ts
