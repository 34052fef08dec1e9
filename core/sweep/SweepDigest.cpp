#include "sweep/SweepDigest.hpp"

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sweep/StrategyGrid.hpp"

namespace ts {

std::vector<std::string> varied_sweep_paths(const std::vector<SweepPointRecord>& points) {
  std::map<std::string, std::set<std::string>> values;  // path: its values as JSON text
  for (const SweepPointRecord& p : points) {
    const nlohmann::json parameters = nlohmann::json::parse(p.parameters_json);
    for (const auto& [path, v] : parameters.items()) values[path].insert(v.dump());
  }
  const bool grid = values.count("cluster-content") > 0;
  std::vector<std::string> paths;
  for (const auto& [path, seen] : values)
    if (seen.size() > 1 && path != "cluster-content" && !(grid && path == "dp"))
      paths.push_back(path);
  if (grid && values.count("dp") && values.at("dp").size() > 1) paths.push_back("dp");
  return paths;
}

SweepDigest digest_sweep(std::vector<SweepPointRecord> points) {
  SweepDigest d;
  for (const SweepPointRecord& p : points)
    if (nlohmann::json::parse(p.parameters_json).contains("cluster-content")) {
      d.strategy_grid = true;
      break;
    }
  d.paths = varied_sweep_paths(points);
  std::vector<SweepPointRecord> candidates;
  for (const SweepPointRecord& p : points) {
    const bool out = d.strategy_grid && strategy_point_out_of_memory(p);
    d.out_of_memory += out ? 1 : 0;
    if (!out) candidates.push_back(p);
  }
  d.front = pareto_front(std::move(candidates));
  d.sensitivities = sweep_sensitivities(d.paths, points);
  d.energy_known = !d.strategy_grid && sweep_figure_known(points, SweepFigure::energy);
  d.area_known = !d.strategy_grid && sweep_figure_known(points, SweepFigure::area);
  if (d.energy_known) {
    d.energy_front = pareto_front(points, SweepFigure::energy);
    d.energy_sensitivity = sweep_figure_sensitivity(d.paths, points, SweepFigure::energy);
  }
  if (d.area_known) {
    d.area_front = pareto_front(points, SweepFigure::area);
    d.area_sensitivity = sweep_figure_sensitivity(d.paths, points, SweepFigure::area);
  }
  d.cost = d.strategy_grid ? SweepCost{} : choose_sweep_cost(points);
  d.cost_front = d.cost == SweepCost{} ? d.front : pareto_front(points, d.cost);
  d.plateaus = sweep_axis_plateaus(d.paths, points);
  d.points = std::move(points);
  return d;
}

}  // namespace ts
