#include "sweep/SweepAxisEffect.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "arch/ArchitectureParameterPath.hpp"
#include "common/InputError.hpp"
#include "measure/MeasurementRecord.hpp"
#include "sweep/SweepSummary.hpp"

namespace ts {
namespace {

bool is_port(ParameterField f) {
  return f == ParameterField::node_bandwidth || f == ParameterField::node_read_bandwidth ||
         f == ParameterField::node_write_bandwidth;
}

// The graph with every axis but `skip` at the value that loosens a cap most: the largest (more
// bandwidth, more instances), or 0 for a port swept to 0 (no limit at all).
ArchitectureGraph loosest(const ArchitectureGraph& base, const std::vector<SweepAxis>& axes,
                          size_t skip) {
  ArchitectureGraph g = base;
  for (size_t j = 0; j < axes.size(); ++j) {
    if (j == skip) continue;
    const SweepAxis& a = axes[j];
    const bool none = is_port(a.resolved.field) &&
                      std::find(a.values.begin(), a.values.end(), 0.0) != a.values.end();
    set_parameter_value(g, a.resolved, none ? 0.0 : a.max());
  }
  return g;
}

struct Cap {
  double value = std::numeric_limits<double>::infinity();
  std::string by;
  void lower(double v, std::string why) {
    if (v > 0 && v < value) {
      value = v;
      by = std::move(why);
    }
  }
};

std::string bandwidth(double v) { return format_parameter(ParameterField::edge_bandwidth, v); }

// A memory's port figure as a cap of an edge at it: what one user gets of it at most, or, on a
// shared edge (one pool whose users each get a share, as the port's users do), the port's total.
void port_of_edge(Cap& cap, const ArchitectureGraph& g, NodeId node, double figure,
                  const char* field, const char* what, bool shared_edge) {
  if (figure <= 0) return;
  const ArchNode& n = g.node(node);
  const double total = shared_edge ? n.port_total_bytes_per_s(figure) : figure;
  const std::string path = node_parameter_path(g, node, field);
  cap.lower(total, total == figure
                       ? fmt::format("node {}'s {} ({} = {})", n.name, what, path, bandwidth(total))
                       : fmt::format("node {}'s {} ({} x {} instances = {})", n.name, what, path,
                                     n.instances, bandwidth(total)));
}

// A memory's port never binds where all its edges together cannot carry more: each edge one
// shared pool, and no partial sums anywhere in the graph (a reduction's stores and read-backs
// count against a port by other rules). The edges' figures, summed, with their names.
void edges_of_port(Cap& cap, const ArchitectureGraph& g, NodeId memory, bool in, bool out) {
  for (const ArchEdge& e : g.edges)
    if (e.reduction != EdgeReduction::none) return;
  double sum = 0;
  std::vector<std::string> names;
  for (EdgeId k : g.edge_ids()) {
    const ArchEdge& e = g.edge(k);
    if (!((in && e.to == memory) || (out && e.from == memory))) continue;
    if (e.sharing != EdgeSharing::shared) return;
    sum += e.bandwidth_bytes_per_s;
    names.push_back(g.node(e.from).name + "->" + g.node(e.to).name);
  }
  if (names.empty()) return;
  std::string list;
  for (size_t i = 0; i < names.size(); ++i)
    list += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  cap.lower(sum, names.size() == 1
                     ? fmt::format("its edge {} (one shared pool of {})", list, bandwidth(sum))
                     : fmt::format("its edges {} (each one shared pool; {} together)", list,
                                   bandwidth(sum)));
}

Cap cap_of(const ArchitectureGraph& g, const ParameterPath& p) {
  Cap cap;
  switch (p.field) {
    case ParameterField::edge_bandwidth:
    case ParameterField::edge_reduction_bandwidth: {
      // ArchitectureGraph::effective_bandwidth: the edge's figure, then the min() with the read
      // port of its source, the write port of its target and the combined port of either.
      const ArchEdge& e = g.edge(p.edge);
      const bool shared = e.sharing == EdgeSharing::shared;
      const ArchNode& from = g.node(e.from);
      const ArchNode& to = g.node(e.to);
      port_of_edge(cap, g, e.from, from.read_port_bytes_per_s, "read_bandwidth", "read port",
                   shared);
      port_of_edge(cap, g, e.to, to.write_port_bytes_per_s, "write_bandwidth", "write port",
                   shared);
      port_of_edge(cap, g, e.from, from.port_bytes_per_s, "bandwidth", "port", shared);
      port_of_edge(cap, g, e.to, to.port_bytes_per_s, "bandwidth", "port", shared);
      break;
    }
    case ParameterField::node_read_bandwidth:
    case ParameterField::node_write_bandwidth: {
      // A read or write port above the combined port: the combined one is met first everywhere
      // both apply (the same share rule, a floor over a superset of the bytes).
      const ArchNode& n = g.node(p.node);
      if (n.port_bytes_per_s > 0)
        cap.lower(n.port_bytes_per_s, fmt::format("node {}'s combined port ({} = {})", n.name,
                                                  node_parameter_path(g, p.node, "bandwidth"),
                                                  bandwidth(n.port_bytes_per_s)));
      const bool read = p.field == ParameterField::node_read_bandwidth;
      edges_of_port(cap, g, p.node, !read, read);
      break;
    }
    case ParameterField::node_bandwidth:
      edges_of_port(cap, g, p.node, true, true);
      break;
    default:
      break;
  }
  return cap;
}

std::string values_text(const std::string& path, const std::vector<double>& values,
                        bool zero_means_none) {
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    out += i == 0 ? "" : i + 1 == values.size() ? " and " : ", ";
    out += values[i] == 0 && zero_means_none ? std::string("0 (no limit)")
                                             : format_parameter(path, values[i]);
  }
  return out;
}

bool same_figure(double a, double b) {
  if (a == b) return true;  // infinities too: no valid mapping at either
  if (!std::isfinite(a) || !std::isfinite(b)) return false;
  return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

// The points grouped by their values of every path but `path`: per group, (value, figure)
// pairs, rising by value. A value that is no number (a schedule's name) is its rank among the
// path's names, sorted. Points whose figure is NaN are left out.
std::vector<std::vector<std::pair<double, double>>> groups_along(
    size_t path, const std::vector<std::vector<std::string>>& texts,
    const std::vector<double>& figures) {
  std::set<std::string> names;
  for (const auto& t : texts)
    if (!nlohmann::json::parse(t[path], nullptr, false).is_number()) names.insert(t[path]);
  std::map<std::string, std::vector<std::pair<double, double>>> groups;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (std::isnan(figures[i])) continue;
    const nlohmann::json v = nlohmann::json::parse(texts[i][path], nullptr, false);
    const double value =
        v.is_number()
            ? v.get<double>()
            : static_cast<double>(std::distance(names.begin(), names.find(texts[i][path])));
    std::string key;
    for (size_t k = 0; k < texts[i].size(); ++k)
      if (k != path) key += texts[i][k] + '\x1f';
    groups[key].emplace_back(value, figures[i]);
  }
  std::vector<std::vector<std::pair<double, double>>> out;
  for (auto& [key, g] : groups) {
    std::sort(g.begin(), g.end());
    out.push_back(std::move(g));
  }
  return out;
}

bool numeric_path(size_t path, const std::vector<std::vector<std::string>>& texts) {
  return std::all_of(texts.begin(), texts.end(), [&](const std::vector<std::string>& t) {
    return nlohmann::json::parse(t[path], nullptr, false).is_number();
  });
}

bool two_values(const std::vector<std::pair<double, double>>& g) {
  return !g.empty() && g.front().first != g.back().first;
}

}  // namespace

