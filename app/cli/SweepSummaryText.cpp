#include "SweepSummaryText.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "sweep/SweepSummary.hpp"

namespace ts::cli {
namespace {

std::string elasticity_text(const std::optional<double>& e) {
  return e ? fmt::format("{:+.3f}", *e) : std::string("-");
}

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

// A front on energy or area: time, energy, area and EDP (energy x time) of each of its points.
void print_figure_front(std::ostream& out, const SweepSummaryText& text,
                        const std::vector<SweepPointRecord>& points,
                        const std::vector<SweepPointRecord>& front_points, SweepFigure figure) {
  const std::vector<SweepPointRecord> front = pareto_front(front_points, figure);
  const EnergyUnit e = energy_unit(front);
  out << fmt::format("\nPareto front, suite time against {}, {} of {} points\n",
                     figure == SweepFigure::energy
                         ? "suite energy (sum over operators of energy, once each)"
                         : "graph area (area x instances summed over nodes)",
                     front.size(), points.size());
  out << fmt::format("{:>14}  {:>14}  {:>12}  {:>16}  {}\n", "total_us",
                     fmt::format("energy_{}", e.name), "area_mm2", fmt::format("edp_{}_us", e.name),
                     "parameters");
  for (const SweepPointRecord& p : front) {
    const std::optional<double> edp = sweep_edp(p);
    out << fmt::format("{:>14.3f}  {:>14}  {:>12}  {:>16}  {}\n", p.total_s * 1e6,
                       figure_text(p.energy_j, e.joules, "{:.6g}"),
                       figure_text(p.area_m2, 1e-6, "{:.6g}"),
                       figure_text(edp, e.joules * 1e-6, "{:.6g}"), text.parameters_text(p));
  }
}

}  // namespace

void print_sweep_summary(std::ostream& out, const SweepSummaryText& text,
                         const std::vector<SweepPointRecord>& points,
                         const std::vector<SweepPointRecord>& front_points) {
  const std::vector<std::string>& paths = text.paths;
  // Energy and area where every point that has a time has them (never in a strategy grid,
  // whose points carry neither): fronts and sensitivities on them as on time.
  const bool energy = sweep_figure_known(front_points, SweepFigure::energy);
  const bool area = sweep_figure_known(front_points, SweepFigure::area);
  out << fmt::format(
      "\nsensitivity (d ln time / d ln parameter, least squares over {} points; -1: time halves "
      "when the parameter doubles{})\n",
      points.size(),
      energy || area ? "; the rows suite energy and graph area: d ln figure / d ln parameter" : "");
  std::vector<SweepSensitivity> rows = sweep_sensitivities(paths, points);
  const size_t time_rows = rows.size();
  if (!rows.empty() && energy) {
    rows.push_back(sweep_figure_sensitivity(paths, points, SweepFigure::energy));
    rows.back().subject = "suite energy";
  }
  if (!rows.empty() && area) {
    rows.push_back(sweep_figure_sensitivity(paths, points, SweepFigure::area));
    rows.back().subject = "graph area";
  }
  size_t name_w = 8;
  for (const SweepSensitivity& row : rows) name_w = std::max(name_w, row.subject.size());
  std::string header = fmt::format("{:<{}}", "subject", name_w);
  for (const std::string& p : paths)
    header += fmt::format("  {:>{}}", p, std::max<size_t>(p.size(), 8));
  out << header << "\n";
  for (const SweepSensitivity& row : rows) {
    std::string line = fmt::format("{:<{}}", row.subject, name_w);
    for (size_t k = 0; k < paths.size(); ++k)
      line += fmt::format("  {:>{}}", elasticity_text(row.elasticity[k]),
                          std::max<size_t>(paths[k].size(), 8));
    out << line << "\n";
  }
  const auto ranking_of = [&](const SweepSensitivity& row) {
    std::string ranking;
    for (const RankedSensitivity& r : rank_sensitivities(paths, row))
      ranking += fmt::format("{}{} {}", ranking.empty() ? "" : ", ", r.path,
                             elasticity_text(r.elasticity));
    return ranking;
  };
  if (!rows.empty())
    out << "ranking of the parameters by the total's sensitivity: " << ranking_of(rows.front())
        << "\n";
  for (size_t r = time_rows; r < rows.size(); ++r)
    out << fmt::format("ranking of the parameters by the {}'s sensitivity: {}\n", rows[r].subject,
                       ranking_of(rows[r]));
  if (energy) print_figure_front(out, text, points, front_points, SweepFigure::energy);
  if (area) {
    print_figure_front(out, text, points, front_points, SweepFigure::area);
    return;
  }
  // No area: the front against the cost proxy, as before graphs gave figures.
  const std::vector<SweepPointRecord> front = pareto_front(front_points);
  out << fmt::format("\nPareto front, suite time against cost ({}), {} of {} points\n",
                     text.cost_title, front.size(), points.size());
  out << fmt::format("{:>14}  {:>16}  {}\n", "total_us", text.cost_header, "parameters");
  for (const SweepPointRecord& p : front)
    out << fmt::format("{:>14.3f}  {:>16}  {}\n", p.total_s * 1e6, text.cost_text(p.cost),
                       text.parameters_text(p));
}

}  // namespace ts::cli
