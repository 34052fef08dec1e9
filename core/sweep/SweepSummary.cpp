#include "sweep/SweepSummary.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

namespace ts {
namespace {

// Solves the square system a x = b by Gaussian elimination with partial pivoting; nullopt when
// it is singular (relative to its largest entry), i.e. the points do not determine the fit.
std::optional<std::vector<double>> solve(std::vector<std::vector<double>> a,
                                         std::vector<double> b) {
  const size_t n = b.size();
  double scale = 0;
  for (const auto& row : a)
    for (double v : row) scale = std::max(scale, std::abs(v));
  for (size_t c = 0; c < n; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    if (!(std::abs(a[pivot][c]) > 1e-12 * scale)) return std::nullopt;
    std::swap(a[c], a[pivot]);
    std::swap(b[c], b[pivot]);
    for (size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r][c] / a[c][c];
      for (size_t k = c; k < n; ++k) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = b[i] / a[i][i];
  return x;
}

// Least squares of ln T on the ln p of the fittable paths, over the points whose T is finite
// and positive. `times[i]` is T of point i.
std::vector<std::optional<double>> elasticities(const std::vector<std::vector<double>>& values,
                                                const std::vector<double>& times,
                                                size_t path_count) {
  std::vector<std::optional<double>> out(path_count);
  // A path is fittable when it took two values or more, all positive.
  std::vector<size_t> fitted;
  for (size_t k = 0; k < path_count; ++k) {
    bool positive = true, varies = false;
    for (const auto& v : values) {
      positive = positive && v[k] > 0;
      varies = varies || v[k] != values.front()[k];
    }
    if (positive && varies) fitted.push_back(k);
  }
  if (fitted.empty()) return out;
  const size_t n = fitted.size() + 1;  // the intercept, then the fitted paths
  std::vector<std::vector<double>> normal(n, std::vector<double>(n, 0));
  std::vector<double> rhs(n, 0);
  size_t used = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(times[i]) || !(times[i] > 0)) continue;
    std::vector<double> x{1};
    for (size_t k : fitted) x.push_back(std::log(values[i][k]));
    const double y = std::log(times[i]);
    for (size_t r = 0; r < n; ++r) {
      rhs[r] += x[r] * y;
      for (size_t c = 0; c < n; ++c) normal[r][c] += x[r] * x[c];
    }
    ++used;
  }
  if (used < n) return out;
  const auto fit = solve(std::move(normal), std::move(rhs));
  if (!fit) return out;
  for (size_t j = 0; j < fitted.size(); ++j) out[fitted[j]] = (*fit)[j + 1];
  return out;
}

}  // namespace

std::vector<double> sweep_parameter_values(const SweepPointRecord& point,
                                           const std::vector<std::string>& paths) {
  const nlohmann::json parameters = nlohmann::json::parse(point.parameters_json);
  std::vector<double> values;
  // A value that is no number (a schedule, a cluster file) has no logarithm: NaN, which the
  // fit leaves out like a value <= 0.
  for (const std::string& path : paths) {
    const nlohmann::json& v = parameters.at(path);
    values.push_back(v.is_number() ? v.get<double>() : std::nan(""));
  }
  return values;
}

std::vector<SweepSensitivity> sweep_sensitivities(const std::vector<std::string>& paths,
                                                  const std::vector<SweepPointRecord>& points) {
  std::vector<SweepSensitivity> rows;
  if (points.empty()) return rows;
  std::vector<std::vector<double>> values;
  for (const SweepPointRecord& p : points) values.push_back(sweep_parameter_values(p, paths));
  std::vector<double> times;
  for (const SweepPointRecord& p : points) times.push_back(p.total_s);
  rows.push_back({"total", elasticities(values, times, paths.size())});
  // Subjects are named by the point with the most of them: a point that failed as a whole (a
  // strategy the simulator refused) may list fewer; it has no time for the rest.
  const SweepPointRecord& named = *std::max_element(
      points.begin(), points.end(), [](const SweepPointRecord& a, const SweepPointRecord& b) {
        return a.operators.size() < b.operators.size();
      });
  for (size_t o = 0; o < named.operators.size(); ++o) {
    const std::string& name = named.operators[o].name;
    times.clear();
    for (const SweepPointRecord& p : points) {
      if (o >= p.operators.size() || p.operators[o].name != name) {
        times.push_back(std::numeric_limits<double>::infinity());
        continue;
      }
      const SweepOperatorTime& t = p.operators[o];
      times.push_back(t.device_s + t.launch_s);
    }
    rows.push_back({name, elasticities(values, times, paths.size())});
  }
  return rows;
}

