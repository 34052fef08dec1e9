#include "arch/ArchitectureLoader.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "arch/CostHooks.hpp"
#include "arch/Units.hpp"
#include "common/CheckedArithmetic.hpp"
#include "common/OperationMap.hpp"
#include "common/YamlSource.hpp"
#include "workload/OperatorType.hpp"

namespace ts {
namespace {

double bytes_at(const YamlSource& src, const YAML::Node& v, std::string_view what) {
  if (v.IsScalar())
    if (auto b = parse_bytes(v.Scalar()); b && *b > 0) return *b;
  src.fail(v, "expected a positive size in bytes for `" + std::string(what) +
                  "` such as `64KiB`, `80GB` or `4096`, got " + describe(v));
}

double frequency_at(const YamlSource& src, const YAML::Node& v, std::string_view what) {
  if (v.IsScalar())
    if (auto f = parse_frequency_hz(v.Scalar()); f && *f > 0) return *f;
  src.fail(v, "expected a positive frequency for `" + std::string(what) +
                  "` such as `1.8GHz` or `1410MHz`, got " + describe(v));
}

double duration_at(const YamlSource& src, const YAML::Node& v, std::string_view what) {
  if (v.IsScalar()) {
    if (auto d = parse_duration_seconds(v.Scalar())) return *d;
    if (v.Scalar() == "0") return 0;  // zero needs no unit
  }
  src.fail(v, "expected a duration for `" + std::string(what) +
                  "` such as `5us`, `12ns` or `1.5ms`, got " + describe(v));
}

// Bytes per second; `B/cycle` counts cycles of `clock_hz`.
double bandwidth_at(const YamlSource& src, const YAML::Node& v, std::string_view what,
                    double clock_hz) {
  if (v.IsScalar())
    if (auto b = parse_bandwidth(v.Scalar()); b && b->value > 0)
      return b->bytes_per_second(clock_hz);
  src.fail(v, "expected a positive bandwidth for `" + std::string(what) +
                  "` such as `1.6TB/s`, `900GB/s` or `32B/cycle`, got " + describe(v));
}

// "node 'SRAM'" when the name can be read, for messages about a map before it is checked.
std::string label_of(const YAML::Node& map, std::string_view kind, std::string_view key) {
  YAML::Node name = map.IsMap() ? map[std::string(key)] : YAML::Node();
  if (name.IsDefined() && name.IsScalar()) return std::string(kind) + " '" + name.Scalar() + "'";
  return std::string(kind);
}

class ArchitectureReader {
 public:
  explicit ArchitectureReader(const YamlSource& src) : src_(src) {}
  ArchitectureGraph read();

 private:
  void read_node(const YAML::Node& n);
  bool switch_of(const YAML::Node& n, const char* key, const std::string& node,
                 const std::string& on, const std::string& on_meaning, const std::string& off);
  void read_memory(ArchNode& node, const YAML::Node& n);
  void read_memory_energy(ArchNode& node, const YAML::Node& e);
  void read_compute(ArchNode& node, const YAML::Node& n);
  void read_leak_and_area(ArchNode& node, const YAML::Node& n);
  double energy_at(const YAML::Node& v, const std::string& what);
  void read_cost_hook(ArchNode& node, const YAML::Node& h);
  void read_runs_as(ArchNode& node, const YAML::Node& r);
  ComputeCapability read_operation(const ArchNode& node, const YAML::Node& n);
  void read_edge(const YAML::Node& e);
  double cycles_at(const YAML::Node& v, const char* key, double clock_hz);
  void read_multicast(ArchEdge& edge, const YAML::Node& e, const std::string& label);
  void read_reduction(ArchEdge& edge, const YAML::Node& e, const std::string& label,
                      double source_clock_hz);
  NodeId node_id(const YAML::Node& name);
  void read_templates(const YAML::Node& t);

