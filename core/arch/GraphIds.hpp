#pragma once
// Typed indices into an ArchitectureGraph's nodes and edges. Both were bare ints, and a node id
// passed where an edge id was meant compiled and read the wrong table; now it does not compile.
// -1 (the default) is "none".
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>

namespace ts {

struct NodeId {
  int32_t value = -1;

  constexpr bool valid() const { return value >= 0; }
  // Position in ArchitectureGraph::nodes and in tables kept per graph node.
  constexpr size_t index() const { return static_cast<size_t>(value); }
  friend constexpr auto operator<=>(NodeId, NodeId) = default;
};

struct EdgeId {
  int32_t value = -1;

  constexpr bool valid() const { return value >= 0; }
  // Position in ArchitectureGraph::edges and in tables kept per graph edge.
  constexpr size_t index() const { return static_cast<size_t>(value); }
  friend constexpr auto operator<=>(EdgeId, EdgeId) = default;
};

}  // namespace ts

template <>
struct std::hash<ts::NodeId> {
  size_t operator()(ts::NodeId id) const noexcept { return std::hash<int32_t>{}(id.value); }
};
template <>
struct std::hash<ts::EdgeId> {
  size_t operator()(ts::EdgeId id) const noexcept { return std::hash<int32_t>{}(id.value); }
};
