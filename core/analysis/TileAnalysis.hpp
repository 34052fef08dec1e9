#pragma once
// The graph-guided tree analysis: footprints, residency, traffic per edge, latency and what
// bounds it, in closed form over loop bands. Tails are evaluated once per distinct tail case.
// `evaluate` is the hot path of the mapper: it allocates nothing once `prepare` has run.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "analysis/MappingProgram.hpp"

namespace ts {

enum class EvaluationFailure { none, coverage, scope_mismatch, overflow };

// Why a mapping cannot run, as the analysis found it (throw_if_invalid says it at the node).
struct MappingFailure {
  EvaluationFailure kind = EvaluationFailure::none;
  int node = -1;      // program node at fault
  int dim = -1;       // coverage, scope_mismatch: the dimension
  NodeId memory;      // overflow: the memory
  double bytes = 0;   // overflow: what the memory would hold, per instance
  double extent = 0;  // coverage: the extent the factors reach along `dim`
};

// What bounds a node's time: an edge (its bandwidth or latency), a compute node, or nothing yet.
// A kind beside a typed id, copied by value on the hot path: no packing, no allocation.
struct BoundBy {
  enum class Kind : uint8_t { none, edge, compute, kernel_floor };

  static BoundBy edge(EdgeId id) { return BoundBy(Kind::edge, id.value); }
  static BoundBy compute(NodeId node) { return BoundBy(Kind::compute, node.value); }
  // The unit's min_kernel_time, above the operator's own time.
  static BoundBy kernel_floor(NodeId node) { return BoundBy(Kind::kernel_floor, node.value); }
  bool is_kernel_floor() const { return kind_ == Kind::kernel_floor; }
  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::none; }
  bool is_edge() const { return kind_ == Kind::edge; }
  bool is_compute() const { return kind_ == Kind::compute; }
  EdgeId edge_id() const { return is_edge() ? EdgeId{id_} : EdgeId{}; }
  NodeId compute_node() const { return is_compute() || is_kernel_floor() ? NodeId{id_} : NodeId{}; }

  BoundBy() = default;
  bool operator==(const BoundBy&) const = default;

 private:
  BoundBy(Kind kind, int32_t id) : kind_(kind), id_(id) {}
  Kind kind_ = Kind::none;
  int32_t id_ = -1;  // an EdgeId's or a NodeId's value, as kind_ says
};

struct NodeScratch {
  std::array<int64_t, kMaxDims> ext_full{};
  std::array<int64_t, kMaxDims> ext_tail{};
  std::array<double, kMaxDims> tiles_above{};  // distinct tiles of this level along each dim
  DimMask tail_dims = 0;                       // dims whose tail extent differs
  int64_t par = 1;                             // instances of this level busy at once, chip-wide
  int64_t child_instances = 1;  // child instances available per instance of this level
  int64_t spread = 1;           // spatial children per iteration (full case)
  int64_t waves = 1;
  // Under dynamic dispatch: the spatial parts of all iterations above (0 under lockstep).
  double pooled_parts = 0;
  std::array<double, kMaxTensors> load_fraction{};   // per flow of `loads`
  std::array<double, kMaxTensors> store_fraction{};  // per flow of `stores`
};

// What the explain view shows per node, for the case with no tails where there is one.
struct NodeReport {
  double time_s = 0;
  double load_s = 0, compute_s = 0, store_s = 0;  // per iteration, steady state
  double iterations = 0;
  int64_t waves = 1;
  BoundBy bound;
  bool evaluated = false;
};

// The analysis's working memory for one program, reused across evaluations (the mapper's hot
// path allocates nothing once `prepare` has run). Faces read the AnalysisResult made from it
// (analysis/AnalysisResult.hpp), not this.
struct AnalysisScratch {
  MappingFailure failure;

  double device_s = std::numeric_limits<double>::infinity();
  BoundBy bound;
  std::vector<NodeScratch> nodes;
  std::vector<NodeReport> reports;
  std::vector<double> edge_bytes;  // per graph edge (EdgeId::index()), whole operator
  // per graph node (NodeId::index()), whole operator: partial sums a memory reads back to add
  // the next one to (`reduction: memory` on an edge into it)
  std::vector<double> read_back_bytes;
  std::vector<double> memory_usage;  // per program memory, bytes per instance
  // Per (program node, tensor), at node * ntensors + tensor: the bytes of the buffer a tile
  // places for the tensor as the capacity check counts them (granule padding for the tile that
  // feeds a unit, both copies of a double buffer, the buffer's scale, the parts resident
  // together); 0 where the node places none. What --explain, the GUI and the report show.
  std::vector<double> buffer_bytes;
  // traffic_floor's figure and the edge that sets it, for evaluate_after_floor.
  double floor_s = 0;
  BoundBy floor_bound;
  bool valid() const { return failure.kind == EvaluationFailure::none; }

  // memo of tile times per (node, tail mode)
  struct Memo {
    double time = 0, load = 0, compute = 0, store = 0, iterations = 0;
    double steady = 0;  // time without this tile's own fill and drain
    BoundBy bound;
    uint32_t stamp = 0;
  };
  std::vector<Memo> memo;
  uint32_t stamp = 0;
  int mode_stride = 1;
  std::vector<double> memory_usage_scratch;  // per (node, program memory)
  std::vector<int> memory_index;             // graph node (NodeId::index()) -> program memory, -1
  // The floors' resources, listed once: shared edges, then each memory's ports and edges.
  std::vector<EdgeId> shared_edges;
  struct Port {
    NodeId memory;
    // All instances together (ArchNode::port_total_bytes_per_s); 0: no such port.
    double bytes_per_s = 0;  // combined
    double read_bytes_per_s = 0, write_bytes_per_s = 0;
    std::vector<EdgeId> edges;      // into and out of the memory (a self-edge once)
    std::vector<EdgeId> out_edges;  // out of it: what its read port carries
    std::vector<EdgeId> in_edges;   // into it: what its write port carries
  };
  std::vector<Port> ports;
  // Per program node: whether a memory its flows meet limits a port (apply_ports' work).
  std::vector<uint8_t> meets_port;
};

void prepare(const MappingProgram& program, AnalysisScratch& eval);
// Returns the device time in seconds, or +infinity when the mapping is invalid (see failure).
double evaluate(const MappingProgram& program, AnalysisScratch& eval);
// The first step of `evaluate`, for the mapper's pruning: extents and capacity checked first
// (+infinity and the failure where the mapping is invalid), then the operator-wide bytes through
// each shared edge and memory port over its bandwidth (the floor `evaluate` raises its time to),
// with no timing of the tree. Leaves `eval` holding that traffic and the floor
// (AnalysisScratch::floor_s), not an evaluation.
double traffic_floor(const MappingProgram& program, AnalysisScratch& eval);
// The rest of `evaluate` after traffic_floor on the same program and AnalysisScratch. `evaluate` is
// these two steps in this order, so the pair returns exactly what it does (the same time, bound,
// failure and per-edge bytes; tests/unit/test_evaluation_pipeline.cpp checks it on sampled
// mappings of every bundled graph).
double evaluate_after_floor(const MappingProgram& program, AnalysisScratch& eval);

// Throws InputError at the mapping node that makes an evaluation invalid.
void throw_if_invalid(const MappingProgram& program, const AnalysisScratch& eval);

}  // namespace ts
