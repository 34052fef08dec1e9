#include "analysis/MappingProgram.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "analysis/OperationPrice.hpp"
#include "common/CheckedArithmetic.hpp"
#include "common/NameList.hpp"

namespace ts {
namespace {

std::string node_names(const ArchitectureGraph& g, NodeKind kind) {
  std::vector<std::string> names;
  for (const auto& n : g.nodes)
    if (n.kind == kind) names.push_back(n.name);
  return join_names(names);
}

NodeId resolve_node(const ArchitectureGraph& g, const std::string& name, NodeKind kind,
                    const SourceLocation& where) {
  auto id = g.find_node(name);
  const char* what = kind == NodeKind::memory ? "memory" : "compute";
  if (!id)
    throw InputError(where, fmt::format("unknown {} node '{}' in graph '{}' (known: {})", what,
                                        name, g.name, node_names(g, kind)));
  if (g.node(*id).kind != kind)
    throw InputError(where, fmt::format("'{}' is not a {} node (the {} nodes of '{}': {})", name,
                                        what, what, g.name, node_names(g, kind)));
  return *id;
}

class Compiler {
 public:
  Compiler(const Mapping& m, const Operator& op, const ArchitectureGraph& g, bool tmpl)
      : mapping_(m), op_(op), graph_(g), template_mode_(tmpl) {}

  MappingProgram run() {
    p_.op = &op_;
    p_.graph = &graph_;
    p_.mapping_name = mapping_.name;
    p_.mapping_file = mapping_.source_file;
    p_.ndims = static_cast<int>(op_.dims.size());
    p_.ntensors = static_cast<int>(op_.tensors.size());
    if (p_.ndims > kMaxDims || p_.ntensors > kMaxTensors)
      throw InputError(op_.where,
                       fmt::format("operator '{}' has {} dims and {} tensors; at most "
                                   "{} and {} are supported",
                                   op_.name, p_.ndims, p_.ntensors, kMaxDims, kMaxTensors));
    for (int d = 0; d < p_.ndims; ++d) p_.size[d] = op_.dims[d].size;
    for (int t = 0; t < p_.ntensors; ++t) {
      DimMask mask = 0;
      for (int d : op_.tensors[t].dims) mask |= DimMask(1) << d;
      p_.tensor_dims[t] = mask;
      p_.windows[t] = op_.tensors[t].windows;
      p_.window_dims[t] = 0;
      for (const WindowAxis& w : p_.windows[t])
        p_.window_dims[t] |= (DimMask(1) << w.dims[0]) | (DimMask(1) << w.dims[1]);
      p_.element_bytes[t] = bytes_of(op_.tensors[t].dtype);
      p_.tensor_bytes[t] = op_.tensor_bytes(t);
    }
    if (mapping_.root.kind != MappingNodeKind::tile)
      throw InputError(mapping_.root.where,
                       "the root of a mapping must be a `tile:` node at the memory that holds the "
                       "operator's tensors");
    flatten(mapping_.root, -1, 0);
    check_stages();
    compute_masks();
    place_intermediates();
    if (template_mode_) free_unnamed_dims();
    build_flows();
    for (const ProgramNode& n : p_.nodes) {  // the kernel floor, once here, not per evaluation
      if (n.kind != MappingNodeKind::op || !n.compute.valid()) continue;
      if (graph_.node(n.compute).min_kernel_time_s > p_.min_kernel_s) {
        p_.min_kernel_s = graph_.node(n.compute).min_kernel_time_s;
        p_.min_kernel_unit = n.compute;
      }
    }
    return std::move(p_);
  }

 private:
  int dim_index(const DimFactor& f) {
    int d = op_.find_dim(f.dim);
    if (d < 0 && !template_mode_) {
      std::vector<std::string> names;
      for (const auto& dim : op_.dims) names.push_back(dim.name);
      throw InputError(f.where, fmt::format("unknown dimension '{}' for operator '{}' (its "
                                            "dimensions: {})",
                                            f.dim, op_.name, join_names(names)));
    }
    if (d >= 0) named_[d] = true;
    return d;
  }