  const YamlSource& src_;
  ArchitectureGraph g_;
};

ArchitectureGraph ArchitectureReader::read() {
  src_.check_header("architecture");
  const YAML::Node& root = src_.root();
  src_.check_keys(root,
                  {"version", "kind", "name", "description", "clock", "launch_overhead",
                   "launch_overheads", "power", "nodes", "edges", "mapping_templates"},
                  "an architecture");
  g_.source_file = src_.file();
  g_.name = src_.text_or(root, "name", file_stem(src_.file()));
  g_.description = src_.text_or(root, "description", "");
  if (!root["clock"].IsDefined())
    src_.fail(root, "missing `clock`, the graph clock; expected e.g. `clock: 1.8GHz`");
  g_.clock_hz = frequency_at(src_, root["clock"], "clock");
  if (root["launch_overhead"].IsDefined())
    g_.launch_overhead_s = duration_at(src_, root["launch_overhead"], "launch_overhead");
  if (YAML::Node power = root["power"]; power.IsDefined()) {
    const std::optional<double> w =
        power.IsScalar() ? parse_power_watts(power.Scalar()) : std::nullopt;
    if (!w || !(*w > 0))
      src_.fail(power,
                "expected the board's power limit for `power`, such as `70W` or `0.7kW`, "
                "got " +
                    describe(power));
    g_.power_w = *w;
  }
  if (YAML::Node per_type = root["launch_overheads"]; per_type.IsDefined()) {
    src_.expect_map(per_type, "`launch_overheads` (operator type: duration)");
    src_.check_keys(per_type, operator_type_names(), "`launch_overheads`");
    for (const auto& entry : per_type)
      g_.launch_overheads[entry.first.Scalar()] =
          duration_at(src_, entry.second, "launch_overheads");
  }

  YAML::Node nodes = src_.require(root, "nodes", "an architecture");
  src_.expect_sequence(nodes, "`nodes`");
  if (nodes.size() == 0) src_.fail(nodes, "`nodes` is empty; expected at least one node");
  for (const auto& n : nodes) read_node(n);

  if (YAML::Node edges = root["edges"]; edges.IsDefined()) {
    src_.expect_sequence(edges, "`edges`");
    for (const auto& e : edges) read_edge(e);
  }
  if (YAML::Node t = root["mapping_templates"]; t.IsDefined()) read_templates(t);
  g_.finalize();
  return std::move(g_);
}

// A node key with two values, `on` and `off` (the default); anything else names both.
bool ArchitectureReader::switch_of(const YAML::Node& n, const char* key, const std::string& node,
                                   const std::string& on, const std::string& on_meaning,
                                   const std::string& off) {
  const YAML::Node v = n[key];
  if (!v.IsDefined()) return false;
  const std::string value = src_.text(v, key);
  if (value != on && value != off)
    src_.fail(v, "unknown " + std::string(key) + " '" + value + "' for node '" + node +
                     "'; expected " + on_meaning + " or " + off);
  return value == on;
}

void ArchitectureReader::read_node(const YAML::Node& n) {
  src_.expect_map(n, "a node");
  std::string label = label_of(n, "node", "name");
  src_.check_keys(n,
                  {"name", "type", "clock", "instances", "capacity", "word_bytes", "read_bandwidth",
                   "write_bandwidth", "bandwidth", "port_scope", "dispatch", "tails", "operations",
                   "cost_hook", "min_kernel_time", "runs_as", "energy", "leak", "area"},
                  label);
  ArchNode node;
  YAML::Node name = src_.require(n, "name", label);
  node.name = src_.text(name, "name");
  if (auto id = g_.find_node(node.name))
    src_.fail(name, "duplicate node name '" + node.name + "' (first at line " +
                        std::to_string(g_.node(*id).where.line) + ")");
  node.where = src_.where(n);
  YAML::Node type = src_.require(n, "type", label);
  std::string kind = src_.text(type, "type");
  if (kind != "memory" && kind != "compute")
    src_.fail(type, "unknown node type '" + kind + "'; expected memory or compute");
  node.kind = kind == "memory" ? NodeKind::memory : NodeKind::compute;
  node.instances = src_.positive_integer_or(n, "instances", 1);
  node.clock_hz = n["clock"].IsDefined() ? frequency_at(src_, n["clock"], "clock") : g_.clock_hz;
  node.dynamic_dispatch = switch_of(n, "dispatch", node.name, "dynamic",
                                    "dynamic (instances take the next part when free)", "lockstep");
  node.padded_tails = switch_of(n, "tails", node.name, "padded",
                                "padded (a part computes its whole extent)", "exact");
  if (node.kind == NodeKind::memory)
    read_memory(node, n);
  else
    read_compute(node, n);
  read_leak_and_area(node, n);
  g_.nodes.push_back(std::move(node));
}

// An energy of zero or more: `8pJ`.
double ArchitectureReader::energy_at(const YAML::Node& v, const std::string& what) {
  const std::optional<double> j = v.IsScalar() ? parse_energy_joules(v.Scalar()) : std::nullopt;
  if (!j || *j < 0)
    src_.fail(v, "expected an energy of zero or more for " + what + " (e.g. `2.5pJ`), got " +
                     describe(v));
  return *j;
}

// `leak`: energy per cycle of the node's clock, per instance; `area`: per instance.
void ArchitectureReader::read_leak_and_area(ArchNode& node, const YAML::Node& n) {
  if (const YAML::Node l = n["leak"]; l.IsDefined())
    node.leak_j_per_cycle = energy_at(l, "`leak` of '" + node.name + "' (per cycle and instance)");
  if (const YAML::Node a = n["area"]; a.IsDefined()) {
    const std::optional<double> m2 = a.IsScalar() ? parse_area_m2(a.Scalar()) : std::nullopt;
    if (!m2 || *m2 < 0)
      src_.fail(a, "expected an area of zero or more for `area` of '" + node.name +
                       "' (per instance, e.g. `417um^2` or `0.5mm^2`), got " + describe(a));
    node.area_m2 = *m2;
  }
}

// `energy: {read: E, write: E, update: E, block_words: N}`: per action of a block, per instance.
void ArchitectureReader::read_memory_energy(ArchNode& node, const YAML::Node& e) {
  const std::string what = "the energy of '" + node.name + "'";
  src_.expect_map(e, what + " (read, write, update, block_words)");
  src_.check_keys(e, {"read", "write", "update", "block_words"}, what);
  MemoryEnergy energy;
  energy.read_j = energy_at(src_.require(e, "read", what), "`read` of " + what);
  energy.write_j = energy_at(src_.require(e, "write", what), "`write` of " + what);
  // An update writes a word as a fill does: the write's energy unless the table has its own.
  energy.update_j =
      e["update"].IsDefined() ? energy_at(e["update"], "`update` of " + what) : energy.write_j;
  energy.block_words = src_.positive_integer_or(e, "block_words", 1);
  node.energy = energy;
}

void ArchitectureReader::read_memory(ArchNode& node, const YAML::Node& n) {
  if (const YAML::Node e = n["energy"]; e.IsDefined()) read_memory_energy(node, e);
  for (std::string_view k : {"operations", "cost_hook", "min_kernel_time", "runs_as"})
    if (auto key = src_.key_node(n, k))
      src_.fail(*key, "`" + std::string(k) + "` applies to compute nodes only; '" + node.name +
                          "' is a memory node");
  if (!n["capacity"].IsDefined())
    src_.fail(n,
              "memory node '" + node.name + "' has no capacity; expected e.g. `capacity: 64KiB`");
  node.capacity_bytes = bytes_at(src_, n["capacity"], "capacity");
  // Held as an int: a larger word would be cut to its low bits, not refused.
  if (const YAML::Node w = n["word_bytes"]; w.IsDefined()) {
    const int64_t word_bytes = src_.positive_integer(w, "word_bytes");
    if (word_bytes > std::numeric_limits<int>::max())
      src_.fail(w, "expected a word of at most " + std::to_string(std::numeric_limits<int>::max()) +
                       " bytes for `word_bytes`, got " + describe(w));
    node.word_bytes = static_cast<int>(word_bytes);
  }
  // Port limits given per cycle count cycles of the memory's own clock.
  if (n["read_bandwidth"].IsDefined())
    node.read_port_bytes_per_s =
        bandwidth_at(src_, n["read_bandwidth"], "read_bandwidth", node.clock_hz);
  if (n["write_bandwidth"].IsDefined())
    node.write_port_bytes_per_s =
        bandwidth_at(src_, n["write_bandwidth"], "write_bandwidth", node.clock_hz);
  if (n["bandwidth"].IsDefined())
    node.port_bytes_per_s = bandwidth_at(src_, n["bandwidth"], "bandwidth", node.clock_hz);
  if (switch_of(n, "port_scope", node.name, "per_instance",
                "per_instance (each instance has the port figures to itself)", "shared"))
    node.port_scope = PortScope::per_instance;
}

void ArchitectureReader::read_compute(ArchNode& node, const YAML::Node& n) {
  for (std::string_view k : {"capacity", "word_bytes", "read_bandwidth", "write_bandwidth",
                             "bandwidth", "port_scope", "energy"})
    if (auto key = src_.key_node(n, k))
      src_.fail(*key, "`" + std::string(k) + "` applies to memory nodes only; '" + node.name +
                          "' is a compute node");
  YAML::Node ops = n["operations"];
  if (!ops.IsDefined())
    src_.fail(n, "compute node '" + node.name +
                     "' has no operations; expected e.g. `operations: [{class: matmul, dtype: "
                     "fp16, ops_per_cycle: 256}]`");
  if (n["min_kernel_time"].IsDefined())
    node.min_kernel_time_s = duration_at(src_, n["min_kernel_time"], "min_kernel_time");
  src_.expect_sequence(ops, "`operations`");
  if (ops.size() == 0)
    src_.fail(ops, "compute node '" + node.name + "' has no operations; expected at least one");
  for (const auto& o : ops) {
    ComputeCapability c = read_operation(node, o);
    if (const ComputeCapability* prior = node.declared_capability(c.op_class, c.dtype))
      src_.fail(o, "'" + node.name + "' already has a " + std::string(to_string(c.op_class)) + " " +
                       std::string(to_string(c.dtype)) + " operation (line " +
                       std::to_string(prior->where.line) + ")");
    node.capabilities.push_back(c);
  }
  if (YAML::Node h = n["cost_hook"]; h.IsDefined()) read_cost_hook(node, h);
  if (YAML::Node r = n["runs_as"]; r.IsDefined()) read_runs_as(node, r);
}

// `runs_as: {int16: fp16}`: the unit runs operators of the first type at its operations of the
// second. The target must be a type the unit has, so that the statement names a rate.
void ArchitectureReader::read_runs_as(ArchNode& node, const YAML::Node& r) {
  src_.expect_map(r, "`runs_as` (a workload's data type: the unit's type to run it as)");
  auto type_at = [&](const YAML::Node& v, const char* what) {
    const auto t = parse_data_type(src_.text(v, what));
    if (!t)
      src_.fail(v, "unknown dtype " + describe(v) +
                       " in `runs_as`; expected one of: " + std::string(data_type_names()));
    return *t;
  };
  for (const auto& kv : r) {
    const DataType from = type_at(kv.first, "runs_as");
    const DataType to = type_at(kv.second, "runs_as");
    if (from == to)
      src_.fail(kv.second, "`runs_as` runs " + std::string(to_string(from)) +
                               " as itself; give the type the unit runs it as");
    if (node.runs_as_type(from) != from)
      src_.fail(kv.first, "`runs_as` of '" + node.name + "' gives " + std::string(to_string(from)) +
                              " twice");
    const bool has = std::any_of(node.capabilities.begin(), node.capabilities.end(),
                                 [&](const ComputeCapability& c) { return c.dtype == to; });
    if (!has) {
      std::vector<std::string> types;
      for (const auto& c : node.capabilities)
        if (std::find(types.begin(), types.end(), to_string(c.dtype)) == types.end())
          types.emplace_back(to_string(c.dtype));
      std::string list;
      for (const auto& t : types) list += (list.empty() ? "" : ", ") + t;
      src_.fail(kv.second, "`runs_as` runs " + std::string(to_string(from)) + " as " +
                               std::string(to_string(to)) + ", which '" + node.name +
                               "' has no operation of; its operations' types: " + list);
    }
    node.runs_as.emplace_back(from, to);
  }
}

void ArchitectureReader::read_cost_hook(ArchNode& node, const YAML::Node& h) {
  node.cost_hook = src_.text(h, "cost_hook");
  const std::optional<ComputeCostHook> hook = find_cost_hook(node.cost_hook);
  if (!hook) {
    std::string known;
    for (const ComputeCostHook& k : known_cost_hooks())
      known += (known.empty() ? "" : ", ") + k.name;
    src_.fail(h, "cost hook '" + node.cost_hook + "' of '" + node.name +
                     "' is provided by no loaded plugin; expected one of the hooks of the code "
                     "plugins on the profile search path (" +
                     (known.empty() ? std::string("none loaded") : known) +
                     "; `tilescope profiles list` shows the plugins)");
  }
  node.cost_hook_seconds = hook->seconds;
  node.cost_hook_user = hook->user;
}

ComputeCapability ArchitectureReader::read_operation(const ArchNode& node, const YAML::Node& o) {
  std::string label = "an operation of '" + node.name + "'";
  src_.check_keys(o,
                  {"class", "dtype", "ops_per_cycle", "datasheet_ops_per_cycle", "granule",
                   "accumulator", "issue", "operation_cost", "energy_per_op"},
                  label);
  ComputeCapability c;
  c.where = src_.where(o);
  YAML::Node cls = src_.require(o, "class", label);
  auto op_class = parse_op_class(src_.text(cls, "class"));
  if (!op_class)
    src_.fail(cls, "unknown class " + describe(cls) +
                       "; expected matmul, elementwise, reduction or lookup");
  c.op_class = *op_class;
  YAML::Node dtype = src_.require(o, "dtype", label);
  auto type = parse_data_type(src_.text(dtype, "dtype"));
  if (!type)
    src_.fail(dtype, "unknown dtype " + describe(dtype) +
                         "; expected one of: " + std::string(data_type_names()));
  c.dtype = *type;
  c.ops_per_cycle = src_.positive_number(src_.require(o, "ops_per_cycle", label), "ops_per_cycle");
  if (YAML::Node d = o["datasheet_ops_per_cycle"]; d.IsDefined())
    c.datasheet_ops_per_cycle = src_.positive_number(d, "datasheet_ops_per_cycle");
  if (YAML::Node e = o["energy_per_op"]; e.IsDefined()) {
    const std::optional<double> j = e.IsScalar() ? parse_energy_joules(e.Scalar()) : std::nullopt;
    if (!j || !(*j > 0))
      src_.fail(e, "expected an energy for `energy_per_op` of " + label +
                       ", such as `8pJ` or `1.2nJ`, got " + describe(e));
    c.energy_per_op_j = *j;
  }
  if (YAML::Node g = o["granule"]; g.IsDefined()) {
    src_.expect_sequence(g, "`granule`");
    size_t want = c.op_class == OpClass::matmul ? 3 : 1;
    if (g.size() != want)
      src_.fail(g, std::string("a ") + std::string(to_string(c.op_class)) + " granule is " +
                       (want == 3 ? "[m, n, k]" : "[elements]") + ", got " +
                       std::to_string(g.size()) + " values");
    // One granule step is m x n x k operations (analysis/IssueRate): the product must fit.
    int64_t ops_per_step = 1;
    std::string written;
    for (size_t i = 0; i < want; ++i) {
      c.granule[i] = src_.positive_integer(g[i], "granule");
      multiply_checked(ops_per_step, written, {c.granule[i], src_.where(g[i])}, "granule");
    }
  }
  if (YAML::Node a = o["accumulator"]; a.IsDefined()) {
    if (c.op_class != OpClass::matmul)
      src_.fail(a, "`accumulator` applies to matmul operations only");
    auto acc = parse_data_type(src_.text(a, "accumulator"));
    if (!acc)
      src_.fail(a, "unknown accumulator " + describe(a) +
                       "; expected one of: " + std::string(data_type_names()));
    c.accumulator = *acc;
  }
  if (YAML::Node issue = o["issue"]; issue.IsDefined()) {
    if (c.op_class != OpClass::matmul)
      src_.fail(issue,
                "`issue` applies to matmul operations only (its fragments are operand "
                "tiles of a warp)");
    src_.expect_map(issue, "`issue`");
    const std::string what = "the issue block of " + label;
    src_.check_keys(
        issue,
        {"instructions_per_step", "instructions_per_fragment", "issue_per_cycle", "latency_cycles"},
        what);
    IssueLimit limit;
    limit.instructions_per_step = src_.positive_number(
        src_.require(issue, "instructions_per_step", what), "instructions_per_step");
    YAML::Node per_fragment = src_.require(issue, "instructions_per_fragment", what);
    limit.instructions_per_fragment = src_.number(per_fragment, "instructions_per_fragment");
    if (limit.instructions_per_fragment < 0)
      src_.fail(per_fragment,
                "instructions_per_fragment must be at least 0, got " + describe(per_fragment));
    limit.issue_per_cycle =
        src_.positive_number(src_.require(issue, "issue_per_cycle", what), "issue_per_cycle");
    limit.latency_cycles =
        src_.positive_number(src_.require(issue, "latency_cycles", what), "latency_cycles");
    c.issue = limit;
  }
  if (YAML::Node cost = o["operation_cost"]; cost.IsDefined()) {
    const auto entries = operation_entries(src_, cost, "`operation_cost`");
    OperationCounts costs{1, 1, 1, 1};
    for (size_t k = 0; k < kOperationKinds; ++k) {
      if (!entries[k]) continue;
      const YAML::Node& value = *entries[k];
      if (static_cast<OperationKind>(k) == OperationKind::basic)
        src_.fail(value,
                  "`basic` is the unit of `operation_cost` (what ops_per_cycle counts); "
                  "its cost is 1 and is not written");
      costs[k] = src_.number(value, "operation_cost");
      // Below 1 an operation would be cheaper than the basic one, and the mapper's compute
      // floor (every operation at ops_per_cycle) would no longer be a floor.
      if (!(costs[k] >= 1))
        src_.fail(value, "an operation cost is in basic operations and at least 1, got " +
                             describe(value));
    }
    c.operation_cost = costs;
  }
  return c;
}

NodeId ArchitectureReader::node_id(const YAML::Node& name) {
  std::string text = src_.text(name, "node");
  if (auto id = g_.find_node(text)) return *id;
  std::vector<std::string> known;
  for (const auto& n : g_.nodes) known.push_back(n.name);
  src_.fail(name, "unknown node '" + text + "' (known: " + join_names(known) + ")");
}

void ArchitectureReader::read_edge(const YAML::Node& e) {
  src_.expect_map(e, "an edge");
  std::string label = "edge";
  // A missing key is a zombie node in yaml-cpp: ask IsDefined before anything else.
  const YAML::Node from = e["from"], to = e["to"];
  if (from.IsDefined() && to.IsDefined() && from.IsScalar() && to.IsScalar())
    label += " " + from.Scalar() + "->" + to.Scalar();
  src_.check_keys(e,
                  {"from", "to", "bandwidth", "sharing", "latency", "multicast", "broadcast",
                   "reduction", "reduction_topology", "reduction_latency", "reduction_bandwidth",
                   "alignment", "energy_per_byte"},
                  label);
  ArchEdge edge;
  edge.where = src_.where(e);
  edge.from = node_id(src_.require(e, "from", label));
  edge.to = node_id(src_.require(e, "to", label));
  // A self-edge is allowed: one node stands for all its instances, so an edge from a node to
  // itself is the links between them (a mesh of scratchpads).
  const ArchNode& source = g_.node(edge.from);
  for (const ArchEdge& prior : g_.edges)
    if (prior.from == edge.from && prior.to == edge.to)
      src_.fail(e,
                "duplicate " + label + " (first at line " + std::to_string(prior.where.line) + ")");
  if (!e["bandwidth"].IsDefined())
    src_.fail(e, label + " has no bandwidth; expected e.g. `bandwidth: 1.6TB/s`");
  edge.bandwidth_bytes_per_s = bandwidth_at(src_, e["bandwidth"], "bandwidth", source.clock_hz);
  if (YAML::Node s = e["sharing"]; s.IsDefined()) {
    std::string sharing = src_.text(s, "sharing");
    if (sharing != "per_instance" && sharing != "shared")
      src_.fail(s, "unknown sharing '" + sharing + "'; expected per_instance or shared");
    edge.sharing = sharing == "shared" ? EdgeSharing::shared : EdgeSharing::per_instance;
  }
  if (YAML::Node l = e["latency"]; l.IsDefined())
    edge.latency_cycles = cycles_at(l, "latency", source.clock_hz);
  read_multicast(edge, e, label);
  read_reduction(edge, e, label, source.clock_hz);
  if (YAML::Node a = e["alignment"]; a.IsDefined()) {
    const std::string what = "the alignment of " + label;
    src_.check_keys(a, {"bytes", "unaligned_rate"}, what);
    RowAlignment align;
    align.bytes = src_.positive_integer(src_.require(a, "bytes", what), "bytes");
    YAML::Node rate = src_.require(a, "unaligned_rate", what);
    align.unaligned_rate = src_.positive_number(rate, "unaligned_rate");
    if (align.unaligned_rate > 1)
      src_.fail(rate, "expected an unaligned_rate of at most 1 (a share of the edge's rate), got " +
                          describe(rate));
    edge.alignment = align;
  }
  if (const YAML::Node b = e["energy_per_byte"]; b.IsDefined())
    edge.energy_per_byte_j = energy_at(b, "`energy_per_byte` of " + label);
  g_.edges.push_back(edge);
}

// Cycles of the source clock; a duration is converted to them.
double ArchitectureReader::cycles_at(const YAML::Node& v, const char* key, double clock_hz) {
  auto seconds = v.IsScalar() ? parse_duration_seconds(v.Scalar()) : std::nullopt;
  const double cycles = seconds ? *seconds * clock_hz : src_.number(v, key);
  if (cycles < 0)
    src_.fail(v, "expected a " + std::string(key) + " of zero or more cycles, got " + describe(v));
  return cycles;
}

// `broadcast` is the older spelling of `multicast`; one edge says it once.
void ArchitectureReader::read_multicast(ArchEdge& edge, const YAML::Node& e,
                                        const std::string& label) {
  const YAML::Node multicast = e["multicast"], broadcast = e["broadcast"];
  if (multicast.IsDefined() && broadcast.IsDefined())
    src_.fail(broadcast, label +
                             " has both `multicast` and `broadcast`, two spellings of one key; "
                             "expected only `multicast`");
  edge.multicast = src_.boolean_or(e, multicast.IsDefined() ? "multicast" : "broadcast", false);
}

void ArchitectureReader::read_reduction(ArchEdge& edge, const YAML::Node& e,
                                        const std::string& label, double source_clock_hz) {
  if (YAML::Node r = e["reduction"]; r.IsDefined()) {
    const std::string value = src_.text(r, "reduction");
    if (value == "network")
      edge.reduction = EdgeReduction::network;
    else if (value == "memory")
      edge.reduction = EdgeReduction::memory;
    else if (value != "none")
      src_.fail(r, "unknown reduction '" + value + "' for " + label +
                       "; expected network (partial sums added on the way), memory (added in the "
                       "destination memory, read-modify-write) or none");
  }
  // The network's figures mean nothing without a network: refuse them rather than ignore them.
  if (edge.reduction != EdgeReduction::network) {
    for (const char* key : {"reduction_topology", "reduction_latency", "reduction_bandwidth"})
      if (auto k = src_.key_node(e, key))
        src_.fail(*k, "`" + std::string(key) + "` of " + label +
                          " describes a reduction network; expected it only with "
                          "`reduction: network`");
    return;
  }
  const YAML::Node topology = e["reduction_topology"];
  if (!topology.IsDefined())
    src_.fail(e, label +
                     " has `reduction: network` but no `reduction_topology`; expected chain "
                     "(R-1 hops) or tree (ceil(log2 R) levels)");
  const std::string shape = src_.text(topology, "reduction_topology");
  if (shape != "chain" && shape != "tree")
    src_.fail(topology, "unknown reduction_topology '" + shape + "' for " + label +
                            "; expected chain or tree");
  edge.reduction_topology = shape == "tree" ? ReductionTopology::tree : ReductionTopology::chain;
  if (YAML::Node l = e["reduction_latency"]; l.IsDefined())
    edge.reduction_latency_cycles = cycles_at(l, "reduction_latency", source_clock_hz);
  if (YAML::Node b = e["reduction_bandwidth"]; b.IsDefined())
    edge.reduction_bandwidth_bytes_per_s =
        bandwidth_at(src_, b, "reduction_bandwidth", source_clock_hz);
}

// Keys are operation classes (the template of every operator of the class) or operator types
// (that type's own, e.g. `rmsnorm`), so one list names what may appear. A value is one path or a
// list of them: a kernel menu, from which the mapper takes the fastest (docs/formats.md).
void ArchitectureReader::read_templates(const YAML::Node& t) {
  src_.expect_map(t, "`mapping_templates` (class or operator type: template path or list)");
  std::vector<std::string> known{"matmul", "elementwise", "reduction", "lookup"};
  for (const std::string& type : operator_type_names()) known.push_back(type);
  src_.check_keys(t, known, "`mapping_templates`");
  for (const auto& entry : t) {
    const std::string key = entry.first.Scalar();
    // A template is read only when the mapper needs it; a wrong path must fail here, at its line.
    std::vector<std::string> paths;
    if (entry.second.IsSequence()) {
      if (entry.second.size() == 0)
        src_.fail(entry.second, "an empty kernel menu for `" + key +
                                    "`; expected a template path or a list of them");
      for (const auto& item : entry.second)
        paths.push_back(src_.existing_path(item, "mapping template"));
    } else {
      paths.push_back(src_.existing_path(entry.second, "mapping template"));
    }
    if (auto cls = parse_op_class(key))
      g_.mapping_templates[*cls] = std::move(paths);
    else
      g_.operator_templates[key] = std::move(paths);
  }
}

}  // namespace

ArchitectureGraph parse_architecture(const std::string& yaml_text, const std::string& file_name) {
  return ArchitectureReader(YamlSource::parse(yaml_text, file_name)).read();
}

ArchitectureGraph load_architecture(const std::string& path) {
  return ArchitectureReader(YamlSource::load(path)).read();
}

}  // namespace ts
