#include "tile/MappingLoader.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <mutex>

#include "common/CheckedArithmetic.hpp"
#include "common/YamlSource.hpp"

namespace ts {
namespace {

constexpr std::string_view node_types[] = {"tile", "op", "scope", "trans"};

std::optional<int64_t> positive(std::string_view s) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty() || v <= 0) return std::nullopt;
  return v;
}

class MappingReader {
 public:
  explicit MappingReader(const YamlSource& src) : src_(src) {}
  Mapping read();

 private:
  MappingNode read_node(const YAML::Node& n, bool after_sibling);
  void read_tile(MappingNode& node, const YAML::Node& n);
  void read_order(MappingNode& node, const YAML::Node& order);
  void read_keeps(MappingNode& node, const YAML::Node& n);
  void read_op(MappingNode& node, const YAML::Node& n);
  void read_scope(MappingNode& node, const YAML::Node& n);
  void read_trans(MappingNode& node, const YAML::Node& n, bool after_sibling);
  void read_children(MappingNode& node, const YAML::Node& n, const std::string& label);
  std::vector<DimFactor> read_factors(const YAML::Node& map, std::string_view what);
  Factor read_factor(const YAML::Node& v, const std::string& dim);

  const YamlSource& src_;
};

Mapping MappingReader::read() {
  src_.check_header("mapping");
  const YAML::Node& root = src_.root();
  src_.check_keys(root, {"version", "kind", "name", "description", "operator", "tree"},
                  "a mapping");
  Mapping m;
  m.source_file = src_.file();
  m.name = src_.text_or(root, "name", file_stem(src_.file()));
  m.description = src_.text_or(root, "description", "");
  m.op_name = src_.text_or(root, "operator", "");
  if (root["operator"].IsDefined()) m.op_where = src_.where(root["operator"]);
  m.root = read_node(src_.require(root, "tree", "a mapping"), false);
  return m;
}

MappingNode MappingReader::read_node(const YAML::Node& n, bool after_sibling) {
  src_.expect_map(n, "a mapping node");
  std::string_view type;  // points into node_types, which outlive the node
  for (auto entry : n) {
    if (!entry.first.IsScalar()) continue;  // reported by check_keys below
    auto known = std::find(std::begin(node_types), std::end(node_types), entry.first.Scalar());
    if (known == std::end(node_types)) continue;
    if (!type.empty())
      src_.fail(entry.first, "a node has both `" + std::string(type) + "` and `" +
                                 std::string(*known) +
                                 "`; expected exactly one of tile, op, scope, trans");
    type = *known;
  }
  if (type.empty()) src_.fail(n, "a mapping node needs one of the keys tile, op, scope, trans");
  MappingNode node;
  node.where = src_.where(n);
  if (type == "tile")
    read_tile(node, n);
  else if (type == "op")
    read_op(node, n);
  else if (type == "scope")
    read_scope(node, n);
  else
    read_trans(node, n, after_sibling);
  return node;
}

void MappingReader::read_tile(MappingNode& node, const YAML::Node& n) {
  node.kind = MappingNodeKind::tile;
  node.memory = src_.text(n["tile"], "tile");
  std::string label = "tile '" + node.memory + "'";
  src_.check_keys(
      n,
      {"tile", "temporal", "spatial", "order", "double_buffer", "streamed", "pipeline_restarts",
       "concurrent_loads", "footprint", "resident_parts", "buffers", "keep", "children"},
      label);
  if (n["temporal"].IsDefined()) node.temporal = read_factors(n["temporal"], "temporal");
  if (n["spatial"].IsDefined()) {
    node.spatial = read_factors(n["spatial"], "spatial");
    // The parts a tile spreads over instances are the product of its spatial factors
    // (analysis/TileAnalysis): it fits in 64 bits.
    int64_t parts = 1;
    std::string written;
    for (const DimFactor& f : node.spatial)
      if (!f.factor.free)
        multiply_checked(parts, written, {f.factor.full, f.where},
                         "the spatial factors of " + label);
  }
  if (n["order"].IsDefined()) read_order(node, n["order"]);
  if (const YAML::Node db = n["double_buffer"]; db.IsDefined() && src_.is_free(db))
    node.double_buffer_free = true;  // the mapper tries both
  else
    node.double_buffer = src_.boolean_or(n, "double_buffer", false);
  node.streamed = src_.boolean_or(n, "streamed", false);
  node.pipeline_restarts = src_.boolean_or(n, "pipeline_restarts", false);
  node.concurrent_loads = src_.boolean_or(n, "concurrent_loads", false);
  if (const YAML::Node f = n["footprint"]; f.IsDefined()) {
    const std::string value = src_.text(f, "footprint");
    if (value != "step" && value != "whole")
      src_.fail(f, "unknown footprint '" + value + "' for " + label +
                       "; expected whole (the buffers hold everything the tile covers) or step "
                       "(one iteration of its own temporal loops at a time)");
    node.footprint_step = value == "step";
  }
  if (const YAML::Node r = n["resident_parts"]; r.IsDefined())
    node.resident_parts = src_.positive_integer(r, "resident_parts");
  if (YAML::Node buffers = n["buffers"]; buffers.IsDefined()) {
    src_.expect_map(buffers, "`buffers`");
    for (const auto& entry : buffers) {
      std::string tensor = src_.text(entry.first, "buffers");
      for (const auto& p : node.placements)
        if (p.tensor == tensor)
          src_.fail(entry.first, "duplicate tensor '" + tensor + "' in `buffers`");
      node.placements.push_back({tensor, src_.text(entry.second, tensor), src_.where(entry.first)});
    }
  }
  read_keeps(node, n);
  read_children(node, n, label);
}

