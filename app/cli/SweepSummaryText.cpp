#include "SweepSummaryText.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sweep/SweepSummary.hpp"

namespace ts::cli {
namespace {

std::string elasticity_text(const std::optional<double>& e) {
  return e ? fmt::format("{:+.3f}", *e) : std::string("-");
}

}  // namespace

void print_sweep_summary(std::ostream& out, const SweepSummaryText& text,
                         const std::vector<SweepPointRecord>& points,
                         const std::vector<SweepPointRecord>& front_points) {
  const std::vector<std::string>& paths = text.paths;
  out << fmt::format(
      "\nsensitivity (d ln time / d ln parameter, least squares over {} points; -1: time halves "
      "when the parameter doubles)\n",
      points.size());
  const std::vector<SweepSensitivity> rows = sweep_sensitivities(paths, points);
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
  if (!rows.empty()) {
    std::string ranking;
    for (const RankedSensitivity& r : rank_sensitivities(paths, rows.front()))
      ranking += fmt::format("{}{} {}", ranking.empty() ? "" : ", ", r.path,
                             elasticity_text(r.elasticity));
    out << "ranking of the parameters by the total's sensitivity: " << ranking << "\n";
  }
  const std::vector<SweepPointRecord> front = pareto_front(front_points);
  out << fmt::format("\nPareto front, suite time against cost ({}), {} of {} points\n",
                     text.cost_title, front.size(), points.size());
  out << fmt::format("{:>14}  {:>16}  {}\n", "total_us", text.cost_header, "parameters");
  for (const SweepPointRecord& p : front)
    out << fmt::format("{:>14.3f}  {:>16}  {}\n", p.total_s * 1e6, text.cost_text(p.cost),
                       text.parameters_text(p));
}

}  // namespace ts::cli
