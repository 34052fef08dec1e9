#include "arch/ArchitectureParameterPath.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "arch/Units.hpp"
#include "common/ByteFormat.hpp"
#include "common/InputError.hpp"
#include "common/NameList.hpp"
#include "workload/OperatorType.hpp"

namespace ts {
namespace {

constexpr std::string_view kForms =
    "launch_overhead, launch_overhead:TYPE, clock, power, "
    "edge:FROM->TO.bandwidth, edge:FROM->TO.latency, "
    "edge:FROM->TO.reduction_latency, edge:FROM->TO.reduction_bandwidth, node:NAME.capacity, "
    "node:NAME.bandwidth, node:NAME.read_bandwidth, "
    "node:NAME.write_bandwidth, node:NAME.instances, node:NAME.efficiency, "
    "node:NAME.min_kernel_time, node:NAME.energy_per_op, "
    "node:NAME.issue_latency, node:NAME.instructions_per_step, "
    "node:NAME.instructions_per_fragment";

// What a node field asks of the node it names.
enum class NodeRequirement { memory, compute, any };

struct NodeFieldName {
  std::string_view name;
  ParameterField field;
  NodeRequirement node;
};

constexpr NodeFieldName kNodeFields[] = {
    {"capacity", ParameterField::node_capacity, NodeRequirement::memory},
    {"bandwidth", ParameterField::node_bandwidth, NodeRequirement::memory},
    {"read_bandwidth", ParameterField::node_read_bandwidth, NodeRequirement::memory},
    {"write_bandwidth", ParameterField::node_write_bandwidth, NodeRequirement::memory},
    {"instances", ParameterField::node_instances, NodeRequirement::any},
    {"efficiency", ParameterField::node_efficiency, NodeRequirement::compute},
    {"min_kernel_time", ParameterField::node_min_kernel_time, NodeRequirement::compute},
    {"energy_per_op", ParameterField::node_energy_per_op, NodeRequirement::compute},
    {"issue_latency", ParameterField::node_issue_latency, NodeRequirement::compute},
    {"instructions_per_step", ParameterField::node_issue_instructions_per_step,
     NodeRequirement::compute},
    {"instructions_per_fragment", ParameterField::node_issue_instructions_per_fragment,
     NodeRequirement::compute},
};

bool is_issue_field(ParameterField field) {
  return field == ParameterField::node_issue_latency ||
         field == ParameterField::node_issue_instructions_per_step ||
         field == ParameterField::node_issue_instructions_per_fragment;
}

// The figure of an issue limit that an issue field names.
double& issue_figure(IssueLimit& issue, ParameterField field) {
  if (field == ParameterField::node_issue_latency) return issue.latency_cycles;
  if (field == ParameterField::node_issue_instructions_per_step) return issue.instructions_per_step;
  return issue.instructions_per_fragment;
}

// The text split by the grammar alone: which kind of thing it names, and the field's name.
struct PathText {
  enum class Subject { graph, edge, node } subject = Subject::graph;
  std::string_view node, from, to;  // node:NODE, edge:FROM->TO
  std::string_view operator_type;   // launch_overhead:TYPE
  std::string_view field;           // the part after the last '.', or the whole graph field
};

std::optional<PathText> split_path(std::string_view text) {
  PathText p;
  if (text == "launch_overhead" || text == "clock" || text == "power") {
    p.field = text;
    return p;
  }
  if (text.starts_with("launch_overhead:")) {
    p.field = "launch_overhead";
    p.operator_type = text.substr(16);
    return p;
  }
  const size_t dot = text.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  p.field = text.substr(dot + 1);
  if (text.starts_with("edge:")) {
    const std::string_view link = text.substr(5, dot - 5);
    const size_t arrow = link.find("->");
    if (arrow == std::string_view::npos) return std::nullopt;
    p.subject = PathText::Subject::edge;
    p.from = link.substr(0, arrow);
    p.to = link.substr(arrow + 2);
    return p;
  }
  if (text.starts_with("node:")) {
    p.subject = PathText::Subject::node;
    p.node = text.substr(5, dot - 5);
    return p;
  }
  return std::nullopt;
}

std::optional<ParameterField> field_of(const PathText& p) {
  switch (p.subject) {
    case PathText::Subject::graph:
      if (p.field == "clock") return ParameterField::clock;
      if (p.field == "power") return ParameterField::power;
      return p.operator_type.empty() ? ParameterField::launch_overhead
                                     : ParameterField::launch_overhead_of_type;
    case PathText::Subject::edge:
      if (p.field == "bandwidth") return ParameterField::edge_bandwidth;
      if (p.field == "latency") return ParameterField::edge_latency;
      if (p.field == "reduction_latency") return ParameterField::edge_reduction_latency;
      if (p.field == "reduction_bandwidth") return ParameterField::edge_reduction_bandwidth;
      return std::nullopt;
    case PathText::Subject::node:
      for (const NodeFieldName& f : kNodeFields)
        if (f.name == p.field) return f.field;
      return std::nullopt;
  }
  return std::nullopt;
}

const NodeFieldName* node_field(std::string_view name) {
  for (const NodeFieldName& f : kNodeFields)
    if (f.name == name) return &f;
  return nullptr;
}

// "capacity, bandwidth, read_bandwidth, write_bandwidth or instances": the fields a node of
// this kind has.
std::string node_fields_of(NodeKind kind) {
  std::vector<std::string> names;
  for (const NodeFieldName& f : kNodeFields)
    if (f.node == NodeRequirement::any ||
        (f.node == NodeRequirement::memory) == (kind == NodeKind::memory))
      names.emplace_back(f.name);
  std::string text;
  for (size_t i = 0; i < names.size(); ++i)
    text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return text;
}

[[noreturn]] void fail(const std::string& input, const std::string& message) {
  throw InputError(SourceLocation{input, 0, 0}, message);
}

std::vector<std::string> node_names(const ArchitectureGraph& g, NodeRequirement requirement) {
  std::vector<std::string> names;
  for (const ArchNode& n : g.nodes)
    if (requirement == NodeRequirement::any ||
        (requirement == NodeRequirement::memory) == (n.kind == NodeKind::memory))
      names.push_back(n.name);
  return names;
}

std::vector<std::string> edge_names(const ArchitectureGraph& g) {
  std::vector<std::string> names;
  for (const ArchEdge& e : g.edges) names.push_back(g.node(e.from).name + "->" + g.node(e.to).name);
  return names;
}

std::optional<double> plain_number(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// "1.6 TB/s": the value with the largest SI prefix that keeps it at 1 or more.
std::string with_prefix(double value, std::string_view unit) {
  static const std::pair<double, const char*> prefixes[] = {{1e15, "P"}, {1e12, "T"}, {1e9, "G"},
                                                            {1e6, "M"},  {1e3, "k"},  {1, ""}};
  for (const auto& [factor, prefix] : prefixes)
    if (std::abs(value) >= factor) return fmt::format("{:.6g} {}{}", value / factor, prefix, unit);
  return fmt::format("{:.6g} {}", value, unit);
}

}  // namespace

ParameterPath parse_parameter_path(std::string_view text, const ArchitectureGraph& g,
                                   const std::string& input) {
  const auto bad_form = [&] {
    fail(input, fmt::format("'{}' names no graph parameter; expected one of {}", text, kForms));
  };
  const std::optional<PathText> split = split_path(text);
  if (!split) bad_form();
  ParameterPath path;
  path.text = std::string(text);
  switch (split->subject) {
    case PathText::Subject::graph:
      path.field = *field_of(*split);
      if (path.field == ParameterField::launch_overhead_of_type) {
        if (!parse_operator_type(split->operator_type))
          fail(input, fmt::format("'{}': unknown operator type '{}'; expected one of {}", text,
                                  split->operator_type, join_names(operator_type_names())));
        path.operator_type = std::string(split->operator_type);
      }
      return path;
    case PathText::Subject::edge: {
      const auto from = g.find_node(split->from);
      const auto to = g.find_node(split->to);
      path.edge = from && to ? g.edge_between(*from, *to) : EdgeId{};
      if (!path.edge.valid())
        fail(input, fmt::format("'{}': graph '{}' has no edge {}->{}; its edges: {}", text, g.name,
                                split->from, split->to, join_names(edge_names(g))));
      const auto field = field_of(*split);
      if (!field)
        fail(input, fmt::format("'{}': an edge has no parameter '{}'; expected bandwidth, "
                                "latency, reduction_latency or reduction_bandwidth",
                                text, split->field));
      // A reduction figure of an edge without a network would change nothing: say so.
      const bool reduction_field = *field == ParameterField::edge_reduction_latency ||
                                   *field == ParameterField::edge_reduction_bandwidth;
      if (reduction_field && g.edge(path.edge).reduction != EdgeReduction::network)
        fail(input, fmt::format("'{}': edge {}->{} of graph '{}' has no reduction network; "
                                "expected an edge with `reduction: network`",
                                text, split->from, split->to, g.name));
      path.field = *field;
      return path;
    }
    case PathText::Subject::node: {
      const NodeFieldName* known = node_field(split->field);
      const NodeRequirement requirement = known ? known->node : NodeRequirement::any;
      const auto node = g.find_node(split->node);
      const bool kind_fits = node && (requirement == NodeRequirement::any ||
                                      (requirement == NodeRequirement::memory) ==
                                          (g.node(*node).kind == NodeKind::memory));
      if (!kind_fits) {
        const std::string kind = requirement == NodeRequirement::memory    ? "memory "
                                 : requirement == NodeRequirement::compute ? "compute "
                                                                           : "";
        fail(input,
             fmt::format("'{}': graph '{}' has no {}node '{}'; its {}nodes: {}", text, g.name, kind,
                         split->node, kind, join_names(node_names(g, requirement))));
      }
      const NodeKind kind = g.node(*node).kind;
      if (!known)
        fail(input, fmt::format("'{}': a {} node has no parameter '{}'; expected {}", text,
                                kind == NodeKind::memory ? "memory" : "compute", split->field,
                                node_fields_of(kind)));
      path.field = known->field;
      path.node = *node;
      if (path.field == ParameterField::node_efficiency)
        for (const ComputeCapability& c : g.node(*node).capabilities)
          path.baseline_ops_per_cycle.push_back(c.ops_per_cycle);
      if (path.field == ParameterField::node_energy_per_op &&
          std::none_of(g.node(*node).capabilities.begin(), g.node(*node).capabilities.end(),
                       [](const ComputeCapability& c) { return c.energy_per_op_j > 0; }))
        fail(input, fmt::format("'{}': compute node '{}' has no operation with `energy_per_op`",
                                text, split->node));
      if (is_issue_field(path.field) &&
          std::none_of(g.node(*node).capabilities.begin(), g.node(*node).capabilities.end(),
                       [](const ComputeCapability& c) { return c.issue.has_value(); }))
        fail(input, fmt::format("'{}': compute node '{}' has no operation with an `issue:` block",
                                text, split->node));
      return path;
    }
  }
  bad_form();
  return path;
}

std::string edge_parameter_path(const ArchitectureGraph& g, EdgeId edge, std::string_view field) {
  const ArchEdge& e = g.edge(edge);
  return fmt::format("edge:{}->{}.{}", g.node(e.from).name, g.node(e.to).name, field);
}

std::string node_parameter_path(const ArchitectureGraph& g, NodeId node, std::string_view field) {
  return fmt::format("node:{}.{}", g.node(node).name, field);
}

double parameter_value(const ArchitectureGraph& g, const ParameterPath& path) {
  switch (path.field) {
    case ParameterField::launch_overhead:
      return g.launch_overhead_s;
    case ParameterField::launch_overhead_of_type:
      return g.launch_overhead_for(path.operator_type);
    case ParameterField::clock:
      return g.clock_hz;
    case ParameterField::power:
      return g.power_w;
    case ParameterField::edge_bandwidth:
      return g.edge(path.edge).bandwidth_bytes_per_s;
    case ParameterField::edge_latency:
      return g.edge(path.edge).latency_cycles;
    case ParameterField::edge_reduction_latency:
      return g.edge(path.edge).reduction_latency_cycles;
    case ParameterField::edge_reduction_bandwidth: {
      // Unset reads as what the network runs at: the edge's own bandwidth.
      const ArchEdge& e = g.edge(path.edge);
      return e.reduction_bandwidth_bytes_per_s > 0 ? e.reduction_bandwidth_bytes_per_s
                                                   : e.bandwidth_bytes_per_s;
    }
    case ParameterField::node_capacity:
      return g.node(path.node).capacity_bytes;
    case ParameterField::node_bandwidth:
      return g.node(path.node).port_bytes_per_s;
    case ParameterField::node_read_bandwidth:
      return g.node(path.node).read_port_bytes_per_s;
    case ParameterField::node_write_bandwidth:
      return g.node(path.node).write_port_bytes_per_s;
    case ParameterField::node_instances:
      return static_cast<double>(g.node(path.node).instances);
    case ParameterField::node_min_kernel_time:
      return g.node(path.node).min_kernel_time_s;
    case ParameterField::node_energy_per_op:
      for (const ComputeCapability& c : g.node(path.node).capabilities)
        if (c.energy_per_op_j > 0) return c.energy_per_op_j;
      return 0;
    case ParameterField::node_efficiency: {
      // The ratio of the current throughput to the baseline's, read on the first capability
      // that has one (set_parameter_value scales every capability alike).
      const ArchNode& node = g.node(path.node);
      for (size_t i = 0; i < node.capabilities.size() && i < path.baseline_ops_per_cycle.size();
           ++i)
        if (path.baseline_ops_per_cycle[i] > 0)
          return node.capabilities[i].ops_per_cycle / path.baseline_ops_per_cycle[i];
      return 1.0;
    }
    case ParameterField::node_issue_latency:
    case ParameterField::node_issue_instructions_per_step:
    case ParameterField::node_issue_instructions_per_fragment:
      // The first operation's with an issue limit; set_parameter_value sets them all alike.
      for (ComputeCapability c : g.node(path.node).capabilities)
        if (c.issue) return issue_figure(*c.issue, path.field);
      return 0;
  }
  return 0;
}

void set_parameter_value(ArchitectureGraph& g, const ParameterPath& path, double value) {
  ArchNode* node = path.node.valid() ? &g.nodes[path.node.index()] : nullptr;
  ArchEdge* edge = path.edge.valid() ? &g.edges[path.edge.index()] : nullptr;
  switch (path.field) {
    case ParameterField::launch_overhead:
      g.launch_overhead_s = value;
      return;
    case ParameterField::launch_overhead_of_type:
      g.launch_overheads[path.operator_type] = value;
      return;
    case ParameterField::power:
      g.power_w = value;
      return;
    case ParameterField::clock: {
      // Nodes that run at the graph clock follow it; a node with its own clock keeps it.
      const double old_clock = g.clock_hz;
      for (ArchNode& n : g.nodes)
        if (n.clock_hz == old_clock) n.clock_hz = value;
      g.clock_hz = value;
      return;
    }
    case ParameterField::edge_bandwidth:
      edge->bandwidth_bytes_per_s = value;
      return;
    case ParameterField::edge_latency:
      edge->latency_cycles = value;
      return;
    case ParameterField::edge_reduction_latency:
      edge->reduction_latency_cycles = value;
      return;
    case ParameterField::edge_reduction_bandwidth:
      edge->reduction_bandwidth_bytes_per_s = value;
      return;
    case ParameterField::node_capacity:
      node->capacity_bytes = value;
      return;
    case ParameterField::node_bandwidth:
      node->port_bytes_per_s = value;
      return;
    case ParameterField::node_read_bandwidth:
      node->read_port_bytes_per_s = value;
      return;
    case ParameterField::node_write_bandwidth:
      node->write_port_bytes_per_s = value;
      return;
    case ParameterField::node_instances:
      node->instances = std::llround(value);
      return;
    case ParameterField::node_min_kernel_time:
      node->min_kernel_time_s = value;
      return;
    case ParameterField::node_energy_per_op: {
      double first = 0;
      for (const ComputeCapability& c : node->capabilities)
        if (first == 0 && c.energy_per_op_j > 0) first = c.energy_per_op_j;
      for (ComputeCapability& c : node->capabilities)
        if (c.energy_per_op_j > 0) c.energy_per_op_j *= value / first;
      return;
    }
    case ParameterField::node_efficiency:
      for (size_t i = 0; i < node->capabilities.size(); ++i) {
        const double base = i < path.baseline_ops_per_cycle.size()
                                ? path.baseline_ops_per_cycle[i]
                                : node->capabilities[i].ops_per_cycle;
        ComputeCapability& c = node->capabilities[i];
        // The figure an efficiency is a fraction of stays on record for MFU (once: a graph
        // fitted again keeps the datasheet's, not the previous fit's).
        if (c.datasheet_ops_per_cycle == 0) c.datasheet_ops_per_cycle = base;
        c.ops_per_cycle = base * value;
      }
      return;
    case ParameterField::node_issue_latency:
    case ParameterField::node_issue_instructions_per_step:
    case ParameterField::node_issue_instructions_per_fragment:
      for (ComputeCapability& c : node->capabilities)
        if (c.issue) issue_figure(*c.issue, path.field) = value;
      return;
  }
}

ArchitectureGraph with_parameter_value(ArchitectureGraph graph, const ParameterPath& path,
                                       double value) {
  set_parameter_value(graph, path, value);
  return graph;
}

double parameter_value(const ArchitectureGraph& graph, std::string_view path) {
  return parameter_value(graph, parse_parameter_path(path, graph, "graph parameter"));
}

void set_parameter_value(ArchitectureGraph& graph, std::string_view path, double value) {
  set_parameter_value(graph, parse_parameter_path(path, graph, "graph parameter"), value);
}

std::optional<ParameterField> parameter_field(std::string_view path) {
  const std::optional<PathText> split = split_path(path);
  return split ? field_of(*split) : std::nullopt;
}

bool is_count(ParameterField field) { return field == ParameterField::node_instances; }

std::optional<double> parse_parameter_value(std::string_view text, const ArchitectureGraph& g,
                                            const ParameterPath& path) {
  if (auto v = plain_number(text)) return v;
  switch (path.field) {
    case ParameterField::launch_overhead:
    case ParameterField::launch_overhead_of_type:
    case ParameterField::node_min_kernel_time:
      return parse_duration_seconds(text);
    case ParameterField::clock:
      return parse_frequency_hz(text);
    case ParameterField::power:
      return parse_power_watts(text);
    case ParameterField::node_energy_per_op:
      return parse_energy_joules(text);
    case ParameterField::edge_bandwidth:
    case ParameterField::edge_reduction_bandwidth:
      if (auto b = parse_bandwidth(text))
        return b->bytes_per_second(g.node(g.edge(path.edge).from).clock_hz);
      return std::nullopt;
    case ParameterField::node_bandwidth:
    case ParameterField::node_read_bandwidth:
    case ParameterField::node_write_bandwidth:
      if (auto b = parse_bandwidth(text)) return b->bytes_per_second(g.node(path.node).clock_hz);
      return std::nullopt;
    case ParameterField::edge_latency:
    case ParameterField::edge_reduction_latency:
      // Cycles of the source clock, as in the graph file; a duration is converted to them.
      if (auto s = parse_duration_seconds(text))
        return *s * g.node(g.edge(path.edge).from).clock_hz;
      return std::nullopt;
    case ParameterField::node_capacity:
      return parse_bytes(text);
    case ParameterField::node_instances:
    case ParameterField::node_efficiency:
    case ParameterField::node_issue_latency:
    case ParameterField::node_issue_instructions_per_step:
    case ParameterField::node_issue_instructions_per_fragment:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string_view parameter_value_example(ParameterField field) {
  switch (field) {
    case ParameterField::launch_overhead:
      return "`launch_overhead=2us:30us`";
    case ParameterField::launch_overhead_of_type:
      return "`launch_overhead:linear=2us:60us`";
    case ParameterField::node_min_kernel_time:
      return "`...min_kernel_time=500ns:10us`";
    case ParameterField::clock:
      return "`clock=1GHz:2GHz`";
    case ParameterField::power:
      return "`power=50W:400W`";
    case ParameterField::node_energy_per_op:
      return "`...energy_per_op=1pJ:50pJ`";
    case ParameterField::edge_bandwidth:
    case ParameterField::edge_reduction_bandwidth:
    case ParameterField::node_bandwidth:
    case ParameterField::node_read_bandwidth:
    case ParameterField::node_write_bandwidth:
      return "`...bandwidth=100GB/s:2TB/s` or `...=16B/cycle:64B/cycle`";
    case ParameterField::edge_latency:
    case ParameterField::edge_reduction_latency:
      return "`...latency=10:500` (cycles) or `...=10ns:1us`";
    case ParameterField::node_capacity:
      return "`...capacity=256KiB:4MiB`";
    case ParameterField::node_instances:
      return "`...instances=16:64`";
    case ParameterField::node_efficiency:
      return "`...efficiency=0.5:1`";
    case ParameterField::node_issue_latency:
      return "`...issue_latency=20:200` (cycles)";
    case ParameterField::node_issue_instructions_per_step:
    case ParameterField::node_issue_instructions_per_fragment:
      return "`...instructions_per_step=1:32`";
  }
  return "";
}

std::string_view parameter_unit(ParameterField field) {
  switch (field) {
    case ParameterField::launch_overhead:
    case ParameterField::launch_overhead_of_type:
    case ParameterField::node_min_kernel_time:
      return "s";
    case ParameterField::clock:
      return "Hz";
    case ParameterField::power:
      return "W";
    case ParameterField::node_energy_per_op:
      return "J";
    case ParameterField::edge_bandwidth:
    case ParameterField::edge_reduction_bandwidth:
    case ParameterField::node_bandwidth:
    case ParameterField::node_read_bandwidth:
    case ParameterField::node_write_bandwidth:
      return "B/s";
    case ParameterField::edge_latency:
    case ParameterField::edge_reduction_latency:
    case ParameterField::node_issue_latency:
      return "cycles";
    case ParameterField::node_capacity:
      return "B";
    case ParameterField::node_instances:
    case ParameterField::node_efficiency:
    case ParameterField::node_issue_instructions_per_step:
    case ParameterField::node_issue_instructions_per_fragment:
      return "";
  }
  return "";
}

std::string format_parameter(ParameterField field, double value) {
  const std::string_view unit = parameter_unit(field);
  if (unit == "s") {
    if (value != 0 && std::abs(value) < 1e-6) return fmt::format("{:.6g} ns", value * 1e9);
    if (value != 0 && std::abs(value) < 1e-3) return fmt::format("{:.6g} us", value * 1e6);
    if (value != 0 && std::abs(value) < 1) return fmt::format("{:.6g} ms", value * 1e3);
    return fmt::format("{:.6g} s", value);
  }
  if (unit == "Hz" || unit == "B/s" || unit == "W") return with_prefix(value, unit);
  if (unit == "J") return fmt::format("{:.6g} pJ", value * 1e12);
  if (unit == "B")
    return format_bytes(value);  // capacities in binary prefixes, as files write them
  if (unit == "cycles") return fmt::format("{:.6g} cycles", value);
  return fmt::format("{:.6g}", value);
}

std::string parameter_unit(std::string_view path) {
  const auto field = parameter_field(path);
  return field ? std::string(parameter_unit(*field)) : std::string();
}

std::string format_parameter(std::string_view path, double value) {
  const auto field = parameter_field(path);
  return field ? format_parameter(*field, value) : fmt::format("{:.6g}", value);
}

}  // namespace ts
