#pragma once
// A mapping tree resolved against one operator and one graph: names become indices, every
// implied transfer gets its path of edges, and factors sit in flat per-dimension arrays that the
// mapper can overwrite. The evaluation (TileAnalysis) reads only this, so it allocates nothing.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "tile/MappingTree.hpp"
#include "workload/Operator.hpp"

namespace ts {

constexpr int kMaxDims = 8;
constexpr int kMaxTensors = 16;
constexpr int kMaxLocalEdges = 12;

using DimMask = uint32_t;

// One tensor moving between a buffer and the buffer below it (or a compute unit).
struct Flow {
  int tensor = -1;
  NodeId from_memory;
  NodeId to_memory;
  std::vector<EdgeId> path;
  std::vector<int> local_edge_index;  // of each path edge in the owner's `local_edges`
  double latency_s = 0;               // sum of the path's edge latencies
  bool accumulate = false;            // an output whose partial sums are re-read when evicted
  // Dimensions a reduction below reduces this input over. A tile that holds only part of them
  // cannot finish the reduction in one pass: the input is read once for the statistics and once
  // more to apply them.
  DimMask reduced_dims = 0;
  // Per path edge: how many times longer the tensor's rows take than the edge's rate says, 1
  // unless the edge has an `alignment` that the rows (innermost dimension x element bytes)
  // miss (1 / unaligned_rate then).
  std::vector<double> row_slowdown;
};

// How a matmul stage's dimensions meet a compute unit's [m, n, k] granule.
enum class GranuleRole : uint8_t { none, m, n, k, batch, vector };

// One warp in every dimension: an op node made outside compile_mapping has no `warps:`.
constexpr std::array<int64_t, kMaxDims> one_warp_per_dim() {
  std::array<int64_t, kMaxDims> ones{};
  for (int64_t& x : ones) x = 1;
  return ones;
}

struct ProgramNode {
  MappingNodeKind kind = MappingNodeKind::tile;
  ScopeKind scope = ScopeKind::sequential;
  int parent = -1;
  std::vector<int> children;
  SourceLocation where;
  int depth = 0;
  DimMask used_dims = 0;  // dimensions of the stages under this node

  // tile
  NodeId memory;
  std::array<NodeId, kMaxTensors> buffer{};  // memory holding each tensor's buffer here, if any
  // Bytes held per byte of the tensor's own type: above 1 where a matmul unit keeps its partial
  // sums at a wider accumulator type (ComputeCapability::accumulator).
  std::array<double, kMaxTensors> buffer_scale{};
  // tile: whether each buffer keeps its tile across the loops above (MappingNode::keeps);
  // op: whether the unit holds each operand (and its result) across consecutive calls.
  std::array<KeepChoice, kMaxTensors> keep{};
  std::array<Factor, kMaxDims> temporal{};
  std::array<Factor, kMaxDims> spatial{};
  std::array<uint8_t, kMaxDims> order{};  // temporal dims, outermost first
  std::array<bool, kMaxDims> temporal_free{};
  std::array<bool, kMaxDims> spatial_free{};
  bool order_free = false;
  bool double_buffer = false;
  bool double_buffer_free = false;  // the mapper chooses double_buffer
  bool streamed = false;            // loads and stores overlap the children (MappingNode::streamed)
  bool footprint_step = false;      // buffers hold one step of its own loops (MappingNode)
  int64_t resident_parts = 1;       // parts an instance holds at once (MappingNode)
  bool pipeline_restarts = false;   // children fill and drain every iteration (MappingNode)
  bool concurrent_loads = false;    // a step waits for max(latency, transfer) (MappingNode)
  std::vector<Flow> loads;          // into this tile's buffers from the nearest buffer above
  std::vector<Flow> stores;         // out of this tile's buffers to the nearest buffer above
  std::vector<EdgeId> local_edges;  // graph edges used by loads and stores, deduplicated

  // op
  NodeId compute;
  int stage = -1;
  const ComputeCapability* capability = nullptr;
  // The stage's operations per point in the capability's basic operations (OperationPrice.hpp).
  double priced_ops_per_point = 1;
  // op: what one instance of the unit sustains of its capability: its ops_per_cycle, or less
  // under the board's power limit (ArchitectureGraph::sustained_ops_per_cycle).
  double sustained_ops_per_cycle = 0;
  // op: dimensions the stage finishes a reduction over without iterating them itself (a GEMM's
  // epilogue, a linear's bias after K): loops over them above the op end in one call, on their
  // last iteration, not one per iteration (docs/analysis.md, "Epilogues").
  DimMask epilogue_dims = 0;
  std::array<Factor, kMaxDims> op_factor{};
  std::array<bool, kMaxDims> op_free{};
  // Warps per dimension (MappingNode::op_warps; 1 where none is written) and their product.
  std::array<int64_t, kMaxDims> op_warps = one_warp_per_dim();
  int64_t warps = 1;
  std::array<GranuleRole, kMaxDims> role{};
  std::vector<Flow> operands;  // from buffers to the compute unit and back (streamed)

  // trans
  int tensor = -1;
  NodeId target;
  Flow transfer;

  // Instances that children of the parent's spatial loops are spread over.
  int64_t spread_instances = 1;
  bool spread_dynamic = false;  // those instances take parts as they free up (ArchNode)
  bool padded_tails = false;    // tile: its memory's parts work on whole extents (ArchNode)
};

struct MappingProgram {
  const Operator* op = nullptr;
  const ArchitectureGraph* graph = nullptr;
  std::string mapping_name;
  std::string mapping_file;
  int ndims = 0;
  int ntensors = 0;
  std::array<int64_t, kMaxDims> size{};
  std::array<DimMask, kMaxTensors> tensor_dims{};
  std::array<double, kMaxTensors> tensor_bytes{};  // whole tensor
  // A tensor's sliding-window axes (a convolution's input) and the dims they are made of: a
  // tile of it spans window_span of its extents along each, not their product.
  std::array<std::vector<WindowAxis>, kMaxTensors> windows{};
  std::array<DimMask, kMaxTensors> window_dims{};
  // The largest min_kernel_time of the units its ops run on, and that unit (docs/analysis.md,
  // "Kernel floor"): 0 and invalid when none has one.
  double min_kernel_s = 0;
  NodeId min_kernel_unit;
  std::array<double, kMaxTensors> element_bytes{};  // 0.5 for int4 (packed two per byte)
  std::vector<ProgramNode> nodes;  // preorder: a parent comes before its children; 0 is the root
  std::vector<NodeId> memories;    // memory nodes used by some buffer (for residency)
};

// Resolves a mapping for an operator on a graph. Throws InputError at the mapping's node for an
// unknown memory or compute node, an Op whose unit cannot run its class, a stage without an Op,
// or a transfer with no path in the graph. In template mode, dimensions the operator lacks are
// dropped and dimensions the tree never names get a free factor at the root.
MappingProgram compile_mapping(const Mapping& mapping, const Operator& op,
                               const ArchitectureGraph& graph, bool template_mode = false);

}  // namespace ts