  void flatten(const MappingNode& m, int parent, int depth) {
    int id = static_cast<int>(p_.nodes.size());
    p_.nodes.emplace_back();
    {
      ProgramNode& n = p_.nodes.back();
      n.kind = m.kind;
      n.parent = parent;
      n.depth = depth;
      n.where = m.where;
      n.buffer.fill(NodeId{});
      for (auto& f : n.temporal) f = Factor::exact(1);
      for (auto& f : n.spatial) f = Factor::exact(1);
      for (auto& f : n.op_factor) f = Factor::exact(1);
      for (int d = 0; d < kMaxDims; ++d) n.order[d] = static_cast<uint8_t>(d);
    }
    if (parent >= 0) p_.nodes[parent].children.push_back(id);
    switch (m.kind) {
      case MappingNodeKind::tile:
        compile_tile(m, id);
        break;
      case MappingNodeKind::op:
        compile_op(m, id);
        break;
      case MappingNodeKind::scope:
        p_.nodes[id].scope = m.scope;
        break;
      case MappingNodeKind::trans:
        compile_trans(m, id);
        break;
    }
    if (m.kind == MappingNodeKind::op || m.kind == MappingNodeKind::trans) {
      if (!m.children.empty()) throw InputError(m.where, "an op or trans node has no children");
    }
    if (m.kind == MappingNodeKind::scope && m.children.empty())
      throw InputError(m.where, "a scope needs at least one child");
    for (const auto& c : m.children) flatten(c, id, depth + 1);
  }

  // A matmul unit with a wider accumulator keeps its partial sums at that type in the buffer it
  // writes into directly (an edge from the unit to that memory): the fp16 C of a cube GEMM takes
  // fp32 bytes in L0C. Buffers further up hold the converted result.
  void widen_accumulator(int op_id, int tensor, NodeId memory) {
    const ProgramNode& o = p_.nodes[op_id];
    const ComputeCapability* cap = o.capability;
    if (!cap || cap->op_class != OpClass::matmul || !cap->accumulator) return;
    if (!graph_.edge_between(o.compute, memory).valid()) return;
    const double scale = static_cast<double>(bytes_of(*cap->accumulator)) /
                         static_cast<double>(p_.element_bytes[tensor]);
    for (int a = o.parent; a >= 0; a = p_.nodes[a].parent) {
      ProgramNode& t = p_.nodes[a];
      if (t.kind != MappingNodeKind::tile || !t.buffer[tensor].valid()) continue;
      if (t.buffer[tensor] == memory) t.buffer_scale[tensor] = std::max(1.0, scale);
      return;
    }
  }

  void compile_tile(const MappingNode& m, int id) {
    ProgramNode& n = p_.nodes[id];
    n.memory = resolve_node(graph_, m.memory, NodeKind::memory, m.where);
    n.spread_instances = graph_.node(n.memory).instances;
    n.spread_dynamic = graph_.node(n.memory).dynamic_dispatch;
    n.padded_tails = graph_.node(n.memory).padded_tails;
    n.double_buffer = m.double_buffer;
    n.double_buffer_free = m.double_buffer_free;
    n.streamed = m.streamed;
    n.footprint_step = m.footprint_step;
    n.resident_parts = m.resident_parts;
    n.pipeline_restarts = m.pipeline_restarts;
    n.concurrent_loads = m.concurrent_loads;
    n.order_free = m.order_free;
    for (int t = 0; t < p_.ntensors; ++t) n.buffer[t] = n.memory;
    n.buffer_scale.fill(1.0);
    for (const auto& pl : m.placements) {
      const int t = tensor_index(pl.tensor, pl.where);
      // A free buffer changes the tile's flows, so the mapper settles it before compiling
      // (buffer_choices compiles each way); a mapping given as it is must say which.
      if (pl.free())
        throw InputError(pl.where,
                         fmt::format("`buffers: {{{}: \"?\"}}` leaves to the mapper whether the "
                                     "tile at {} holds '{}' or it bypasses; give the mapping "
                                     "as a template, or write {} or bypass",
                                     pl.tensor, m.memory, pl.tensor, m.memory));
      n.buffer[t] = pl.memory == kBypass
                        ? NodeId{}
                        : resolve_node(graph_, pl.memory, NodeKind::memory, pl.where);
    }
    compile_keeps(m, id);
    std::vector<uint8_t> order;
    for (const auto& f : m.temporal) {
      int d = dim_index(f);
      if (d < 0) continue;
      n.temporal[d] = f.factor;
      n.temporal_free[d] = f.factor.free;
      order.push_back(static_cast<uint8_t>(d));
    }
    for (int d = 0; d < p_.ndims; ++d)
      if (std::find(order.begin(), order.end(), d) == order.end())
        order.push_back(static_cast<uint8_t>(d));
    for (size_t i = 0; i < order.size(); ++i) n.order[i] = order[i];
    for (const auto& f : m.spatial) {
      int d = dim_index(f);
      if (d < 0) continue;
      n.spatial[d] = f.factor;
      n.spatial_free[d] = f.factor.free;
    }
  }

