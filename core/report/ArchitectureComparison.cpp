#include "report/ArchitectureComparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace ts {
namespace {

// The ratio of the first graph's time to this one's; 0 against 0 has no ratio.
double speedup(double first_us, double this_us) {
  if (this_us == 0)
    return first_us == 0 ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  return first_us / this_us;
}

TimeOnGraph time_of(const Prediction& p) {
  TimeOnGraph t;
  t.device_us = p.device_us;
  t.launch_us = p.launch_overhead_us;
  t.bound_by = p.bound_by;
  t.mapping = p.mapping_origin;
  if (p.energy.known) t.energy_j = p.energy.total_j;
  return t;
}

// Speed-ups and moved bounds of each graph against the first, in place.
void relate_to_first(std::vector<TimeOnGraph>& on_graph) {
  const TimeOnGraph& first = on_graph.front();
  for (TimeOnGraph& t : on_graph) {
    t.speedup = speedup(first.time_us(), t.time_us());
    t.bound_moved = bound_move_text(first.bound_by, t.bound_by);
  }
}

}  // namespace

std::string bound_move_text(const std::string& from, const std::string& to) {
  return from == to ? std::string() : fmt::format("{} → {}", from, to);
}

std::string dominant_bound(const std::vector<Prediction>& predictions) {
  std::vector<std::pair<std::string, double>> time_by_bound;  // in the order first met
  for (const Prediction& p : predictions) {
    auto it = time_by_bound.begin();
    while (it != time_by_bound.end() && it->first != p.bound_by) ++it;
    if (it == time_by_bound.end()) it = time_by_bound.insert(it, {p.bound_by, 0.0});
    it->second += p.device_us + p.launch_overhead_us;
  }
  const std::pair<std::string, double>* best = nullptr;
  for (const auto& entry : time_by_bound)
    if (!best || entry.second > best->second) best = &entry;
  return best ? best->first : std::string();
}

ArchitectureComparison compare_architectures(const std::string& workload,
                                             std::vector<ComparedGraph> graphs) {
  if (graphs.size() < 2)
    throw std::invalid_argument(
        fmt::format("a comparison needs two graphs or more, {} given", graphs.size()));
  const std::vector<Prediction>& first = graphs.front().predictions;
  for (size_t g = 0; g < graphs.size(); ++g) {
    graphs[g].label = g < 26 ? std::string(1, static_cast<char>('A' + g)) : fmt::format("G{}", g);
    graphs[g].unconverged = {};
    graphs[g].area_m2.reset();
    for (const Prediction& p : graphs[g].predictions) {
      graphs[g].unconverged.note(p);
      if (p.energy.area_m2) graphs[g].area_m2 = p.energy.area_m2;
    }
    const std::vector<Prediction>& rows = graphs[g].predictions;
    bool same = rows.size() == first.size();
    for (size_t i = 0; same && i < rows.size(); ++i) same = rows[i].op_name == first[i].op_name;
    if (!same)
      throw std::invalid_argument(
          fmt::format("graph '{}' was predicted for other operators than graph '{}'",
                      graphs[g].name, graphs.front().name));
  }

  ArchitectureComparison c;
  c.workload = workload;
  for (size_t i = 0; i < first.size(); ++i) {
    ComparedOperator op{first[i].op_name, first[i].op_type, first[i].shape, {}};
    for (const ComparedGraph& g : graphs) op.on_graph.push_back(time_of(g.predictions[i]));
    relate_to_first(op.on_graph);
    c.operators.push_back(std::move(op));
  }
  for (const ComparedGraph& g : graphs) {
    TimeOnGraph total;
    size_t moved = 0;
    total.energy_j = 0.0;
    for (size_t i = 0; i < g.predictions.size(); ++i) {
      if (total.energy_j && g.predictions[i].energy.known)
        *total.energy_j += g.predictions[i].energy.total_j;
      else
        total.energy_j.reset();
      total.device_us += g.predictions[i].device_us;
      total.launch_us += g.predictions[i].launch_overhead_us;
      if (g.predictions[i].bound_by != first[i].bound_by) ++moved;
    }
    total.bound_by = dominant_bound(g.predictions);
    c.total.push_back(std::move(total));
    c.moved_bounds.push_back(moved);
  }
  relate_to_first(c.total);
  c.graphs = std::move(graphs);
  return c;
}

std::vector<NodeEnergyTotal> workload_energy_by_node(const ComparedGraph& graph) {
  std::vector<NodeEnergyTotal> nodes;
  for (const Prediction& p : graph.predictions) {
    if (!p.energy.known) return {};
    for (const NodeEnergy& n : p.energy.nodes) {
      auto it = std::find_if(nodes.begin(), nodes.end(),
                             [&](const NodeEnergyTotal& t) { return t.name == n.name; });
      if (it == nodes.end()) it = nodes.insert(nodes.end(), NodeEnergyTotal{n.name, 0});
      it->energy_j += n.total_j();
    }
  }
  return nodes;
}

std::vector<std::string> unconverged_graph_notes(const ArchitectureComparison& c, uint64_t budget) {
  std::vector<std::string> notes;
  for (const ComparedGraph& g : c.graphs)
    if (!g.unconverged.empty())
      notes.push_back(fmt::format("on graph {} ({}): {}", g.label, g.name,
                                  unconverged_text(g.unconverged.operators, budget)));
  return notes;
}

}  // namespace ts
