#include "sweep/SweepExchange.hpp"

#include <cmath>
#include <map>
#include <set>

#include "mapper/MappingExchange.hpp"

namespace ts {

SweepExchangeResult exchange_sweep_mappings(const ArchitectureSweep& sweep,
                                            std::vector<SweepPointRecord>& points,
                                            const std::atomic<bool>* cancel,
                                            const std::function<void(size_t, size_t)>& progress) {
  SweepExchangeResult out;
  // Each stored point's graph, named by its values so that an exchanged mapping says where it
  // was found. Points of other sweeps in the same store are not ours and are left out.
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < sweep.size(); ++i) index_of.emplace(sweep.parameters_json(i), i);
  std::vector<size_t> ours;
  std::vector<ArchitectureGraph> graphs;
  for (size_t k = 0; k < points.size(); ++k) {
    const auto it = index_of.find(points[k].parameters_json);
    if (it == index_of.end()) continue;
    ours.push_back(k);
    graphs.push_back(sweep.graph_at(it->second));
    graphs.back().name = points[k].parameters_json;
  }
  std::vector<const ArchitectureGraph*> graph_ptrs;
  for (const ArchitectureGraph& g : graphs) graph_ptrs.push_back(&g);

  const std::vector<Operator>& operators = sweep.workload().operators;
  std::vector<std::vector<SweepOperatorTime>> updated(ours.size());
  for (size_t j = 0; j < ours.size(); ++j) updated[j] = points[ours[j]].operators;
  std::set<size_t> changed;
  for (size_t i = 0; i < operators.size(); ++i) {
    if (cancel && cancel->load()) {
      out.cancelled = true;
      return out;
    }
    std::vector<OperatorOnGraph> on(ours.size());
    for (size_t j = 0; j < ours.size(); ++j) {
      if (i >= updated[j].size()) continue;
      const SweepOperatorTime& t = updated[j][i];
      if (t.name != operators[i].name || t.mapping.empty() || !std::isfinite(t.device_s)) continue;
      on[j].ok = true;
      on[j].prediction.device_us = t.device_s * 1e6;
      // A mapping exchanged by an earlier run (a resumed sweep) is passed on too: it is a
      // point of the space of the point it came from, and of this one.
      on[j].prediction.searched = true;
      on[j].prediction.search_converged = t.converged;
      on[j].mapping_yaml = t.mapping;
    }
    std::vector<std::string> before(ours.size());
    for (size_t j = 0; j < ours.size(); ++j) before[j] = on[j].mapping_yaml;
    std::vector<OperatorOnGraph*> pointers;
    for (OperatorOnGraph& o : on) pointers.push_back(&o);
    exchange_best_mappings(operators[i], graph_ptrs, pointers);
    for (size_t j = 0; j < ours.size(); ++j) {
      if (!on[j].ok || on[j].mapping_yaml == before[j]) continue;
      SweepOperatorTime& t = updated[j][i];
      // Strictly faster in the seconds the store keeps, not by the rounding of their
      // conversion to microseconds and back: an equal time is no reason to change.
      if (!(on[j].prediction.device_us * 1e-6 < t.device_s)) continue;
      t.device_s = on[j].prediction.device_us * 1e-6;
      t.launch_s = on[j].prediction.launch_overhead_us * 1e-6;
      t.bound_by = on[j].prediction.bound_by;
      t.mapping = on[j].mapping_yaml;
      t.mapping_origin = on[j].prediction.mapping_origin;
      // The energy goes with the mapping: the faster one may move more data.
      t.energy_j = on[j].prediction.energy.known
                       ? std::optional<double>(on[j].prediction.energy.total_j)
                       : std::nullopt;
      ++out.replaced;
      changed.insert(j);
    }
    if (progress) progress(i + 1, operators.size());
  }
  for (size_t j : changed) {
    SweepPointRecord& p = points[ours[j]];
    p.operators = std::move(updated[j]);
    p.total_s = 0;
    for (const SweepOperatorTime& t : p.operators) p.total_s += t.device_s + t.launch_s;
    p.energy_j = suite_energy_j(sweep.workload(), p.operators);
    out.changed_points.push_back(ours[j]);
  }
  return out;
}

}  // namespace ts