  int tensor_index(const std::string& name, const SourceLocation& where) const {
    const int t = op_.find_tensor(name);
    if (t >= 0) return t;
    std::vector<std::string> names;
    for (const auto& ts : op_.tensors) names.push_back(ts.name);
    throw InputError(where, fmt::format("unknown tensor '{}' for operator '{}' (its tensors: {})",
                                        name, op_.name, join_names(names)));
  }

  // `keep:` names a tensor this node moves: one with a buffer at the tile, or an operand or the
  // result of the op's stage.
  void compile_keeps(const MappingNode& m, int id) {
    ProgramNode& n = p_.nodes[id];
    for (const TensorKeep& k : m.keeps) {
      const int t = tensor_index(k.tensor, k.where);
      if (n.kind == MappingNodeKind::tile && !n.buffer[t].valid())
        throw InputError(k.where, fmt::format("`keep: {}` at the tile at {}, where '{}' bypasses; "
                                              "keep applies to a tensor the tile buffers",
                                              k.tensor, graph_.node(n.memory).name, k.tensor));
      if (n.kind == MappingNodeKind::op) {
        const Stage& st = op_.stages[static_cast<size_t>(n.stage)];
        if (st.output != t && std::find(st.inputs.begin(), st.inputs.end(), t) == st.inputs.end())
          throw InputError(k.where,
                           fmt::format("`keep: {}` at the op on {}: stage '{}' neither "
                                       "reads nor writes '{}'",
                                       k.tensor, graph_.node(n.compute).name, st.name, k.tensor));
      }
      n.keep[t] = k.choice;
    }
  }

