#include "correlate/Correlation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "common/InputError.hpp"

namespace ts {

OperatorKey operator_key(const ComparedPoint& point) {
  OperatorKey key;
  key.suite = point.suite;
  key.name = point.op_name;
  key.type = point.type;
  key.dims = point.shape;
  key.dtypes = point.dtypes;
  key.op_class = point.op_class;
  key.flops = point.flops;
  return key;
}

ComparedPoint compared_point(const OperatorKey& op) {
  ComparedPoint p;
  p.op_name = op.name;
  p.suite = op.suite;
  p.op_class = op.op_class;
  p.shape = op.dims;
  p.type = op.type;
  p.dtypes = op.dtypes;
  p.flops = op.flops;
  return p;
}
namespace {

const char* kGroupingForms = "class, suite, mapping, size, or size=T1,T2,... (FLOPs)";

// "41.6e9", "41.6G", "162.8 G": a FLOP count, with an optional SI prefix.
std::optional<double> parse_flops(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || !std::isfinite(value)) return std::nullopt;
  std::string_view rest(end, static_cast<size_t>(text.data() + text.size() - end));
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.empty()) return value;
  static const std::pair<std::string_view, double> prefixes[] = {
      {"k", 1e3}, {"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}};
  for (const auto& [prefix, factor] : prefixes)
    if (rest == prefix) return value * factor;
  return std::nullopt;
}

std::string flops_text(double flops) {
  static const std::pair<double, const char*> prefixes[] = {
      {1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
  for (const auto& [factor, prefix] : prefixes)
    if (std::abs(flops) >= factor) return fmt::format("{:.4g}{}", flops / factor, prefix);
  return fmt::format("{:.4g}", flops);
}

bool usable(const ComparedPoint& p) {
  return std::isfinite(p.predicted_s) && p.predicted_s > 0 && p.measured_s > 0 &&
         std::isfinite(p.measured_s);
}

AgreementStats agreement_of(const std::vector<ComparedPoint>& points,
                            const std::vector<size_t>& indices) {
  std::vector<double> predicted, measured;
  predicted.reserve(indices.size());
  measured.reserve(indices.size());
  for (size_t i : indices) {
    predicted.push_back(points[i].predicted_s);
    measured.push_back(points[i].measured_s);
  }
  return agreement(predicted, measured);
}

}  // namespace

Grouping parse_grouping(const std::string& text) {
  Grouping g;
  if (text.empty() || text == "none") return g;
  if (text == "class") {
    g.by = GroupBy::op_class;
    return g;
  }
  if (text == "suite") {
    g.by = GroupBy::suite;
    return g;
  }
  if (text == "mapping") {
    g.by = GroupBy::mapping;
    return g;
  }
  if (text == "size") {
    g.by = GroupBy::size;
    return g;
  }
  if (text.rfind("size=", 0) == 0) {
    g.by = GroupBy::size;
    std::string_view list = std::string_view(text).substr(5);
    while (true) {
      const size_t comma = list.find(',');
      const std::string_view item = list.substr(0, comma);
      const auto value = parse_flops(item);
      if (!value || *value <= 0)
        throw InputError(SourceLocation{"grouping", 0, 0},
                         fmt::format("'{}' in '{}' is not a FLOP count; expected positive numbers "
                                     "such as size=41.6e9,162.8e9",
                                     item, text));
      if (!g.thresholds.empty() && *value <= g.thresholds.back())
        throw InputError(SourceLocation{"grouping", 0, 0},
                         fmt::format("the thresholds in '{}' must increase", text));
      g.thresholds.push_back(*value);
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
    return g;
  }
  throw InputError(SourceLocation{"grouping", 0, 0},
                   fmt::format("unknown grouping '{}'; expected {}", text, kGroupingForms));
}

std::vector<double> flops_terciles(std::vector<double> flops) {
  if (flops.empty()) return {};
  std::sort(flops.begin(), flops.end());
  const size_t n = flops.size();
  return {flops[n / 3], flops[std::min(2 * n / 3, n - 1)]};
}

std::vector<std::string> size_group_names(const std::vector<double>& thresholds) {
  if (thresholds.size() == 2) return {"small", "medium", "large"};
  std::vector<std::string> names;
  if (thresholds.empty()) return {"all"};
  names.push_back(fmt::format("<{}", flops_text(thresholds.front())));
  for (size_t i = 1; i < thresholds.size(); ++i)
    names.push_back(
        fmt::format("[{},{})", flops_text(thresholds[i - 1]), flops_text(thresholds[i])));
  names.push_back(fmt::format(">={}", flops_text(thresholds.back())));
  return names;
}

size_t size_group_index(double flops, const std::vector<double>& thresholds) {
  // The number of thresholds at or below the value: a value equal to a threshold is in the
  // group above it (small < t1 <= medium).
  return static_cast<size_t>(std::upper_bound(thresholds.begin(), thresholds.end(), flops) -
                             thresholds.begin());
}

std::vector<std::string> group_labels(const std::vector<ComparedPoint>& points,
                                      const Grouping& grouping, std::vector<double>* thresholds) {
  std::vector<std::string> labels(points.size());
  std::vector<double> used = grouping.thresholds;
  if (grouping.by == GroupBy::size && used.empty()) {
    std::vector<double> flops;
    for (const ComparedPoint& p : points) flops.push_back(p.flops);
    used = flops_terciles(flops);
  }
  const std::vector<std::string> size_names = size_group_names(used);
  for (size_t i = 0; i < points.size(); ++i) {
    const ComparedPoint& p = points[i];
    switch (grouping.by) {
      case GroupBy::none:
        labels[i] = "all";
        break;
      case GroupBy::op_class:
        labels[i] = p.op_class;
        break;
      case GroupBy::suite:
        labels[i] = p.suite;
        break;
      case GroupBy::mapping:
        labels[i] = p.mapping;
        break;
      case GroupBy::size:
        labels[i] = size_names[std::min(size_group_index(p.flops, used), size_names.size() - 1)];
        break;
    }
  }
  if (thresholds) *thresholds = grouping.by == GroupBy::size ? used : std::vector<double>{};
  return labels;
}

std::vector<std::string> group_order(const std::vector<std::string>& labels,
                                     const Grouping& grouping,
                                     const std::vector<double>& thresholds) {
  const std::set<std::string> present(labels.begin(), labels.end());
  std::vector<std::string> order;
  if (grouping.by == GroupBy::size) {
    // Every size group is listed, an empty one too: a class with no points is worth seeing.
    return size_group_names(thresholds);
  }
  order.assign(present.begin(), present.end());
  return order;
}

std::vector<GroupStats> group_agreement(const std::vector<ComparedPoint>& points,
                                        const std::vector<std::string>& labels,
                                        const std::vector<std::string>& order,
                                        const std::vector<bool>& include) {
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < points.size(); ++i)
    if (include.empty() || include[i]) members[labels[i]].push_back(i);
  std::vector<GroupStats> out;
  for (const std::string& name : order) out.push_back({name, agreement_of(points, members[name])});
  return out;
}

AgreementStats overall_agreement(const std::vector<ComparedPoint>& points,
                                 const std::vector<bool>& include) {
  std::vector<size_t> all;
  for (size_t i = 0; i < points.size(); ++i)
    if (include.empty() || include[i]) all.push_back(i);
  return agreement_of(points, all);
}

CorrelationReport correlate_points(const std::vector<ComparedPoint>& points,
                                   const Grouping& grouping, size_t worst_count) {
  CorrelationReport r;
  r.overall = overall_agreement(points);
  if (grouping.by != GroupBy::none) {
    const std::vector<std::string> labels = group_labels(points, grouping, &r.size_thresholds);
    r.groups = group_agreement(points, labels, group_order(labels, grouping, r.size_thresholds));
  }
  // Worst by the size of the error in log space, so that 2x too slow and 2x too fast rank
  // alike; ties keep input order.
  std::vector<size_t> order;
  for (size_t i = 0; i < points.size(); ++i) {
    if (usable(points[i]))
      order.push_back(i);
    else if (points[i].measured_s > 0)
      ++r.failed_predictions;
  }
  auto log_error = [&](size_t i) {
    return std::abs(std::log(points[i].predicted_s / points[i].measured_s));
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return log_error(a) > log_error(b); });
  for (size_t k = 0; k < order.size() && k < worst_count; ++k) {
    const ComparedPoint& p = points[order[k]];
    r.worst.push_back({p.op_name, p.shape, p.mapping, p.bound_by, p.predicted_s, p.measured_s,
                       (p.predicted_s - p.measured_s) / p.measured_s});
  }
  return r;
}

std::vector<ShapeRanking> per_shape_ranking(const std::vector<ComparedPoint>& points,
                                            size_t min_mappings) {
  // Ordered by operator so that the report lists them the same way on every run.
  std::map<std::string, std::vector<size_t>> by_op;
  for (size_t i = 0; i < points.size(); ++i) {
    const ComparedPoint& p = points[i];
    if (p.op_class != "matmul" || p.implementation != "tiled" || !usable(p)) continue;
    by_op[p.suite + "/" + p.op_name + " " + p.shape].push_back(i);
  }
  std::vector<ShapeRanking> out;
  for (const auto& [op, members] : by_op) {
    std::set<std::string> mappings;
    for (size_t i : members) mappings.insert(points[i].mapping_hash);
    if (mappings.size() < min_mappings) continue;
    std::vector<double> predicted, measured;
    for (size_t i : members) {
      predicted.push_back(points[i].predicted_s);
      measured.push_back(points[i].measured_s);
    }
    out.push_back({op, mappings.size(), spearman_rho(predicted, measured)});
  }
  return out;
}

std::optional<double> mean_spearman(const std::vector<ShapeRanking>& rankings) {
  double sum = 0;
  size_t counted = 0;
  for (const ShapeRanking& r : rankings)
    if (r.spearman) {
      sum += *r.spearman;
      ++counted;
    }
  if (counted == 0) return std::nullopt;
  return sum / static_cast<double>(counted);
}

std::vector<int> assign_folds(const std::vector<double>& flops, int k) {
  std::vector<size_t> order(flops.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return flops[a] < flops[b]; });
  std::vector<int> fold(flops.size(), 0);
  if (k < 1) k = 1;
  for (size_t r = 0; r < order.size(); ++r)
    fold[order[r]] = static_cast<int>(r % static_cast<size_t>(k));
  return fold;
}

std::string timing_comparison_text(const std::vector<ComparedPoint>& points) {
  size_t host = 0, device = 0;
  for (const ComparedPoint& p : points) (p.scope == TimingScope::host_call ? host : device)++;
  std::string text;
  if (host) text += fmt::format("{} host_call measurements with device + launch", host);
  if (device)
    text +=
        fmt::format("{}{} device measurements with device time alone", host ? "; " : "", device);
  return text;
}

}  // namespace ts