// A list reorders `temporal` (outermost first); `?` leaves the order to the mapper.
void MappingReader::read_order(MappingNode& node, const YAML::Node& order) {
  if (src_.is_free(order)) {
    node.order_free = true;
    return;
  }
  std::vector<std::string> temporal;
  for (const auto& f : node.temporal) temporal.push_back(f.dim);
  if (!order.IsSequence())
    src_.fail(order, "expected a list of the temporal dimensions (" + join_names(temporal) +
                         ") or `?` for `order`, got " + describe(order));
  std::vector<DimFactor> ordered;
  for (const auto& d : order) {
    std::string dim = src_.text(d, "order");
    auto it = std::find_if(node.temporal.begin(), node.temporal.end(),
                           [&](const DimFactor& f) { return f.dim == dim; });
    if (it == node.temporal.end())
      src_.fail(d, "`order` lists '" + dim + "', which has no temporal factor here (temporal: " +
                       join_names(temporal) + ")");
    for (const auto& o : ordered)
      if (o.dim == dim) src_.fail(d, "`order` lists '" + dim + "' twice");
    ordered.push_back(*it);
  }
  if (ordered.size() != node.temporal.size())
    src_.fail(order,
              "`order` must list every temporal dimension once (" + join_names(temporal) + ")");
  node.temporal = std::move(ordered);
}

// `keep: {A: true, B: false, C: "?"}`: tensor names are checked against the operator later
// (analysis/MappingProgram), like those of `buffers`.
void MappingReader::read_keeps(MappingNode& node, const YAML::Node& n) {
  const YAML::Node keep = n["keep"];
  if (!keep.IsDefined()) return;
  src_.expect_map(keep, "`keep` (a map from tensor to true, false or \"?\")");
  for (const auto& entry : keep) {
    std::string tensor = src_.text(entry.first, "keep");
    for (const auto& k : node.keeps)
      if (k.tensor == tensor) src_.fail(entry.first, "duplicate tensor '" + tensor + "' in `keep`");
    const YAML::Node& value = entry.second;
    KeepChoice choice = KeepChoice::free;
    if (!src_.is_free(value)) {
      const std::string text = value.IsScalar() ? value.Scalar() : std::string();
      if (text == "true" || text == "True")
        choice = KeepChoice::keep;
      else if (text == "false" || text == "False")
        choice = KeepChoice::refetch;
      else
        src_.fail(value,
                  "expected true (keep), false (refetch) or \"?\" (the mapper chooses) "
                  "for `keep: " +
                      tensor + "`, got " + describe(value));
    }
    node.keeps.push_back({tensor, choice, src_.where(entry.first)});
  }
}

void MappingReader::read_op(MappingNode& node, const YAML::Node& n) {
  node.kind = MappingNodeKind::op;
  node.compute = src_.text(n["op"], "op");
  src_.check_keys(n, {"op", "stage", "factors", "warps", "keep"}, "op '" + node.compute + "'");
  node.stage = src_.text_or(n, "stage", "");
  if (n["factors"].IsDefined()) node.op_factors = read_factors(n["factors"], "factors");
  if (n["warps"].IsDefined()) {
    node.op_warps = read_factors(n["warps"], "warps");
    // The op's warps are their product (analysis/MappingProgram): it fits in 64 bits.
    int64_t warps = 1;
    std::string written;
    for (const DimFactor& w : node.op_warps) {
      if (w.factor.free || w.factor.has_tail())
        throw InputError(w.where, "warps of `" + w.dim +
                                      "`: expected a positive integer (a "
                                      "count of warps), not a tail or `?`");
      multiply_checked(warps, written, {w.factor.full, w.where},
                       "the warps of op '" + node.compute + "'");
    }
  }
  read_keeps(node, n);
}