  void compile_op(const MappingNode& m, int id) {
    ProgramNode& n = p_.nodes[id];
    n.compute = resolve_node(graph_, m.compute, NodeKind::compute, m.where);
    const ArchNode& unit = graph_.node(n.compute);
    n.spread_instances = unit.instances;
    n.spread_dynamic = unit.dynamic_dispatch;
    if (!m.stage.empty()) {
      for (size_t s = 0; s < op_.stages.size(); ++s)
        if (op_.stages[s].name == m.stage) n.stage = static_cast<int>(s);
      if (n.stage < 0) {
        std::vector<std::string> names;
        for (const auto& s : op_.stages) names.push_back(s.name);
        throw InputError(m.where, fmt::format("operator '{}' has no stage '{}' (its stages: {})",
                                              op_.name, m.stage, join_names(names)));
      }
    } else if (op_.stages.size() == 1) {
      n.stage = 0;
    } else {
      std::vector<std::string> names;
      for (const auto& s : op_.stages) names.push_back(s.name);
      throw InputError(m.where, fmt::format("operator '{}' is a fused chain: say which stage this "
                                            "op runs with `stage:` (one of {})",
                                            op_.name, join_names(names)));
    }
    const Stage& st = op_.stages[n.stage];
    DataType dtype = op_.tensors[st.output].dtype;
    n.capability = unit.capability(st.op_class, dtype);
    // A matmul whose result is kept at its unit's accumulator type (attention's fp32 scores of
    // fp16 Q and K) runs at its operands' rate, not at that of a unit for the result's type (the
    // Ascend cube's fp32 mode is a quarter of its fp16 one); so does one whose unit has no
    // operation of the result's type (an int8 GEMM written out in int32).
    if (st.op_class == OpClass::matmul && !st.inputs.empty()) {
      const DataType operand_type = op_.tensors[static_cast<size_t>(st.inputs[0])].dtype;
      const ComputeCapability* operands = unit.capability(st.op_class, operand_type);
      if (operands && (operands->accumulator == dtype || !n.capability)) {
        n.capability = operands;
        dtype = operand_type;
      }
    }
    // A unit with operations of the class but none of this type (nor a `runs_as:` for it) has
    // no rate for this operator: an answer at another type's rate would be for another question.
    if (!n.capability && unit.capability(st.op_class)) {
      throw InputError(
          op_.where,
          fmt::format("operator '{}' ({}) is {} but compute node '{}' has no {} operation of "
                      "that type (its {} types: {}); give the graph's node an operation of it, or "
                      "say what it runs as, e.g. `runs_as: {{{}: {}}}` on '{}'",
                      op_.name, op_.shape_text(), to_string(dtype), unit.name,
                      to_string(st.op_class), to_string(st.op_class),
                      unit.operation_types_text(st.op_class), to_string(dtype),
                      to_string(unit.capability(st.op_class)->dtype), unit.name));
    }
    if (!n.capability) {
      std::vector<std::string> classes;
      for (const auto& c : unit.capabilities) {
        std::string cls(to_string(c.op_class));
        if (std::find(classes.begin(), classes.end(), cls) == classes.end()) classes.push_back(cls);
      }
      throw InputError(m.where, fmt::format("compute node '{}' cannot run {} (stage '{}' of '{}'); "
                                            "it runs: {}",
                                            unit.name, to_string(st.op_class), st.name, op_.name,
                                            join_names(classes)));
    }
    n.priced_ops_per_point = priced_ops_per_point(st, *n.capability);
    n.sustained_ops_per_cycle = graph_.sustained_ops_per_cycle(unit, *n.capability);
    // An input that a stage produced by reducing a dimension this stage does not iterate is
    // ready once the reduction is: this stage is its epilogue.
    for (int in : st.inputs) {
      const int producer = op_.producer(in);
      if (producer < 0) continue;
      const Stage& from = op_.stages[static_cast<size_t>(producer)];
      const auto& out_dims = op_.tensors[static_cast<size_t>(from.output)].dims;
      for (int d : from.dims)
        if (std::find(out_dims.begin(), out_dims.end(), d) == out_dims.end() &&
            std::find(st.dims.begin(), st.dims.end(), d) == st.dims.end())
          n.epilogue_dims |= DimMask{1} << d;
    }
    for (const auto& f : m.op_factors) {
      int d = dim_index(f);
      if (d < 0) continue;
      n.op_factor[d] = f.factor;
      n.op_free[d] = f.factor.free;
    }
    for (const auto& w : m.op_warps) {
      // Warps deal out the tile's iterations; they are not a loop, so naming a dimension here
      // leaves a template's free loops free (dim_index would mark it named).
      const int d = op_.find_dim(w.dim);
      if (d < 0) {
        if (template_mode_) continue;
        throw InputError(w.where, fmt::format("warps: unknown dimension '{}' for operator '{}'",
                                              w.dim, op_.name));
      }
      n.op_warps[d] = w.factor.full;
      n.warps *= w.factor.full;
    }
    compile_keeps(m, id);
    // Granule roles: which dims pad to which side of the unit's native block.
    DimMask out = p_.tensor_dims[st.output];
    if (st.op_class == OpClass::matmul && st.inputs.size() >= 2) {
      DimMask a = p_.tensor_dims[st.inputs[0]], b = p_.tensor_dims[st.inputs[1]];
      for (int d : st.dims) {
        DimMask bit = DimMask(1) << d;
        if ((out & bit) && (a & bit) && (b & bit))
          n.role[d] = GranuleRole::batch;
        else if ((out & bit) && (a & bit))
          n.role[d] = GranuleRole::m;
        else if ((out & bit) && (b & bit))
          n.role[d] = GranuleRole::n;
        else if (!(out & bit))
          n.role[d] = GranuleRole::k;
        else
          n.role[d] = GranuleRole::batch;
      }
    } else {
      for (int d : st.dims) n.role[d] = GranuleRole::batch;
      // The lanes run along the output's contiguous dimension, or, for a reduction along the
      // input's (a row's sum of squares into one value per row), along what they reduce: a warp
      // reads 32 consecutive elements and adds them, it does not pad one row to 32.
      const auto& odims = op_.tensors[st.output].dims;
      const std::vector<int>* idims =
          st.inputs.empty() ? nullptr : &op_.tensors[static_cast<size_t>(st.inputs.front())].dims;
      if (idims && !idims->empty() && !((out >> idims->back()) & 1u))
        n.role[idims->back()] = GranuleRole::vector;
      else if (!odims.empty())
        n.role[odims.back()] = GranuleRole::vector;
    }
  }

