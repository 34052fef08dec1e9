#include "calibrate/GraphParameter.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

#include "arch/Units.hpp"
#include "common/InputError.hpp"
#include "common/NameList.hpp"

namespace ts {
namespace {

enum class Field {
  launch_overhead,
  clock,
  edge_bandwidth,
  edge_latency,
  node_bandwidth,
  node_read_bandwidth,
  node_write_bandwidth,
  node_efficiency
};

struct ResolvedPath {
  Field field = Field::launch_overhead;
  NodeId node;  // node fields
  EdgeId edge;  // edge fields
};

const char* kForms =
    "launch_overhead, clock, edge:FROM->TO.bandwidth, edge:FROM->TO.latency, "
    "node:NAME.bandwidth, node:NAME.read_bandwidth, node:NAME.write_bandwidth, "
    "node:NAME.efficiency";

[[noreturn]] void fail(const std::string& option, const std::string& message) {
  throw InputError(SourceLocation{option, 0, 0}, message);
}

std::vector<std::string> node_names(const ArchitectureGraph& g, NodeKind kind) {
  std::vector<std::string> names;
  for (const ArchNode& n : g.nodes)
    if (n.kind == kind) names.push_back(n.name);
  return names;
}

std::vector<std::string> edge_names(const ArchitectureGraph& g) {
  std::vector<std::string> names;
  for (const ArchEdge& e : g.edges) names.push_back(g.node(e.from).name + "->" + g.node(e.to).name);
  return names;
}

ResolvedPath resolve(const std::string& path, const ArchitectureGraph& g,
                     const std::string& option) {
  if (path == "launch_overhead") return {Field::launch_overhead};
  if (path == "clock") return {Field::clock};
  const size_t dot = path.rfind('.');
  const auto bad_form = [&] {
    fail(option, fmt::format("'{}' names no graph parameter; expected one of {}", path, kForms));
  };
  if (dot == std::string::npos) bad_form();
  const std::string field = path.substr(dot + 1);
  if (path.rfind("edge:", 0) == 0) {
    const std::string link = path.substr(5, dot - 5);
    const size_t arrow = link.find("->");
    if (arrow == std::string::npos) bad_form();
    const auto from = g.find_node(link.substr(0, arrow));
    const auto to = g.find_node(link.substr(arrow + 2));
    const EdgeId edge = from && to ? g.edge_between(*from, *to) : EdgeId{};
    if (!edge.valid())
      fail(option, fmt::format("'{}': graph '{}' has no edge {}; its edges: {}", path, g.name, link,
                               join_names(edge_names(g))));
    if (field == "bandwidth") return {Field::edge_bandwidth, NodeId{}, edge};
    if (field == "latency") return {Field::edge_latency, NodeId{}, edge};
    fail(option, fmt::format("'{}': an edge has no parameter '{}'; expected bandwidth or latency",
                             path, field));
  }
  if (path.rfind("node:", 0) == 0) {
    const std::string name = path.substr(5, dot - 5);
    const auto node = g.find_node(name);
    const bool compute_field = field == "efficiency";
    const NodeKind kind = compute_field ? NodeKind::compute : NodeKind::memory;
    if (!node || g.node(*node).kind != kind)
      fail(option,
           fmt::format("'{}': graph '{}' has no {} node '{}'; its {} nodes: {}", path, g.name,
                       compute_field ? "compute" : "memory", name,
                       compute_field ? "compute" : "memory", join_names(node_names(g, kind))));
    if (field == "bandwidth") return {Field::node_bandwidth, *node};
    if (field == "read_bandwidth") return {Field::node_read_bandwidth, *node};
    if (field == "write_bandwidth") return {Field::node_write_bandwidth, *node};
    if (field == "efficiency") return {Field::node_efficiency, *node};
    fail(option, fmt::format("'{}': a memory node has no parameter '{}'; expected bandwidth, "
                             "read_bandwidth or write_bandwidth",
                             path, field));
  }
  bad_form();
  return {};
}

// Resolved without an option name: the path-only forms are called by code, not by people.
ResolvedPath resolve_internal(const std::string& path, const ArchitectureGraph& g) {
  return resolve(path, g, "--param");
}

double read(const ArchitectureGraph& g, const ResolvedPath& r) {
  switch (r.field) {
    case Field::launch_overhead:
      return g.launch_overhead_s;
    case Field::clock:
      return g.clock_hz;
    case Field::edge_bandwidth:
      return g.edge(r.edge).bandwidth_bytes_per_s;
    case Field::edge_latency:
      return g.edge(r.edge).latency_cycles;
    case Field::node_bandwidth:
      return g.node(r.node).port_bytes_per_s;
    case Field::node_read_bandwidth:
      return g.node(r.node).read_port_bytes_per_s;
    case Field::node_write_bandwidth:
      return g.node(r.node).write_port_bytes_per_s;
    case Field::node_efficiency:
      return 1.0;
  }
  return 0;
}

void write(ArchitectureGraph& g, const ResolvedPath& r, double value,
           const std::vector<double>* baseline) {
  ArchNode* node = r.node.valid() ? &g.nodes[r.node.index()] : nullptr;
  switch (r.field) {
    case Field::launch_overhead:
      g.launch_overhead_s = value;
      return;
    case Field::clock: {
      // Nodes that run at the graph clock follow it; a node with its own clock keeps it.
      const double old_clock = g.clock_hz;
      for (ArchNode& n : g.nodes)
        if (n.clock_hz == old_clock) n.clock_hz = value;
      g.clock_hz = value;
      return;
    }
    case Field::edge_bandwidth:
      g.edges[r.edge.index()].bandwidth_bytes_per_s = value;
      return;
    case Field::edge_latency:
      g.edges[r.edge.index()].latency_cycles = value;
      return;
    case Field::node_bandwidth:
      node->port_bytes_per_s = value;
      return;
    case Field::node_read_bandwidth:
      node->read_port_bytes_per_s = value;
      return;
    case Field::node_write_bandwidth:
      node->write_port_bytes_per_s = value;
      return;
    case Field::node_efficiency:
      for (size_t i = 0; i < node->capabilities.size(); ++i) {
        const double base =
            baseline && i < baseline->size() ? (*baseline)[i] : node->capabilities[i].ops_per_cycle;
        node->capabilities[i].ops_per_cycle = base * value;
      }
      return;
  }
}

std::optional<double> plain_number(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// One bound in the parameter's unit; nullopt when the text is not a value of that kind.
std::optional<double> parse_bound(std::string_view text, const ArchitectureGraph& g,
                                  const ResolvedPath& r) {
  if (auto v = plain_number(text)) return v;
  switch (r.field) {
    case Field::launch_overhead:
      return parse_duration_seconds(text);
    case Field::clock:
      return parse_frequency_hz(text);
    case Field::edge_bandwidth:
      if (auto b = parse_bandwidth(text))
        return b->bytes_per_second(g.node(g.edge(r.edge).from).clock_hz);
      return std::nullopt;
    case Field::node_bandwidth:
    case Field::node_read_bandwidth:
    case Field::node_write_bandwidth:
      if (auto b = parse_bandwidth(text)) return b->bytes_per_second(g.node(r.node).clock_hz);
      return std::nullopt;
    case Field::edge_latency:
      // Cycles of the source clock, as in the graph file; a duration is converted to them.
      if (auto s = parse_duration_seconds(text)) return *s * g.node(g.edge(r.edge).from).clock_hz;
      return std::nullopt;
    case Field::node_efficiency:
      return std::nullopt;
  }
  return std::nullopt;
}

const char* bound_example(Field f) {
  switch (f) {
    case Field::launch_overhead:
      return "`launch_overhead=2us:30us`";
    case Field::clock:
      return "`clock=1GHz:2GHz`";
    case Field::edge_bandwidth:
    case Field::node_bandwidth:
    case Field::node_read_bandwidth:
    case Field::node_write_bandwidth:
      return "`...bandwidth=100GB/s:2TB/s` or `...=16B/cycle:64B/cycle`";
    case Field::edge_latency:
      return "`...latency=10:500` (cycles) or `...=10ns:1us`";
    case Field::node_efficiency:
      return "`...efficiency=0.5:1`";
  }
  return "";
}

// "1.6 TB/s": the value with the largest SI prefix that keeps it at 1 or more.
std::string with_prefix(double value, const char* unit) {
  static const std::pair<double, const char*> prefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"},
                                                            {1e6, "M"},  {1e3, "k"},  {1, ""}};
  for (const auto& [factor, prefix] : prefixes)
    if (std::abs(value) >= factor) return fmt::format("{:.6g} {}{}", value / factor, prefix, unit);
  return fmt::format("{:.6g} {}", value, unit);
}

}  // namespace

GraphParameter parse_graph_parameter(const std::string& text, const ArchitectureGraph& graph,
                                     const std::string& option) {
  GraphParameter p;
  const size_t eq = text.find('=');
  p.path = text.substr(0, eq);
  const ResolvedPath r = resolve(p.path, graph, option);
  p.initial = read(graph, r);
  if (r.field == Field::node_efficiency)
    for (const ComputeCapability& c : graph.node(r.node).capabilities)
      p.baseline_ops_per_cycle.push_back(c.ops_per_cycle);

  if (eq == std::string::npos) {
    if (!(p.initial > 0))
      fail(option, fmt::format("'{}' is {} in graph '{}', so it has no range to search around; "
                               "give bounds, e.g. {}",
                               text, p.initial, graph.name, bound_example(r.field)));
    p.lower = p.initial / 4;
    p.upper = p.initial * 4;
    // An efficiency is a fraction of the baseline's peak unless bounds say otherwise.
    if (r.field == Field::node_efficiency) p.upper = std::min(p.upper, 1.0);
    return p;
  }
  const std::string bounds = text.substr(eq + 1);
  const size_t colon = bounds.find(':');
  const auto malformed = [&](const std::string& why) {
    fail(option, fmt::format("bad bounds in '{}': {}; expected PATH=LOW:HIGH with LOW > 0 in the "
                             "parameter's unit, e.g. {}",
                             text, why, bound_example(r.field)));
  };
  if (colon == std::string::npos) malformed("no `:` between the bounds");
  const auto lo = parse_bound(bounds.substr(0, colon), graph, r);
  const auto hi = parse_bound(bounds.substr(colon + 1), graph, r);
  if (!lo) malformed(fmt::format("'{}' is not a value", bounds.substr(0, colon)));
  if (!hi) malformed(fmt::format("'{}' is not a value", bounds.substr(colon + 1)));
  if (!(*lo > 0)) malformed("the lower bound must be positive (the fit searches in log space)");
  if (!(*hi > *lo)) malformed("the upper bound must be above the lower bound");
  p.lower = *lo;
  p.upper = *hi;
  return p;
}

GraphParameter parse_graph_parameter(const std::string& text, const ArchitectureGraph& graph) {
  return parse_graph_parameter(text, graph, "--param");
}

double get_parameter(const ArchitectureGraph& graph, const std::string& path) {
  return read(graph, resolve_internal(path, graph));
}

void set_parameter(ArchitectureGraph& graph, const std::string& path, double value) {
  write(graph, resolve_internal(path, graph), value, nullptr);
}

double get_parameter(const ArchitectureGraph& graph, const GraphParameter& param) {
  const ResolvedPath r = resolve_internal(param.path, graph);
  if (r.field != Field::node_efficiency) return read(graph, r);
  // The ratio of the current throughput to the baseline's, read on the first capability that
  // has one (set_parameter scales every capability alike).
  const ArchNode& node = graph.node(r.node);
  for (size_t i = 0; i < node.capabilities.size() && i < param.baseline_ops_per_cycle.size(); ++i)
    if (param.baseline_ops_per_cycle[i] > 0)
      return node.capabilities[i].ops_per_cycle / param.baseline_ops_per_cycle[i];
  return 1.0;
}

void set_parameter(ArchitectureGraph& graph, const GraphParameter& param, double value) {
  write(graph, resolve_internal(param.path, graph), value, &param.baseline_ops_per_cycle);
}

std::string parameter_unit(const std::string& path) {
  if (path == "launch_overhead") return "s";
  if (path == "clock") return "Hz";
  if (path.ends_with("bandwidth")) return "B/s";
  if (path.ends_with(".latency")) return "cycles";
  return "";
}

std::string format_parameter(const std::string& path, double value) {
  const std::string unit = parameter_unit(path);
  if (unit == "s") {
    if (value != 0 && std::abs(value) < 1e-6) return fmt::format("{:.6g} ns", value * 1e9);
    if (value != 0 && std::abs(value) < 1e-3) return fmt::format("{:.6g} us", value * 1e6);
    if (value != 0 && std::abs(value) < 1) return fmt::format("{:.6g} ms", value * 1e3);
    return fmt::format("{:.6g} s", value);
  }
  if (unit == "Hz" || unit == "B/s") return with_prefix(value, unit.c_str());
  if (unit == "cycles") return fmt::format("{:.6g} cycles", value);
  return fmt::format("{:.6g}", value);
}

}  // namespace ts
