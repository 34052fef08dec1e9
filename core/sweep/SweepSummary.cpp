#include "sweep/SweepSummary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numeric>

#include "sweep/SweepAxisEffect.hpp"
#include "sweep/SweepCost.hpp"

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

struct SubjectFit {
  std::vector<std::optional<double>> elasticity;
  std::vector<SweepCollinearity> collinear;
};

// Least squares of ln T on the ln p of the fittable paths, over the points whose T is finite
// and positive. `times[i]` is T of point i; `texts[i]` its values as text (grouping for the
// no-effect test). A path is fittable when it took two values or more over those points, all
// positive numbers. One that leaves T where it is at every combination of the others' values
// (sweep_path_without_effect), or every path when T does not move at all, is 0 exactly: a
// least-squares slope through equal values is rounding noise ("-0.000"), or worse when the
// system is close to singular. The others enter the fit in the order given, each only when its
// centred column is not (within 1e-8 of its norm) a combination of those already in: collinear
// paths would make the fit singular, and nearly collinear ones blow rounding up into big,
// meaningless slopes.
SubjectFit elasticities(const std::vector<std::vector<double>>& values,
                        const std::vector<std::vector<std::string>>& texts,
                        const std::vector<double>& times, const std::vector<std::string>& paths) {
  const size_t path_count = paths.size();
  SubjectFit out{std::vector<std::optional<double>>(path_count), {}};
  std::vector<size_t> used;
  for (size_t i = 0; i < values.size(); ++i)
    if (std::isfinite(times[i]) && times[i] > 0) used.push_back(i);
  if (used.size() < 2) return out;
  std::vector<size_t> candidates;
  for (size_t k = 0; k < path_count; ++k) {
    bool positive = true, varies = false;
    for (size_t i : used) {
      positive = positive && std::isfinite(values[i][k]) && values[i][k] > 0;
      varies = varies || values[i][k] != values[used.front()][k];
    }
    if (positive && varies) candidates.push_back(k);
  }
  if (candidates.empty()) return out;
  std::vector<double> y;
  for (size_t i : used) y.push_back(std::log(times[i]));
  const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
  if (*hi - *lo <= 1e-12) {
    for (size_t k : candidates) out.elasticity[k] = 0.0;
    return out;
  }
  std::vector<std::vector<std::string>> used_texts;
  std::vector<double> used_times;
  for (size_t i : used) {
    used_texts.push_back(texts[i]);
    used_times.push_back(times[i]);
  }
  const double m = static_cast<double>(used.size());
  // Centred log columns, orthonormalised one by one (modified Gram-Schmidt, twice for
  // stability) to tell which enter the fit.
  std::vector<size_t> fitted;
  std::vector<std::vector<double>> columns, basis;
  for (size_t k : candidates) {
    if (sweep_path_without_effect(k, used_texts, used_times)) {
      out.elasticity[k] = 0.0;
      continue;
    }
    std::vector<double> c;
    for (size_t i : used) c.push_back(std::log(values[i][k]));
    const double mean = std::accumulate(c.begin(), c.end(), 0.0) / m;
    for (double& v : c) v -= mean;
    const double norm2 = std::inner_product(c.begin(), c.end(), c.begin(), 0.0);
    std::vector<double> r = c;
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& q : basis) {
        const double d = std::inner_product(q.begin(), q.end(), r.begin(), 0.0);
        for (size_t i = 0; i < r.size(); ++i) r[i] -= d * q[i];
      }
    const double rest2 = std::inner_product(r.begin(), r.end(), r.begin(), 0.0);
    if (rest2 <= 1e-8 * norm2) {
      // Which of the fitted paths it is a combination of: its regression on them.
      SweepCollinearity note{paths[k], {}};
      std::vector<std::vector<double>> a(fitted.size(), std::vector<double>(fitted.size()));
      std::vector<double> b(fitted.size());
      for (size_t p = 0; p < fitted.size(); ++p) {
        b[p] = std::inner_product(columns[p].begin(), columns[p].end(), c.begin(), 0.0);
        for (size_t q = 0; q < fitted.size(); ++q)
          a[p][q] =
              std::inner_product(columns[p].begin(), columns[p].end(), columns[q].begin(), 0.0);
      }
      if (const auto coef = solve(std::move(a), std::move(b)))
        for (size_t p = 0; p < fitted.size(); ++p)
          if (std::abs((*coef)[p]) > 1e-6) note.with.push_back(paths[fitted[p]]);
      out.collinear.push_back(std::move(note));
      continue;
    }
    const double len = std::sqrt(rest2);
    for (double& v : r) v /= len;
    basis.push_back(std::move(r));
    columns.push_back(std::move(c));
    fitted.push_back(k);
  }
  if (fitted.empty()) return out;
  // The fit on the centred columns (the intercept is the means'): normal equations.
  const double y_mean = std::accumulate(y.begin(), y.end(), 0.0) / m;
  for (double& v : y) v -= y_mean;
  const size_t n = fitted.size();
  std::vector<std::vector<double>> normal(n, std::vector<double>(n));
  std::vector<double> rhs(n);
  for (size_t p = 0; p < n; ++p) {
    rhs[p] = std::inner_product(columns[p].begin(), columns[p].end(), y.begin(), 0.0);
    for (size_t q = 0; q < n; ++q)
      normal[p][q] =
          std::inner_product(columns[p].begin(), columns[p].end(), columns[q].begin(), 0.0);
  }
  const auto fit = solve(std::move(normal), std::move(rhs));
  if (!fit) return out;
  for (size_t p = 0; p < n; ++p) out.elasticity[fitted[p]] = (*fit)[p] + 0.0;  // no -0
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
  const std::vector<std::vector<std::string>> texts = sweep_parameter_texts(points, paths);
  std::vector<double> times;
  for (const SweepPointRecord& p : points) times.push_back(p.total_s);
  const auto row = [&](std::string subject) {
    SubjectFit fit = elasticities(values, texts, times, paths);
    return SweepSensitivity{std::move(subject), std::move(fit.elasticity),
                            std::move(fit.collinear)};
  };
  rows.push_back(row("total"));
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
    rows.push_back(row(name));
  }
  return rows;
}