  void compile_trans(const MappingNode& m, int id) {
    ProgramNode& n = p_.nodes[id];
    n.tensor = op_.find_tensor(m.tensor);
    if (n.tensor < 0)
      throw InputError(m.where, fmt::format("trans names unknown tensor '{}' of operator '{}'",
                                            m.tensor, op_.name));
    n.target = resolve_node(graph_, m.target, NodeKind::memory, m.where);
  }

  void check_stages() {
    for (size_t s = 0; s < op_.stages.size(); ++s) {
      int count = 0;
      for (const auto& n : p_.nodes)
        if (n.kind == MappingNodeKind::op && n.stage == static_cast<int>(s)) ++count;
      if (count == 0)
        throw InputError(
            mapping_.root.where,
            fmt::format("stage '{}' of operator '{}' has no `op:` node in mapping '{}'",
                        op_.stages[s].name, op_.name, mapping_.name));
      if (count > 1)
        throw InputError(mapping_.root.where,
                         fmt::format("stage '{}' of operator '{}' has {} op nodes; expected one",
                                     op_.stages[s].name, op_.name, count));
    }
  }

  // Per node: dims, tensors consumed and produced by the stages below it.
  void compute_masks() {
    size_t n = p_.nodes.size();
    consumed_.assign(n, 0);
    produced_.assign(n, 0);
    for (size_t i = n; i-- > 0;) {
      ProgramNode& node = p_.nodes[i];
      if (node.kind == MappingNodeKind::op) {
        const Stage& st = op_.stages[node.stage];
        for (int d : st.dims) node.used_dims |= DimMask(1) << d;
        for (int t : st.inputs) consumed_[i] |= 1u << t;
        produced_[i] |= 1u << st.output;
      }
      if (node.parent >= 0) {
        p_.nodes[node.parent].used_dims |= node.used_dims;
        consumed_[node.parent] |= consumed_[i];
        produced_[node.parent] |= produced_[i];
      }
    }
    // A tile holds only tensors that stages below it use.
    for (size_t i = 0; i < n; ++i) {
      ProgramNode& node = p_.nodes[i];
      if (node.kind != MappingNodeKind::tile) continue;
      for (int t = 0; t < p_.ntensors; ++t)
        if (!(((consumed_[i] | produced_[i]) >> t) & 1u)) node.buffer[t] = NodeId{};
    }
  }