std::vector<SweepAxisCap> sweep_axis_caps(const ArchitectureGraph& base,
                                          const std::vector<SweepAxis>& axes) {
  std::vector<SweepAxisCap> out;
  for (size_t k = 0; k < axes.size(); ++k) {
    const SweepAxis& a = axes[k];
    const Cap cap = cap_of(loosest(base, axes, k), a.resolved);
    if (!std::isfinite(cap.value)) continue;
    SweepAxisCap c{k, a.path, cap.value, cap.by, {}, false};
    const bool port = is_port(a.resolved.field);
    for (double v : a.values) {
      // A port of 0 is no limit: beyond any cap.
      const bool none = port && v == 0;
      if (v > cap.value * (1 + 1e-12) || none) {
        c.capped.push_back(v);
        c.zero_means_none = c.zero_means_none || none;
      }
    }
    if (!c.capped.empty()) out.push_back(std::move(c));
  }
  return out;
}

std::optional<std::vector<SweepAxisCap>> stored_sweep_caps(
    const ArchitectureGraph& graph, const std::vector<SweepPointRecord>& points) {
  if (points.empty()) return std::nullopt;
  std::map<std::string, std::set<double>> values;
  for (const SweepPointRecord& p : points) {
    const nlohmann::json parameters = nlohmann::json::parse(p.parameters_json, nullptr, false);
    if (!parameters.is_object()) return std::nullopt;
    for (const auto& [path, v] : parameters.items()) {
      if (!v.is_number()) return std::nullopt;  // a strategy grid's schedule or cluster
      values[path].insert(v.get<double>());
    }
  }
  try {
    std::vector<SweepAxis> axes;
    ArchitectureGraph first = graph;
    const nlohmann::json at = nlohmann::json::parse(points.front().parameters_json);
    for (const auto& [path, seen] : values) {
      const ParameterPath resolved = parse_parameter_path(path, graph, "sweep");
      set_parameter_value(first, resolved, at.at(path).get<double>());
      if (seen.size() > 1) axes.push_back({path, resolved, {seen.begin(), seen.end()}});
    }
    if (hash_text(first.content_hash()) != points.front().arch_hash) return std::nullopt;
    return sweep_axis_caps(graph, axes);
  } catch (const InputError&) {
    return std::nullopt;  // a path the graph does not have: not its sweep
  }
}

