#include "SweepSummaryText.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "arch/ArchitectureParameterPath.hpp"
#include "common/QuantityFormat.hpp"
#include "sweep/SweepSummary.hpp"

namespace ts::cli {
namespace {

// Everything the summary says, worked out once for the text and the JSON alike.
struct SummaryFacts {
  std::vector<SweepSensitivity> rows;  // the total, the subjects, then the figures' rows
  size_t time_rows = 0;
  std::vector<std::string> notes;  // the parameters left out of the fits as collinear
  SweepCost cost;
  bool chosen = true;             // from the points, not --cost
  std::vector<SweepCost> fronts;  // the cost first
  size_t without_cost = 0;        // points with a time but without the cost (--cost energy ...)
};

SummaryFacts facts_of(const SweepSummaryText& text, const std::vector<SweepPointRecord>& points,
                      const std::vector<SweepPointRecord>& front_points) {
  SummaryFacts f;
  // Energy and area where every point that has a time has them (never in a strategy grid,
  // whose points carry neither): sensitivities on them as on time.
  const bool energy = sweep_figure_known(front_points, SweepFigure::energy);
  const bool area = sweep_figure_known(front_points, SweepFigure::area);
  f.rows = sweep_sensitivities(text.paths, points);
  f.time_rows = f.rows.size();
  if (!f.rows.empty() && energy) {
    f.rows.push_back(sweep_figure_sensitivity(text.paths, points, SweepFigure::energy));
    f.rows.back().subject = "suite energy";
  }
  if (!f.rows.empty() && area) {
    f.rows.push_back(sweep_figure_sensitivity(text.paths, points, SweepFigure::area));
    f.rows.back().subject = "graph area";
  }
  f.notes = sweep_collinearity_notes(f.rows);
  f.chosen = !text.cost.has_value();
  f.cost =
      text.cost ? *text.cost : (text.strategy_grid ? SweepCost{} : choose_sweep_cost(front_points));
  f.fronts.push_back(f.cost);
  // Chosen from the points: every figure known at every point gets its front (energy, then
  // area); the memory proxy only where neither is known.
  if (f.chosen)
    for (SweepFigure other : {SweepFigure::energy, SweepFigure::area})
      if (other != f.cost.figure && sweep_figure_known(front_points, other))
        f.fronts.push_back({other, {}});
  for (const SweepPointRecord& p : front_points)
    if (std::isfinite(p.total_s) && !sweep_cost_value(p, f.cost)) ++f.without_cost;
  return f;
}

std::string time_text(double seconds) { return format_quantity(seconds, "s"); }

// Energy in uJ, or in mJ when the front's largest is 1 mJ or more: one unit per table.
struct EnergyUnit {
  double joules;
  const char* name;
};

EnergyUnit energy_unit(const std::vector<SweepPointRecord>& front) {
  double most = 0;
  for (const SweepPointRecord& p : front) most = std::max(most, p.energy_j.value_or(0));
  return most >= 1e-3 ? EnergyUnit{1e-3, "mJ"} : EnergyUnit{1e-6, "uJ"};
}

std::string figure_text(const std::optional<double>& v, double unit, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v / unit) : std::string("-");
}

void print_front(std::ostream& out, const SweepSummaryText& text,
                 const std::vector<SweepPointRecord>& points,
                 const std::vector<SweepPointRecord>& front_points, const SweepCost& cost) {
  const std::vector<SweepPointRecord> front = pareto_front(front_points, cost);
  out << fmt::format("\nPareto front, {} against {}, {} of {} points\n",
                     text.strategy_grid ? "iteration time" : "suite time",
                     sweep_cost_title(cost, text.strategy_grid), front.size(), points.size());
  if (cost.figure == SweepFigure::cost || cost.figure == SweepFigure::parameter) {
    const std::string header = cost.figure == SweepFigure::cost ? text.cost_header : cost.path;
    out << fmt::format("{:>10}  {:>16}  {}\n", "total", header, "parameters");
    for (const SweepPointRecord& p : front)
      out << fmt::format("{:>10}  {:>16}  {}\n", time_text(p.total_s),
                         cost.figure == SweepFigure::cost
                             ? text.cost_text(p.cost)
                             : format_parameter(cost.path, *sweep_cost_value(p, cost)),
                         text.parameters_text(p));
    return;
  }
  // A front on energy, area or EDP: time, energy, area and EDP (energy x time) of its points.
  const EnergyUnit e = energy_unit(front);
  out << fmt::format("{:>10}  {:>14}  {:>12}  {:>16}  {}\n", "total",
                     fmt::format("energy_{}", e.name), "area_mm2", fmt::format("edp_{}_us", e.name),
                     "parameters");
  for (const SweepPointRecord& p : front)
    out << fmt::format(
        "{:>10}  {:>14}  {:>12}  {:>16}  {}\n", time_text(p.total_s),
        figure_text(p.energy_j, e.joules, "{:.6g}"), figure_text(p.area_m2, 1e-6, "{:.6g}"),
        figure_text(sweep_edp(p), e.joules * 1e-6, "{:.6g}"), text.parameters_text(p));
}

const char* figure_name(const SweepCost& cost) {
  switch (cost.figure) {
    case SweepFigure::cost:
      return "memory";
    case SweepFigure::energy:
      return "energy";
    case SweepFigure::area:
      return "area";
    case SweepFigure::edp:
      return "edp";
    case SweepFigure::parameter:
      return "parameter";
  }
  return "";
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

void print_sweep_summary(std::ostream& out, const SweepSummaryText& text,
                         const std::vector<SweepPointRecord>& points,
                         const std::vector<SweepPointRecord>& front_points) {
  const std::vector<std::string>& paths = text.paths;
  const SummaryFacts f = facts_of(text, points, front_points);
  out << fmt::format(
      "\nsensitivity (d ln time / d ln parameter, least squares over {} points; -1: time halves "
      "when the parameter doubles, 0: no effect{})\n",
      points.size(),
      f.rows.size() > f.time_rows
          ? "; the rows suite energy and graph area: d ln figure / d ln parameter"
          : "");
  size_t name_w = 8;
  for (const SweepSensitivity& row : f.rows) name_w = std::max(name_w, row.subject.size());
  std::string header = fmt::format("{:<{}}", "subject", name_w);
  for (const std::string& p : paths)
    header += fmt::format("  {:>{}}", p, std::max<size_t>(p.size(), 8));
  out << header << "\n";
  for (const SweepSensitivity& row : f.rows) {
    std::string line = fmt::format("{:<{}}", row.subject, name_w);
    for (size_t k = 0; k < paths.size(); ++k)
      line += fmt::format("  {:>{}}", elasticity_text(row.elasticity[k]),
                          std::max<size_t>(paths[k].size(), 8));
    out << line << "\n";
  }
  for (const std::string& note : f.notes) out << "note: " << note << "\n";
  const auto ranking_of = [&](const SweepSensitivity& row) {
    std::string ranking;
    for (const RankedSensitivity& r : rank_sensitivities(paths, row))
      ranking += fmt::format("{}{} {}", ranking.empty() ? "" : ", ", r.path,
                             elasticity_text(r.elasticity));
    return ranking;
  };
  if (!f.rows.empty())
    out << "ranking of the parameters by the total's sensitivity: " << ranking_of(f.rows.front())
        << "\n";
  for (size_t r = f.time_rows; r < f.rows.size(); ++r)
    out << fmt::format("ranking of the parameters by the {}'s sensitivity: {}\n", f.rows[r].subject,
                       ranking_of(f.rows[r]));
  out << "\n" << sweep_cost_line(f.cost, f.chosen, text.strategy_grid) << "\n";
  if (f.without_cost > 0)
    out << fmt::format("{} of the points with a time have no {}: they are on no front\n",
                       f.without_cost, sweep_cost_title(f.cost, text.strategy_grid));
  for (const SweepCost& cost : f.fronts) print_front(out, text, points, front_points, cost);
}

nlohmann::json sweep_summary_json(const SweepSummaryText& text,
                                  const std::vector<SweepPointRecord>& points,
                                  const std::vector<SweepPointRecord>& front_points) {
  const SummaryFacts f = facts_of(text, points, front_points);
  nlohmann::json j;
  j["paths"] = text.paths;
  j["points"] = points.size();
  nlohmann::json rows = nlohmann::json::array();
  for (const SweepSensitivity& row : f.rows) {
    nlohmann::json r;
    r["subject"] = row.subject;
    nlohmann::json e = nlohmann::json::object();
    for (size_t k = 0; k < text.paths.size(); ++k)
      e[text.paths[k]] = optional_json(row.elasticity[k]);
    r["elasticity"] = e;
    nlohmann::json collinear = nlohmann::json::array();
    for (const SweepCollinearity& c : row.collinear)
      collinear.push_back({{"path", c.path}, {"with", c.with}});
    r["collinear"] = collinear;
    rows.push_back(r);
  }
  j["sensitivities"] = rows;
  j["notes"] = f.notes;
  nlohmann::json ranking = nlohmann::json::array();
  if (!f.rows.empty())
    for (const RankedSensitivity& r : rank_sensitivities(text.paths, f.rows.front()))
      ranking.push_back({{"path", r.path}, {"elasticity", optional_json(r.elasticity)}});
  j["ranking"] = ranking;
  j["cost"] = {{"figure", figure_name(f.cost)},
               {"chosen", f.chosen ? "from the points" : "--cost"},
               {"line", sweep_cost_line(f.cost, f.chosen, text.strategy_grid)}};
  if (f.cost.figure == SweepFigure::parameter) j["cost"]["path"] = f.cost.path;
  j["points_without_cost"] = f.without_cost;
  nlohmann::json fronts = nlohmann::json::array();
  for (const SweepCost& cost : f.fronts) {
    nlohmann::json front;
    front["figure"] = figure_name(cost);
    front["title"] = sweep_cost_title(cost, text.strategy_grid);
    nlohmann::json members = nlohmann::json::array();
    for (const SweepPointRecord& p : pareto_front(front_points, cost)) {
      nlohmann::json m;
      m["total_s"] = p.total_s;
      m["cost"] = optional_json(sweep_cost_value(p, cost));
      m["memory_cost"] = p.cost;
      m["energy_j"] = optional_json(p.energy_j);
      m["area_m2"] = optional_json(p.area_m2);
      m["edp_j_s"] = optional_json(sweep_edp(p));
      m["parameters"] = nlohmann::json::parse(p.parameters_json);
      members.push_back(m);
    }
    front["points"] = members;
    fronts.push_back(front);
  }
  j["fronts"] = fronts;
  return j;
}

}  // namespace ts::cli