  bool is_ancestor(int a, int b) const {  // a is b or above b
    for (int x = b; x >= 0; x = p_.nodes[x].parent)
      if (x == a) return true;
    return false;
  }

  // Intermediates of a fused chain live at the innermost tile that encloses their producer and
  // every consumer, and below; never above it, unless a trans node moves them.
  void place_intermediates() {
    for (int t = 0; t < p_.ntensors; ++t) {
      if (!op_.is_intermediate(t)) continue;
      int lca = -1;
      for (size_t i = 0; i < p_.nodes.size(); ++i) {
        const ProgramNode& node = p_.nodes[i];
        if (node.kind != MappingNodeKind::op) continue;
        const Stage& st = op_.stages[node.stage];
        bool uses =
            st.output == t || std::find(st.inputs.begin(), st.inputs.end(), t) != st.inputs.end();
        if (!uses) continue;
        if (lca < 0) {
          lca = static_cast<int>(i);
        } else {
          while (!is_ancestor(lca, static_cast<int>(i))) lca = p_.nodes[lca].parent;
        }
      }
      int home = lca;
      while (home >= 0 && p_.nodes[home].kind != MappingNodeKind::tile)
        home = p_.nodes[home].parent;
      for (int x = home >= 0 ? p_.nodes[home].parent : -1; x >= 0; x = p_.nodes[x].parent)
        p_.nodes[x].buffer[t] = NodeId{};
    }
  }

  void free_unnamed_dims() {
    ProgramNode& root = p_.nodes[0];
    for (int d = 0; d < p_.ndims; ++d)
      if (!named_[d]) {
        root.temporal[d] = Factor{1, 1, true};
        root.temporal_free[d] = true;
      }
  }

  std::vector<EdgeId> path_or_throw(NodeId from, NodeId to, const SourceLocation& where,
                                    const std::string& what) {
    if (from == to) return {};
    auto path = graph_.shortest_path(from, to);
    if (path.empty()) {
      std::vector<std::string> reach;
      for (EdgeId e : graph_.out_edges(from)) reach.push_back(graph_.node(graph_.edge(e).to).name);
      throw InputError(where, fmt::format("no path in graph '{}' from {} to {} for {} (edges from "
                                          "{} go to: {})",
                                          graph_.name, graph_.node(from).name, graph_.node(to).name,
                                          what, graph_.node(from).name,
                                          reach.empty() ? "nothing" : join_names(reach)));
    }
    return path;
  }

  double path_latency(const std::vector<EdgeId>& path) const {
    double s = 0;
    for (EdgeId e : path) {
      const ArchEdge& edge = graph_.edge(e);
      s += edge.latency_cycles / graph_.node(edge.from).clock_hz;
    }
    return s;
  }

  // Where a tensor is when node `id` needs it: a preceding trans sibling on the way up, or the
  // nearest ancestor tile's buffer.
  NodeId source_memory(int id, int t) const {
    for (int x = id; x >= 0; x = p_.nodes[x].parent) {
      int parent = p_.nodes[x].parent;
      if (parent < 0) break;
      const auto& siblings = p_.nodes[parent].children;
      for (int s : siblings) {
        if (s == x) break;
        const ProgramNode& sib = p_.nodes[s];
        if (sib.kind == MappingNodeKind::trans && sib.tensor == t) return sib.target;
      }
      const ProgramNode& pn = p_.nodes[parent];
      if (pn.kind == MappingNodeKind::tile && pn.buffer[t].valid()) return pn.buffer[t];
    }
    return NodeId{};
  }

  bool accumulates(int t) const {
    for (const auto& st : op_.stages)
      if (st.output == t && st.op_class == OpClass::matmul)
        for (int d : st.dims)
          if (!((p_.tensor_dims[t] >> d) & 1u)) return true;
    return false;
  }