std::string sweep_cap_text(const SweepAxisCap& cap) {
  const std::string at = format_parameter(cap.path, cap.cap);
  return fmt::format("values above {} are capped by {}; {} {} what {} does", at, cap.capped_by,
                     values_text(cap.path, cap.capped, cap.zero_means_none),
                     cap.capped.size() == 1 ? "gives" : "give", at);
}

std::vector<std::vector<std::string>> sweep_parameter_texts(
    const std::vector<SweepPointRecord>& points, const std::vector<std::string>& paths) {
  std::vector<std::vector<std::string>> texts;
  texts.reserve(points.size());
  for (const SweepPointRecord& p : points) {
    const nlohmann::json parameters = nlohmann::json::parse(p.parameters_json);
    std::vector<std::string> row;
    for (const std::string& path : paths)
      row.push_back(parameters.contains(path) ? parameters.at(path).dump() : std::string("null"));
    texts.push_back(std::move(row));
  }
  return texts;
}

bool sweep_path_without_effect(size_t path, const std::vector<std::vector<std::string>>& texts,
                               const std::vector<double>& figures) {
  bool evidence = false;
  for (const auto& g : groups_along(path, texts, figures)) {
    evidence = evidence || two_values(g);
    for (const auto& [value, figure] : g)
      if (!same_figure(figure, g.front().second)) return false;
  }
  return evidence;
}

std::vector<SweepAxisPlateau> sweep_axis_plateaus(const std::vector<std::string>& paths,
                                                  const std::vector<SweepPointRecord>& points) {
  std::vector<double> totals;
  for (const SweepPointRecord& p : points) totals.push_back(p.total_s);
  std::vector<SweepAxisPlateau> plateaus = sweep_axis_plateaus(paths, points, totals);
  // An axis that leaves the time alone may still be what the sweep is for: buffers swept for
  // their energy (the Eyeriss sample). Energy and area where every point with a time has them.
  const auto texts = sweep_parameter_texts(points, paths);
  const std::pair<SweepFigure, const char*> others[] = {{SweepFigure::energy, "suite energy"},
                                                        {SweepFigure::area, "graph area"}};
  for (const auto& [figure, name] : others) {
    if (!sweep_figure_known(points, figure)) continue;
    std::vector<double> values;
    for (const SweepPointRecord& p : points)
      values.push_back(std::isfinite(p.total_s) ? sweep_figure(p, figure).value_or(std::nan(""))
                                                : std::nan(""));
    for (SweepAxisPlateau& p : plateaus) {
      if (p.kind != SweepAxisPlateau::Kind::no_effect) continue;
      const size_t k = static_cast<size_t>(
          std::distance(paths.begin(), std::find(paths.begin(), paths.end(), p.path)));
      if (!sweep_path_without_effect(k, texts, values)) p.moves.emplace_back(name);
    }
  }
  return plateaus;
}