std::string elasticity_text(const std::optional<double>& e) {
  if (!e) return "-";
  if (std::abs(*e) < 0.0005) return "0";
  return fmt::format("{:+.3f}", *e);
}

std::vector<std::string> sweep_collinearity_notes(const std::vector<SweepSensitivity>& rows) {
  std::vector<std::string> notes;
  std::set<std::string> named;
  for (const SweepSensitivity& row : rows)
    for (const SweepCollinearity& c : row.collinear) {
      if (!named.insert(c.path).second) continue;
      std::string with;
      for (size_t i = 0; i < c.with.size(); ++i)
        with += (i == 0 ? "" : i + 1 == c.with.size() ? " and " : ", ") + c.with[i];
      notes.push_back(
          c.with.empty()
              ? fmt::format("{} is not fitted: over these points it cannot be told apart from "
                            "the parameters fitted before it",
                            c.path)
              : fmt::format("{} is not fitted: over these points it is determined by {} (its "
                            "logarithm is a linear combination of theirs), so its effect cannot "
                            "be told apart from theirs; their elasticities hold it",
                            c.path, with));
    }
  return notes;
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
    case SweepFigure::edp:
      return sweep_edp(point);
    case SweepFigure::parameter:
      return std::nullopt;  // needs the path: sweep_cost_value
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
  return pareto_front(std::move(points), SweepCost{figure, {}});
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
  const std::vector<std::vector<std::string>> texts = sweep_parameter_texts(points, paths);
  std::vector<double> figures;
  for (const SweepPointRecord& p : points) {
    values.push_back(sweep_parameter_values(p, paths));
    // Unknown reads as infinite: left out of the fit, as a time without a valid mapping is.
    figures.push_back(sweep_figure(p, figure).value_or(std::numeric_limits<double>::infinity()));
  }
  SubjectFit fit = elasticities(values, texts, figures, paths);
  row.elasticity = std::move(fit.elasticity);
  row.collinear = std::move(fit.collinear);
  return row;
}

}  // namespace ts