void MappingReader::read_scope(MappingNode& node, const YAML::Node& n) {
  node.kind = MappingNodeKind::scope;
  YAML::Node kind = n["scope"];
  std::string text = src_.text(kind, "scope");
  bool known = false;
  for (auto k :
       {ScopeKind::sequential, ScopeKind::parallel, ScopeKind::pipeline, ScopeKind::sharing})
    if (to_string(k) == text) {
      node.scope = k;
      known = true;
    }
  if (!known)
    src_.fail(kind,
              "unknown scope '" + text + "'; expected sequential, parallel, pipeline or sharing");
  std::string label = "scope " + text;
  src_.check_keys(n, {"scope", "children"}, label);
  read_children(node, n, label);
}

void MappingReader::read_trans(MappingNode& node, const YAML::Node& n, bool after_sibling) {
  node.kind = MappingNodeKind::trans;
  node.tensor = src_.text(n["trans"], "trans");
  std::string label = "trans '" + node.tensor + "'";
  src_.check_keys(n, {"trans", "to"}, label);
  node.target = src_.text(src_.require(n, "to", label), "to");
  if (!after_sibling)
    src_.fail(n,
              "`trans` moves the tensor produced by the node before it, and there is none; "
              "put it after the node that produces '" +
                  node.tensor + "'");
}

void MappingReader::read_children(MappingNode& node, const YAML::Node& n,
                                  const std::string& label) {
  YAML::Node children = n["children"];
  if (!children.IsDefined())
    src_.fail(n, label + " has no children; expected `children:` leading down to an `op` node");
  src_.expect_sequence(children, "`children`");
  if (children.size() == 0) src_.fail(children, "`children` of " + label + " is empty");
  bool after_sibling = false;
  for (const auto& c : children) {
    node.children.push_back(read_node(c, after_sibling));
    after_sibling = true;
  }
}

std::vector<DimFactor> MappingReader::read_factors(const YAML::Node& map, std::string_view what) {
  src_.expect_map(map, std::string(what));
  std::vector<DimFactor> factors;
  for (const auto& entry : map) {
    std::string dim = src_.text(entry.first, what);
    for (const auto& f : factors)
      if (f.dim == dim)
        src_.fail(entry.first, "duplicate dimension '" + dim + "' in `" + std::string(what) + "`");
    factors.push_back({dim, read_factor(entry.second, dim), src_.where(entry.first)});
  }
  return factors;
}

Factor MappingReader::read_factor(const YAML::Node& v, const std::string& dim) {
  if (src_.is_free(v)) return Factor{1, 1, true};
  std::string expected = "expected a factor for `" + dim +
                         "`: a positive integer, `F/T` (a tail, 1 <= T <= F) or `?`, got " +
                         describe(v);
  if (!v.IsScalar()) src_.fail(v, expected);
  std::string_view s = v.Scalar();
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) {
    if (auto n = positive(s)) return Factor::exact(*n);
    src_.fail(v, expected);
  }
  auto full = positive(s.substr(0, slash));
  auto tail = positive(s.substr(slash + 1));
  if (!full || !tail) src_.fail(v, expected);
  if (*tail > *full)
    src_.fail(v, "the tail of `" + dim + ": " + std::string(s) + "` exceeds its count; expected " +
                     "`F/T` with 1 <= T <= F");
  return Factor::with_tail(*full, *tail);
}

}  // namespace

Mapping parse_mapping(const std::string& text, const std::string& file_name) {
  return MappingReader(YamlSource::parse(text, file_name)).read();
}

Mapping load_mapping(const std::string& path) {
  return MappingReader(YamlSource::load(path)).read();
}

Mapping load_mapping_cached(const std::string& path) {
  struct Version {
    std::filesystem::file_time_type written;
    std::uintmax_t size = 0;
    Mapping mapping;
  };
  static std::mutex lock;
  static std::map<std::string, Version> cache;
  std::error_code error;
  const auto written = std::filesystem::last_write_time(path, error);
  const std::uintmax_t size = error ? 0 : std::filesystem::file_size(path, error);
  if (error) return load_mapping(path);  // says what is wrong with the path
  {
    const std::lock_guard<std::mutex> hold(lock);
    const auto it = cache.find(path);
    if (it != cache.end() && it->second.written == written && it->second.size == size)
      return it->second.mapping;
  }
  Mapping mapping = load_mapping(path);
  const std::lock_guard<std::mutex> hold(lock);
  cache[path] = Version{written, size, mapping};
  return mapping;
}

}  // namespace ts