std::vector<RankedSensitivity> rank_sensitivities(const std::vector<std::string>& paths,
                                                  const SweepSensitivity& row) {
  std::vector<RankedSensitivity> ranked;
  for (size_t k = 0; k < paths.size(); ++k) ranked.push_back({paths[k], row.elasticity.at(k)});
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const RankedSensitivity& a, const RankedSensitivity& b) {
                     if (a.elasticity.has_value() != b.elasticity.has_value())
                       return a.elasticity.has_value();
                     return a.elasticity && std::abs(*a.elasticity) > std::abs(*b.elasticity);
                   });
  return ranked;
}

std::vector<SweepPointRecord> pareto_front(std::vector<SweepPointRecord> points) {
  return pareto_front(std::move(points), SweepFigure::cost);
}

std::optional<double> sweep_figure(const SweepPointRecord& point, SweepFigure figure) {
  switch (figure) {
    case SweepFigure::cost:
      return point.cost;
    case SweepFigure::energy:
      return point.energy_j;
    case SweepFigure::area:
      return point.area_m2;
  }
  return std::nullopt;
}

std::optional<double> sweep_edp(const SweepPointRecord& point) {
  if (!point.energy_j || !std::isfinite(point.total_s)) return std::nullopt;
  return *point.energy_j * point.total_s;
}

bool sweep_figure_known(const std::vector<SweepPointRecord>& points, SweepFigure figure) {
  bool any = false;
  for (const SweepPointRecord& p : points) {
    if (!std::isfinite(p.total_s)) continue;
    if (!sweep_figure(p, figure)) return false;
    any = true;
  }
  return any;
}

std::vector<SweepPointRecord> pareto_front(std::vector<SweepPointRecord> points,
                                           SweepFigure figure) {
  std::erase_if(points, [&](const SweepPointRecord& p) {
    return !std::isfinite(p.total_s) || !sweep_figure(p, figure);
  });
  const SweepFigure other = figure == SweepFigure::energy ? SweepFigure::area : SweepFigure::energy;
  std::sort(points.begin(), points.end(),
            [&](const SweepPointRecord& a, const SweepPointRecord& b) {
              const double fa = *sweep_figure(a, figure), fb = *sweep_figure(b, figure);
              if (fa != fb) return fa < fb;
              if (a.total_s != b.total_s) return a.total_s < b.total_s;
              // A tie in both: the lower energy (the lower area on the energy front), then the
              // first by parameters; an unknown figure last.
              const double inf = std::numeric_limits<double>::infinity();
              const double ta = sweep_figure(a, other).value_or(inf);
              const double tb = sweep_figure(b, other).value_or(inf);
              if (ta != tb) return ta < tb;
              return a.parameters_json < b.parameters_json;
            });
  std::vector<SweepPointRecord> front;
  for (SweepPointRecord& p : points)
    if (front.empty() || p.total_s < front.back().total_s) front.push_back(std::move(p));
  return front;
}

SweepSensitivity sweep_figure_sensitivity(const std::vector<std::string>& paths,
                                          const std::vector<SweepPointRecord>& points,
                                          SweepFigure figure) {
  SweepSensitivity row{figure == SweepFigure::energy ? "energy"
                       : figure == SweepFigure::area ? "area"
                                                     : "cost",
                       std::vector<std::optional<double>>(paths.size())};
  if (points.empty()) return row;
  std::vector<std::vector<double>> values;
  std::vector<double> figures;
  for (const SweepPointRecord& p : points) {
    values.push_back(sweep_parameter_values(p, paths));
    // Unknown reads as infinite: left out of the fit, as a time without a valid mapping is.
    figures.push_back(sweep_figure(p, figure).value_or(std::numeric_limits<double>::infinity()));
  }
  row.elasticity = elasticities(values, figures, paths.size());
  return row;
}

}  // namespace ts