  // The dims that reduction stages under node `id` reduce tensor `t` over: those of the stage
  // that the output lacks, or, for row-wise operators (softmax, layernorm) whose output keeps
  // every dim, the contiguous one.
  DimMask reduced_dims_below(int id, int t) const {
    DimMask mask = 0;
    for (size_t i = static_cast<size_t>(id); i < p_.nodes.size(); ++i) {
      const ProgramNode& n = p_.nodes[i];
      if (i != static_cast<size_t>(id) && n.depth <= p_.nodes[static_cast<size_t>(id)].depth) break;
      if (n.kind != MappingNodeKind::op) continue;
      const Stage& st = op_.stages[static_cast<size_t>(n.stage)];
      if (st.op_class != OpClass::reduction) continue;
      if (std::find(st.inputs.begin(), st.inputs.end(), t) == st.inputs.end()) continue;
      const DimMask out = p_.tensor_dims[st.output];
      DimMask own = 0;
      for (int d : st.dims)
        if (!((out >> d) & 1u)) own |= DimMask(1) << d;
      if (own == 0 && !op_.tensors[st.output].dims.empty())
        own = DimMask(1) << op_.tensors[st.output].dims.back();
      mask |= own & p_.tensor_dims[t];
    }
    return mask;
  }

  int local_edge_index_of(ProgramNode& n, EdgeId edge) {
    for (size_t i = 0; i < n.local_edges.size(); ++i)
      if (n.local_edges[i] == edge) return static_cast<int>(i);
    if (n.local_edges.size() >= static_cast<size_t>(kMaxLocalEdges))
      throw InputError(n.where, "too many distinct edges below one tile");
    n.local_edges.push_back(edge);
    return static_cast<int>(n.local_edges.size() - 1);
  }

  Flow make_flow(ProgramNode& owner, int t, NodeId from, NodeId to, const std::string& what) {
    Flow f;
    f.tensor = t;
    f.from_memory = from;
    f.to_memory = to;
    f.path = path_or_throw(from, to, owner.where, what);
    f.latency_s = path_latency(f.path);
    f.accumulate = accumulates(t);
    // A row in memory is the tensor's whole innermost dimension: its length sets where every
    // row starts, whatever part of it a tile moves.
    const TensorSpec& tensor = op_.tensors[static_cast<size_t>(t)];
    // Loaded workloads bound every tensor's bytes; an operator built from a model is only
    // bounded per size (kLargestDimensionSize), which x 4 bytes may still pass 64 bits.
    // int4 rows (the one type under a byte) take ceil(n / 2) bytes, which cannot overflow.
    const int64_t row_elements =
        tensor.dims.empty() ? 0 : op_.dims[static_cast<size_t>(tensor.dims.back())].size;
    const int64_t row_bytes = bits_of(tensor.dtype) < 8
                                  ? (row_elements + 1) / 2
                                  : checked_product({{row_elements, op_.where},
                                                     {whole_bytes_of(tensor.dtype), op_.where}},
                                                    "the bytes of a row of tensor '" + tensor.name +
                                                        "' of operator '" + op_.name + "'");
    for (EdgeId e : f.path) {
      const std::optional<RowAlignment>& align = graph_.edge(e).alignment;
      f.row_slowdown.push_back(align && row_bytes % align->bytes != 0 ? 1.0 / align->unaligned_rate
                                                                      : 1.0);
    }
    return f;
  }

