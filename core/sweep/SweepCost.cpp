#include "sweep/SweepCost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/InputError.hpp"

namespace ts {

std::optional<SweepCost> parse_sweep_cost(const std::string& text,
                                          const std::vector<std::string>& paths, bool strategy_grid,
                                          const std::string& input) {
  if (text == "auto") return std::nullopt;
  if (text == "memory") return SweepCost{SweepFigure::cost, {}};
  const SourceLocation where{input, 0, 0};
  const SweepFigure figures[] = {SweepFigure::energy, SweepFigure::area, SweepFigure::edp};
  const char* names[] = {"energy", "area", "edp"};
  for (size_t i = 0; i < 3; ++i)
    if (text == names[i]) {
      if (strategy_grid)
        throw InputError(where, fmt::format("'{}': a strategy grid's points have no energy or "
                                            "area; expected auto, memory (peak memory per GPU) "
                                            "or a varied key",
                                            text));
      return SweepCost{figures[i], {}};
    }
  if (std::find(paths.begin(), paths.end(), text) != paths.end()) {
    if (text == "schedule" || text == "cluster")
      throw InputError(where,
                       fmt::format("'{}' takes names, not numbers: it cannot be a cost", text));
    return SweepCost{SweepFigure::parameter, text};
  }
  std::string varied;
  for (const std::string& p : paths) varied += ", " + p;
  throw InputError(where, fmt::format("'{}' is no cost; expected auto (the default), memory{} "
                                      "or a parameter the sweep varies{}",
                                      text, strategy_grid ? "" : ", energy, area, edp",
                                      varied.empty() ? "" : " (" + varied.substr(2) + ")"));
}

SweepCost choose_sweep_cost(const std::vector<SweepPointRecord>& points) {
  for (SweepFigure f : {SweepFigure::energy, SweepFigure::area})
    if (sweep_figure_known(points, f)) return {f, {}};
  return {};
}

std::optional<double> sweep_cost_value(const SweepPointRecord& point, const SweepCost& cost) {
  if (cost.figure != SweepFigure::parameter) return sweep_figure(point, cost.figure);
  const nlohmann::json parameters = nlohmann::json::parse(point.parameters_json, nullptr, false);
  if (!parameters.is_object() || !parameters.contains(cost.path)) return std::nullopt;
  const nlohmann::json& v = parameters.at(cost.path);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

bool sweep_cost_known(const std::vector<SweepPointRecord>& points, const SweepCost& cost) {
  bool any = false;
  for (const SweepPointRecord& p : points) {
    if (!std::isfinite(p.total_s)) continue;
    if (!sweep_cost_value(p, cost)) return false;
    any = true;
  }
  return any;
}

std::vector<SweepPointRecord> pareto_front(std::vector<SweepPointRecord> points,
                                           const SweepCost& cost) {
  struct Ranked {
    double cost, tie;
    SweepPointRecord point;
  };
  // The tie-break figure: the lower energy (the lower area on the energy front).
  const SweepFigure other =
      cost.figure == SweepFigure::energy ? SweepFigure::area : SweepFigure::energy;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<Ranked> ranked;
  for (SweepPointRecord& p : points) {
    const std::optional<double> c = sweep_cost_value(p, cost);
    if (!std::isfinite(p.total_s) || !c) continue;
    const double tie = sweep_figure(p, other).value_or(inf);
    ranked.push_back({*c, tie, std::move(p)});
  }
  std::sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) {
    if (a.cost != b.cost) return a.cost < b.cost;
    if (a.point.total_s != b.point.total_s) return a.point.total_s < b.point.total_s;
    if (a.tie != b.tie) return a.tie < b.tie;
    return a.point.parameters_json < b.point.parameters_json;
  });
  std::vector<SweepPointRecord> front;
  for (Ranked& r : ranked)
    if (front.empty() || r.point.total_s < front.back().total_s)
      front.push_back(std::move(r.point));
  return front;
}

std::string sweep_cost_title(const SweepCost& cost, bool strategy_grid) {
  switch (cost.figure) {
    case SweepFigure::cost:
      return strategy_grid ? "cost (peak memory per GPU; points out of memory left out)"
                           : "cost (memory bytes: capacity x instances summed over memories)";
    case SweepFigure::energy:
      return "suite energy (sum over operators of energy, once each)";
    case SweepFigure::area:
      return "graph area (area x instances summed over nodes)";
    case SweepFigure::edp:
      return "EDP (suite energy x suite time)";
    case SweepFigure::parameter:
      return cost.path;
  }
  return {};
}

std::string sweep_cost_line(const SweepCost& cost, bool chosen, bool strategy_grid) {
  switch (cost.figure) {
    case SweepFigure::cost:
      if (strategy_grid)
        return chosen ? "Pareto cost: peak memory per GPU (a grid's points have no energy or "
                        "area; --cost names a varied key instead)"
                      : "Pareto cost: peak memory per GPU (--cost)";
      return chosen ? "Pareto cost: memory bytes (capacity x instances summed over memories, "
                      "mostly the largest memory's): the graph gives no energy or area at every "
                      "point; --cost energy, area, edp or a varied parameter names another"
                    : "Pareto cost: memory bytes (capacity x instances summed over memories; "
                      "--cost)";
    case SweepFigure::energy:
      return chosen ? "Pareto cost: suite energy, known at every point (--cost memory, area, "
                      "edp or a varied parameter names another)"
                    : "Pareto cost: suite energy (--cost)";
    case SweepFigure::area:
      return chosen ? "Pareto cost: graph area, known at every point where the energy is not "
                      "(--cost memory or a varied parameter names another)"
                    : "Pareto cost: graph area (--cost)";
    case SweepFigure::edp:
      return "Pareto cost: EDP, suite energy x suite time (--cost)";
    case SweepFigure::parameter:
      return fmt::format("Pareto cost: the value of {}, more costs more (--cost)", cost.path);
  }
  return {};
}

}  // namespace ts