std::vector<SweepAxisPlateau> sweep_axis_plateaus(const std::vector<std::string>& paths,
                                                  const std::vector<SweepPointRecord>& points,
                                                  const std::vector<double>& figures) {
  std::vector<SweepAxisPlateau> out;
  const auto texts = sweep_parameter_texts(points, paths);
  for (size_t k = 0; k < paths.size(); ++k) {
    const auto groups = groups_along(k, texts, figures);
    std::set<double> values;
    bool evidence = false;
    for (const auto& g : groups) {
      evidence = evidence || two_values(g);
      for (const auto& vf : g) values.insert(vf.first);
    }
    if (!evidence) continue;
    // Per group, where its top plateau starts (the smallest value from which every value up
    // gives the top's figure) and where its bottom one ends; across groups, the strictest.
    double above = -std::numeric_limits<double>::infinity();
    double below = std::numeric_limits<double>::infinity();
    for (const auto& g : groups) {
      size_t top = g.size() - 1;
      while (top > 0 && same_figure(g[top - 1].second, g.back().second)) --top;
      above = std::max(above, g[top].first);
      size_t bottom = 0;
      while (bottom + 1 < g.size() && same_figure(g[bottom + 1].second, g.front().second)) ++bottom;
      below = std::min(below, g[bottom].first);
    }
    // Evidence for each side: a group that holds the plateau's end and a value beyond it.
    const auto seen = [&](double from, bool up) {
      for (const auto& g : groups) {
        bool has_from = false, beyond = false;
        for (const auto& vf : g) {
          has_from = has_from || vf.first == from;
          beyond = beyond || (up ? vf.first > from : vf.first < from);
        }
        if (has_from && beyond) return true;
      }
      return false;
    };
    SweepAxisPlateau p;
    p.path = paths[k];
    const bool numeric = numeric_path(k, texts);
    if (above <= *values.begin()) {
      p.kind = SweepAxisPlateau::Kind::no_effect;
      p.from = *values.begin();
      p.same.assign(values.begin(), values.end());
      if (!numeric) {
        std::set<std::string> names;
        for (const auto& t : texts) {
          const nlohmann::json v = nlohmann::json::parse(t[k], nullptr, false);
          names.insert(v.is_string() ? v.get<std::string>() : t[k]);
        }
        p.names.assign(names.begin(), names.end());
      }
      out.push_back(std::move(p));
      continue;
    }
    if (!numeric) continue;  // names have no above or below
    if (above < *values.rbegin() && seen(above, true)) {
      SweepAxisPlateau up = p;
      up.kind = SweepAxisPlateau::Kind::same_above;
      up.from = above;
      for (double v : values)
        if (v > above) up.same.push_back(v);
      out.push_back(std::move(up));
    }
    if (below > *values.begin() && seen(below, false)) {
      SweepAxisPlateau down = p;
      down.kind = SweepAxisPlateau::Kind::same_below;
      down.from = below;
      for (double v : values)
        if (v < below) down.same.push_back(v);
      out.push_back(std::move(down));
    }
  }
  return out;
}

std::string sweep_plateau_text(const SweepAxisPlateau& p, const std::string& subject,
                               bool other_parameters) {
  std::string values = values_text(p.path, p.same, false);
  if (!p.names.empty()) {
    values.clear();
    for (size_t i = 0; i < p.names.size(); ++i)
      values += (i == 0 ? "" : i + 1 == p.names.size() ? " and " : ", ") + p.names[i];
  }
  const std::string where = other_parameters ? " at every combination of the other parameters" : "";
  if (p.kind == SweepAxisPlateau::Kind::no_effect) {
    std::string moves;
    for (size_t i = 0; i < p.moves.size(); ++i)
      moves += (i == 0 ? "" : " and ") + std::string("the ") + p.moves[i];
    return fmt::format("no value changes {}{}: {} give the same{}", subject,
                       moves.empty() ? "" : " (it moves " + moves + ")", values, where);
  }
  // "24 and 40 give the same suite total as 20"
  const std::string figure = subject.rfind("the ", 0) == 0 ? subject.substr(4) : subject;
  return fmt::format("{} {} the same {} as {}{}", values, p.same.size() == 1 ? "gives" : "give",
                     figure, format_parameter(p.path, p.from), where);
}

bool plateau_explained_by(const SweepAxisPlateau& plateau, const SweepAxisCap& cap,
                          const std::vector<double>& axis_values) {
  const auto at_or_above_cap = [&](double v) {
    return v >= cap.cap * (1 - 1e-12) || (v == 0 && cap.zero_means_none);
  };
  switch (plateau.kind) {
    case SweepAxisPlateau::Kind::no_effect:
      return std::all_of(axis_values.begin(), axis_values.end(), at_or_above_cap);
    case SweepAxisPlateau::Kind::same_above:
      return at_or_above_cap(plateau.from);
    case SweepAxisPlateau::Kind::same_below:
      return false;
  }
  return false;
}

}  // namespace ts