  void build_flows() {
    for (size_t i = 0; i < p_.nodes.size(); ++i) {
      ProgramNode& n = p_.nodes[i];
      const int id = static_cast<int>(i);
      if (n.kind == MappingNodeKind::tile) {
        for (int t = 0; t < p_.ntensors; ++t) {
          if (!n.buffer[t].valid()) continue;
          if (std::find(p_.memories.begin(), p_.memories.end(), n.buffer[t]) == p_.memories.end())
            p_.memories.push_back(n.buffer[t]);
          if (n.parent < 0) continue;
          NodeId above = source_memory(id, t);
          if (!above.valid()) {
            if (op_.is_input(t))
              throw InputError(n.where,
                               fmt::format("input '{}' has no buffer above the tile at {}; "
                                           "the root tile must hold the operator's inputs",
                                           op_.tensors[t].name, graph_.node(n.memory).name));
            continue;
          }
          if (above == n.buffer[t]) continue;
          const bool read = ((consumed_[i] >> t) & 1u) && !((produced_[i] >> t) & 1u);
          const bool written = (produced_[i] >> t) & 1u;
          const std::string& name = op_.tensors[t].name;
          if (read || (written && accumulates(t))) {
            n.loads.push_back(make_flow(n, t, above, n.buffer[t], "tensor " + name));
            n.loads.back().reduced_dims = reduced_dims_below(id, t);
          }
          if (written)
            n.stores.push_back(
                make_flow(n, t, n.buffer[t], above, "tensor " + name + " (written back)"));
        }
        for (auto* flows : {&n.loads, &n.stores})
          for (auto& f : *flows)
            for (EdgeId e : f.path) f.local_edge_index.push_back(local_edge_index_of(n, e));
        if (n.loads.size() > static_cast<size_t>(kMaxTensors) ||
            n.stores.size() > static_cast<size_t>(kMaxTensors))
          throw InputError(n.where, "too many tensors move into one tile");
      } else if (n.kind == MappingNodeKind::op) {
        const Stage& st = op_.stages[n.stage];
        for (int t : st.inputs) {
          NodeId src = source_memory(id, t);
          if (!src.valid())
            throw InputError(n.where,
                             fmt::format("operand '{}' of the op on {} is in no buffer "
                                         "above it",
                                         op_.tensors[t].name, graph_.node(n.compute).name));
          n.operands.push_back(make_flow(n, t, src, n.compute, "operand " + op_.tensors[t].name));
        }
        NodeId dst = source_memory(id, st.output);
        if (!dst.valid())
          throw InputError(n.where,
                           fmt::format("result '{}' of the op on {} has no buffer above "
                                       "it",
                                       op_.tensors[st.output].name, graph_.node(n.compute).name));
        Flow out = make_flow(n, st.output, n.compute, dst, "result " + op_.tensors[st.output].name);
        out.accumulate = false;
        n.operands.push_back(std::move(out));
        widen_accumulator(id, st.output, dst);
      } else if (n.kind == MappingNodeKind::trans) {
        NodeId src = source_memory(id, n.tensor);
        if (!src.valid())
          throw InputError(n.where, fmt::format("trans of '{}': the tensor is in no buffer above "
                                                "this node",
                                                op_.tensors[n.tensor].name));
        n.transfer =
            make_flow(n, n.tensor, src, n.target, "trans of " + op_.tensors[n.tensor].name);
        // A trans into the memory it is already in moves it to another instance of that memory
        // (a neighbour's scratchpad) over the node's self-edge, where the graph has one.
        if (src == n.target) {
          const EdgeId self = graph_.edge_between(src, src);
          if (self.valid()) {
            n.transfer.path = {self};
            n.transfer.latency_s = path_latency(n.transfer.path);
          }
        }
      }
    }
    // A scope spreads like its first child; settle spread instances bottom-up.
    for (size_t i = p_.nodes.size(); i-- > 0;) {
      ProgramNode& n = p_.nodes[i];
      if (n.kind != MappingNodeKind::scope) continue;
      for (int c : n.children)
        if (p_.nodes[c].kind != MappingNodeKind::trans) {
          n.spread_instances = p_.nodes[c].spread_instances;
          n.spread_dynamic = p_.nodes[c].spread_dynamic;
          break;
        }
    }
  }

  const Mapping& mapping_;
  const Operator& op_;
  const ArchitectureGraph& graph_;
  bool template_mode_;
  MappingProgram p_;
  std::array<bool, kMaxDims> named_{};
  std::vector<uint32_t> consumed_, produced_;
};

}  // namespace

MappingProgram compile_mapping(const Mapping& mapping, const Operator& op,
                               const ArchitectureGraph& graph, bool template_mode) {
  return Compiler(mapping, op, graph, template_mode).run();
}

}  // namespace ts
