// Where the mapper's starting trees come from: the graph's own templates, or a generic chain.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "mapper/Mapper.hpp"
#include "tile/MappingLoader.hpp"

namespace ts {
namespace {

// A template may name matmul operands by role (A, B, C) where the operator names them otherwise
// (batched_gemm's second operand is W, since B is a dimension).
std::string role_tensor(const Operator& op, const std::string& name) {
  if (op.find_tensor(name) >= 0) return name;
  for (const auto& st : op.stages) {
    if (st.op_class != OpClass::matmul || st.inputs.size() < 2) continue;
    if (name == "A") return op.tensors[st.inputs[0]].name;
    if (name == "B") return op.tensors[st.inputs[1]].name;
    if (name == "C") return op.tensors[st.output].name;
  }
  return {};
}

// A unit for a stage whose class the template's unit does not run (the softmax of a fused
// attention, under a template for its matmul class): one that runs the class and that the
// op's memory reaches, so that each stage of a fused operator runs where its class can.
std::string unit_for_stage(const MappingNode& leaf, const Stage& stage, const std::string& memory,
                           const ArchitectureGraph* graph) {
  if (!graph) return leaf.compute;
  const std::optional<NodeId> unit = graph->find_node(leaf.compute);
  if (!unit || graph->node(*unit).capability(stage.op_class)) return leaf.compute;
  const std::optional<NodeId> from = graph->find_node(memory);
  for (NodeId other : graph->compute_nodes_for(stage.op_class))
    if (from && !graph->shortest_path(*from, other).empty()) return graph->node(other).name;
  return leaf.compute;
}

void instantiate(MappingNode& node, const Operator& op, const ArchitectureGraph* graph,
                 const std::string& memory) {
  if (node.kind == MappingNodeKind::tile) {
    std::vector<TensorPlacement> kept;
    for (auto pl : node.placements) {
      const bool result_role = pl.tensor == "C" && op.find_tensor("C") < 0;
      pl.tensor = role_tensor(op, pl.tensor);
      if (pl.tensor.empty()) continue;
      kept.push_back(pl);
      // A GEMM's epilogue (a linear's bias) computes on the result where it is: the fused
      // chain's outputs go where the template sends the product.
      if (pl.tensor == "C" || result_role)
        for (size_t t = 0; t < op.tensors.size(); ++t)
          if (op.is_output(static_cast<int>(t)) && op.tensors[t].name != pl.tensor &&
              op.find_tensor(pl.tensor) >= 0 && op.is_intermediate(op.find_tensor(pl.tensor)))
            kept.push_back(TensorPlacement{op.tensors[t].name, pl.memory, pl.where});
    }
    node.placements = kept;
  }
  std::vector<TensorKeep> keeps;  // `keep:` names tensors by role like `buffers`
  for (auto k : node.keeps) {
    k.tensor = role_tensor(op, k.tensor);
    if (!k.tensor.empty()) keeps.push_back(k);
  }
  node.keeps = keeps;
  if (node.kind == MappingNodeKind::op && node.stage.empty() && op.stages.size() > 1) {
    MappingNode scope;
    scope.kind = MappingNodeKind::scope;
    scope.scope = ScopeKind::sequential;
    scope.where = node.where;
    for (const auto& st : op.stages) {
      MappingNode leaf = node;
      leaf.stage = st.name;
      leaf.compute = unit_for_stage(node, st, memory, graph);
      if (leaf.compute != node.compute) leaf.op_warps.clear();  // the warps fed the other unit
      std::erase_if(leaf.keeps, [&](const TensorKeep& k) {      // only this stage's tensors
        const int t = op.find_tensor(k.tensor);
        return t != st.output &&
               std::find(st.inputs.begin(), st.inputs.end(), t) == st.inputs.end();
      });
      scope.children.push_back(leaf);
    }
    node = scope;
    return;
  }
  const std::string& here = node.kind == MappingNodeKind::tile ? node.memory : memory;
  for (auto& c : node.children) instantiate(c, op, graph, here);
}

DimFactor free_factor(const std::string& dim) { return DimFactor{dim, Factor{1, 1, true}, {}}; }

void collect_dims(const MappingNode& node, std::set<std::string>& names) {
  for (const auto* list : {&node.temporal, &node.spatial, &node.op_factors})
    for (const DimFactor& f : *list) names.insert(f.dim);
  for (const auto& c : node.children) collect_dims(c, names);
}

void rename_dims(MappingNode& node, const std::string& from, const std::string& to) {
  for (auto* list : {&node.temporal, &node.spatial, &node.op_factors, &node.op_warps})
    for (DimFactor& f : *list)
      if (f.dim == from) f.dim = to;
  for (auto& c : node.children) rename_dims(c, from, to);
}

// Free temporal factors of `dims` at every tile that loops over `along`.
void loop_with(MappingNode& node, const std::string& along, const std::vector<std::string>& dims) {
  if (node.kind == MappingNodeKind::tile &&
      std::any_of(node.temporal.begin(), node.temporal.end(),
                  [&](const DimFactor& f) { return f.dim == along; }))
    for (const std::string& d : dims) node.temporal.push_back(free_factor(d));
  for (auto& c : node.children) loop_with(c, along, dims);
}

void spread_dims(MappingNode& node, const std::vector<std::string>& dims) {
  if (node.kind == MappingNodeKind::tile && !node.spatial.empty())
    for (const std::string& d : dims) node.spatial.push_back(free_factor(d));
  for (auto& c : node.children) spread_dims(c, dims);
}

// The attention and grouped-GEMM kernels spread their batch dimensions over the instances (a
// flash-decoding grid is sequences x KV heads x splits; a grouped GEMM's, experts x tiles). A
// template written for a GEMM names M, N and K only, and leaves every other dimension a temporal
// loop at its root: here the dimensions of the first matmul stage's output that the template
// does not name become free spatial factors wherever it spreads a tile. Other operator types
// keep their templates as written.
void spread_batch_dims(Mapping& m, const Operator& op) {
  if (op.type != OperatorType::decode_attention && op.type != OperatorType::prefill_attention &&
      op.type != OperatorType::grouped_gemm && op.type != OperatorType::quant_gemm)
    return;
  const auto first = std::find_if(op.stages.begin(), op.stages.end(),
                                  [](const Stage& st) { return st.op_class == OpClass::matmul; });
  if (first == op.stages.end() || first->inputs.size() < 2) return;
  // The template's M, N and K name the first matmul stage's roles where the operator has no
  // dimension of that name: M the first dimension of the output and A only, N of the output and
  // B only, K the first one the output lacks (decode attention: H, L and D).
  const auto& out = op.tensors[static_cast<size_t>(first->output)].dims;
  const auto& a = op.tensors[static_cast<size_t>(first->inputs[0])].dims;
  const auto& b = op.tensors[static_cast<size_t>(first->inputs[1])].dims;
  auto has = [](const std::vector<int>& v, int d) {
    return std::find(v.begin(), v.end(), d) != v.end();
  };
  std::string role[3];
  for (int d : first->dims) {
    const int r = !has(out, d) ? 2 : has(a, d) && !has(b, d) ? 0 : has(b, d) && !has(a, d) ? 1 : -1;
    if (r >= 0 && role[r].empty()) role[r] = op.dims[static_cast<size_t>(d)].name;
  }
  // A template name the operator also has keeps naming that dimension, unless the dimension
  // plays another role here (a prefill attention's context stage mapped alone: its keys N are
  // the reduced K, so the template's N must become its D). Renamed through placeholders, so
  // that K -> N does not then catch the template's own N.
  const char* kTemplateNames[3] = {"M", "N", "K"};
  auto plays_other_role = [&](int r) {
    for (int o = 0; o < 3; ++o)
      if (o != r && role[o] == kTemplateNames[r]) return true;
    return false;
  };
  bool renamed[3] = {false, false, false};
  for (int r = 0; r < 3; ++r)
    if (!role[r].empty() && (op.find_dim(kTemplateNames[r]) < 0 || plays_other_role(r))) {
      rename_dims(m.root, kTemplateNames[r], std::string("\x01") + kTemplateNames[r]);
      renamed[r] = true;
    }
  for (int r = 0; r < 3; ++r)
    if (renamed[r]) rename_dims(m.root, std::string("\x01") + kTemplateNames[r], role[r]);
  std::set<std::string> named;
  collect_dims(m.root, named);
  // A reduction split over two dimensions (quant_gemm's K as groups KG of KI): the template's K
  // loops name the first; the others loop wherever it does, so that partial sums stay on chip
  // across them instead of going out to memory at the root.
  std::vector<std::string> reduced;
  for (int d : first->dims)
    if (!has(out, d) && !named.count(op.dims[static_cast<size_t>(d)].name))
      reduced.push_back(op.dims[static_cast<size_t>(d)].name);
  if (!role[2].empty() && op.type == OperatorType::quant_gemm) loop_with(m.root, role[2], reduced);
  std::vector<std::string> batch;
  for (int d : out)
    if (!named.count(op.dims[static_cast<size_t>(d)].name))
      batch.push_back(op.dims[static_cast<size_t>(d)].name);
  spread_dims(m.root, batch);
}

// A vector template names rows R and columns C; a one-stage vector operator with other
// dimensions (rope's T, H, D) takes C as its output's contiguous dimension (what the unit's granule
// vectorises), R as the output's first other dimension, and its remaining output dimensions
// become free spatial factors wherever the template spreads R, so that rows of every kind are
// dealt out over the instances instead of looping on one.
void name_vector_dims(Mapping& m, const Operator& op) {
  if (op.stages.size() != 1 || op.stages.front().op_class == OpClass::matmul) return;
  if (op.find_dim("R") >= 0 || op.find_dim("C") >= 0) return;
  const auto& out = op.tensors[static_cast<size_t>(op.stages.front().output)].dims;
  if (out.empty()) return;
  const std::string cols = op.dims[static_cast<size_t>(out.back())].name;
  std::vector<std::string> rows;
  for (int d : out)
    if (d != out.back()) rows.push_back(op.dims[static_cast<size_t>(d)].name);
  std::set<std::string> named;
  collect_dims(m.root, named);
  if (!named.count("R") || !named.count("C")) return;
  rename_dims(m.root, "C", cols);
  if (rows.empty()) return;
  rename_dims(m.root, "R", rows.front());
  spread_dims(m.root, std::vector<std::string>(rows.begin() + 1, rows.end()));
}

// A lookup reads one entry of its table at every point, which one the key says: the
// dimensions only the table indexes (not the keys, not the output) are gathered, never looped
// over, so each op takes them whole and every tile holds whole tables. A table's entry sums
// every activation of its key's group, so the stage that builds it takes the group whole too.
void take_gathered_whole(MappingNode& node, const Operator& op) {
  for (auto& c : node.children) take_gathered_whole(c, op);
  if (node.kind != MappingNodeKind::op) return;
  const Stage* st = op.stages.size() == 1 ? &op.stages.front() : nullptr;
  for (const Stage& s : op.stages)
    if (s.name == node.stage) st = &s;
  if (st == nullptr || (op.type != OperatorType::lut_gemm && st->op_class != OpClass::lookup))
    return;
  for (int d : gathered_dims(op, *st)) {
    const Dimension& dim = op.dims[static_cast<size_t>(d)];
    std::erase_if(node.op_factors, [&](const DimFactor& f) { return f.dim == dim.name; });
    node.op_factors.push_back({dim.name, Factor::exact(dim.size), {}});
  }
}

}  // namespace

Mapping instantiate_template(const Mapping& tmpl, const Operator& op,
                             const ArchitectureGraph* graph) {
  Mapping m = tmpl;
  instantiate(m.root, op, graph, {});
  spread_batch_dims(m, op);
  name_vector_dims(m, op);
  take_gathered_whole(m.root, op);
  return m;
}

namespace {

// Whether every op leaf of a template that runs the operator's primary class sits on a unit that
// declares that class at the operator's data type, or says what it runs it as (fp32 GEMMs are not
// run on tensor cores that declare fp16 alone, while TF32 is off), and there is one such leaf.
bool runs_its_type(const MappingNode& node, const Operator& op, const ArchitectureGraph& graph,
                   OpClass cls, DataType dtype, bool& seen) {
  if (node.kind == MappingNodeKind::op) {
    const Stage* st = op.stages.size() == 1 ? &op.stages.front() : nullptr;
    for (const Stage& s : op.stages)
      if (s.name == node.stage) st = &s;
    if (st != nullptr && st->op_class == cls) {
      seen = true;
      const std::optional<NodeId> unit = graph.find_node(node.compute);
      if (!unit) return false;
      const ArchNode& n = graph.node(*unit);
      return n.declared_capability(cls, dtype) != nullptr ||
             n.declared_capability(cls, n.runs_as_type(dtype)) != nullptr;
    }
    return true;
  }
  for (const MappingNode& c : node.children)
    if (!runs_its_type(c, op, graph, cls, dtype, seen)) return false;
  return true;
}

const std::vector<std::string>* menu_paths(const Operator& op, const ArchitectureGraph& graph) {
  // A batched GEMM of one batch is a GEMM to the libraries: cuBLAS hands a strided-batched call
  // of batchCount 1 to its GEMM heuristics (the measured bmm kernels of B = 1 are its GEMM
  // kernels, split-K included; docs/gpus.md).
  if (op.type == OperatorType::batched_gemm && op.find_dim("B") >= 0 &&
      op.dims[static_cast<size_t>(op.find_dim("B"))].size == 1)
    if (auto it = graph.operator_templates.find("gemm"); it != graph.operator_templates.end())
      return &it->second;
  if (auto it = graph.operator_templates.find(std::string(to_string(op.type)));
      it != graph.operator_templates.end())
    return &it->second;
  // A linear layer is the library's GEMM with the bias as its epilogue (PyTorch's addmm).
  if (op.type == OperatorType::linear)
    if (auto it = graph.operator_templates.find("gemm"); it != graph.operator_templates.end())
      return &it->second;
  if (auto it = graph.mapping_templates.find(op.primary_class());
      it != graph.mapping_templates.end())
    return &it->second;
  return nullptr;
}

}  // namespace

std::vector<Mapping> template_menu(const Operator& op, const ArchitectureGraph& graph) {
  const std::vector<std::string>* paths = menu_paths(op, graph);
  if (paths == nullptr || paths->empty()) return {default_template(op, graph)};
  std::vector<Mapping> all, fitting;
  for (const std::string& path : *paths) {
    all.push_back(instantiate_template(load_mapping_cached(path), op, &graph));
    bool seen = false;
    if (runs_its_type(all.back().root, op, graph, op.primary_class(), op.primary_dtype(), seen) &&
        seen)
      fitting.push_back(all.back());
  }
  // A menu none of whose kernels runs the type keeps them all, as a single template does (the
  // unit then runs the class at the rate it declares for another type).
  return fitting.empty() ? all : fitting;
}

Mapping default_template(const Operator& op, const ArchitectureGraph& graph) {
  const OpClass cls = op.primary_class();
  if (const std::vector<std::string>* paths = menu_paths(op, graph); paths && !paths->empty()) {
    std::vector<Mapping> menu = template_menu(op, graph);
    return std::move(menu.front());
  }

  // Generic: tiles along the shortest path from the largest memory to a unit that runs the class.
  auto units = graph.compute_nodes_for(cls);
  if (units.empty())
    throw InputError(op.where,
                     fmt::format("graph '{}' ({}) has no compute node that runs {}, which operator "
                                 "'{}' needs",
                                 graph.name, graph.source_file, to_string(cls), op.name));
  const NodeId unit = units.front();
  NodeId root;
  std::vector<EdgeId> best_path;
  for (NodeId i : graph.node_ids()) {
    const ArchNode& n = graph.node(i);
    if (n.kind != NodeKind::memory) continue;
    auto path = graph.shortest_path(i, unit);
    if (path.empty()) continue;
    if (!root.valid() || n.capacity_bytes > graph.node(root).capacity_bytes) {
      root = i;
      best_path = path;
    }
  }
  if (!root.valid())
    throw InputError(graph.node(unit).where,
                     fmt::format("graph '{}': no memory reaches compute node '{}', which "
                                 "operator '{}' needs for {}",
                                 graph.name, graph.node(unit).name, op.name, to_string(cls)));
  std::vector<NodeId> levels{root};
  for (EdgeId e : best_path) {
    const NodeId to = graph.edge(e).to;
    if (graph.node(to).kind == NodeKind::memory) levels.push_back(to);
  }
  const ComputeCapability* cap = graph.node(unit).capability(cls);
  // The stage of the primary class shapes the tree: its output is spread over the instances
  // (a lookup GEMM's columns, not the tables its first stage builds).
  const Stage& first = *std::find_if(op.stages.begin(), op.stages.end(),
                                     [&](const Stage& st) { return st.op_class == cls; });
  const auto& out = op.tensors[first.output];

  auto tile_at = [&](NodeId level, size_t index) {
    MappingNode t;
    t.kind = MappingNodeKind::tile;
    t.memory = graph.node(level).name;
    t.double_buffer = index > 0;
    t.order_free = index == 0;
    for (const auto& d : op.dims) t.temporal.push_back(free_factor(d.name));
    const int64_t here = graph.node(level).instances;
    const int64_t below = index + 1 < levels.size() ? graph.node(levels[index + 1]).instances
                                                    : graph.node(unit).instances;
    if (below > here)
      for (int d : out.dims) t.spatial.push_back(free_factor(op.dims[d].name));
    return t;
  };
  MappingNode leaf;
  leaf.kind = MappingNodeKind::op;
  leaf.compute = graph.node(unit).name;
  if (cls == OpClass::matmul && first.inputs.size() >= 2) {
    const auto& a = op.tensors[first.inputs[0]].dims;
    const auto& b = op.tensors[first.inputs[1]].dims;
    auto has = [](const std::vector<int>& v, int d) {
      return std::find(v.begin(), v.end(), d) != v.end();
    };
    bool m = false, n = false, k = false;
    for (int d : first.dims) {
      int64_t g = 1;
      if (!m && has(out.dims, d) && has(a, d) && !has(b, d))
        g = cap->granule[0], m = true;
      else if (!n && has(out.dims, d) && has(b, d) && !has(a, d))
        g = cap->granule[1], n = true;
      else if (!k && !has(out.dims, d))
        g = cap->granule[2], k = true;
      if (g > 1)
        leaf.op_factors.push_back(
            {op.dims[d].name, Factor::exact(std::min(g, op.dims[d].size)), {}});
    }
  } else if (!out.dims.empty()) {
    const int d = out.dims.back();
    leaf.op_factors.push_back(
        {op.dims[d].name, Factor::exact(std::min(cap->granule[0], op.dims[d].size)), {}});
  }
  MappingNode root_node = tile_at(levels[0], 0);
  MappingNode* cursor = &root_node;
  for (size_t i = 1; i < levels.size(); ++i) {
    cursor->children.push_back(tile_at(levels[i], i));
    cursor = &cursor->children.back();
  }
  cursor->children.push_back(leaf);
  Mapping m;
  m.name = fmt::format("generic-{}-{}", to_string(cls), graph.name);
  m.source_file = "<generic template>";
  m.root = root_node;
  return instantiate_template(m, op, &graph);
}

}  // namespace ts
