#pragma once
// A chip as a directed graph: memories and compute units are nodes, one-way links are edges.
// Everything is resolved to SI base units at load time (bytes, bytes/s, Hz, seconds).
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arch/ComputeCostHook.h"
#include "arch/GraphIds.hpp"
#include "common/DataType.hpp"
#include "common/InputError.hpp"
#include "common/OperationKind.hpp"

namespace ts {

enum class NodeKind { memory, compute };

// What one granule step (one mma of the capability's granule) costs a warp to issue, and what the
// unit's schedulers can issue; see IssueRate.hpp for the rate that follows.
struct IssueLimit {
  // Per step of one warp, besides fragment loads: the mma and its share of the loop's addressing
  // and barriers.
  double instructions_per_step = 0;
  // Per operand fragment loaded into registers (A: granule m x k; B: granule k x n). A warp tile
  // of wm x wn loads gn / wn A fragments and gm / wm B fragments per step.
  double instructions_per_fragment = 0;
  double issue_per_cycle = 0;  // instructions the unit's schedulers issue per cycle, all warps
  double latency_cycles = 0;   // cycles from one warp's step to its next, dependent one
};

// Whom a memory's port figures (`bandwidth`, `read_bandwidth`, `write_bandwidth`) belong to.
enum class PortScope {
  shared,        // one figure for all instances together (an HBM stack's, a shared cache's)
  per_instance,  // each instance has the figure to itself (a PE's own scratchpad port)
};

// What one instance of a compute unit does per cycle for one operation class and data type.
struct ComputeCapability {
  OpClass op_class = OpClass::matmul;
  DataType dtype = DataType::fp16;
  double ops_per_cycle = 0;  // per instance; matmul counts multiply-accumulates
  // Native block the unit works in. matmul: {m, n, k}; vector classes: {elements, 1, 1}.
  // Work is padded up to whole granules.
  std::array<int64_t, 3> granule{1, 1, 1};
  // matmul: the type partial sums are kept in, in the memory the unit writes into directly (a
  // cube's L0C, a core's registers); unset: the operator's own type. An fp16 GEMM on a cube
  // that accumulates in fp32 needs twice the bytes for C there.
  std::optional<DataType> accumulator;
  // matmul on a unit fed by warps (a GPU SM's tensor cores): the rate reached depends on the
  // warps and warp tile of the mapping's op (`warps:`), up to ops_per_cycle (docs/analysis.md,
  // "Issue-limited compute"). Unset: ops_per_cycle is the rate, whatever the tile.
  std::optional<IssueLimit> issue;
  // What one operation of each kind costs, in this unit's basic operations (the ones
  // ops_per_cycle counts): {1, 15, 20, 18} says an exp takes 15 slots. Entry `basic` is 1; every
  // entry is at least 1, so that pricing by kind never makes a stage cheaper than the mapper's
  // compute floor assumes. Unset: every operation costs 1 (docs/analysis.md, "Operation costs").
  std::optional<OperationCounts> operation_cost;
  // The chip's energy for one of these operations as the unit runs them at its rate (the lane's
  // arithmetic with its share of register, issue and clock power), in joules; 0: not given. With
  // the graph's `power`, it caps the rate the unit sustains (ArchitectureGraph::power_w).
  double energy_per_op_j = 0;
  // The vendor's figure for the same rate where ops_per_cycle is a fitted or derated one (a fit
  // of `node:NAME.efficiency` records the figure it started from); 0: ops_per_cycle is the
  // datasheet's. Predictions never use it: MFU and HFU are fractions of the datasheet peak, as
  // every paper quotes them, not of the rate the fit found the unit reaches.
  double datasheet_ops_per_cycle = 0;
  SourceLocation where;

  double datasheet_rate_per_cycle() const {
    return datasheet_ops_per_cycle > 0 ? datasheet_ops_per_cycle : ops_per_cycle;
  }
};

// What accesses of a memory cost, as Timeloop's energy reference tables give them
// (docs/energy.md): one action moves a block of `block_words` words (a wide SRAM reads a row at
// a time), in joules per action and per instance. A read serves the level below (or the unit), a
// write fills the memory from the level above, an update writes a word the level below computed
// (a partial sum) into it.
struct MemoryEnergy {
  double read_j = 0;
  double write_j = 0;
  double update_j = 0;
  int64_t block_words = 1;
};

struct ArchNode {
  std::string name;
  NodeKind kind = NodeKind::memory;
  int64_t instances = 1;
  double clock_hz = 0;  // the graph clock unless the node overrides it
  // Energy and area (issue 39; none where the file gives none: energy is then unknown, never a
  // made-up default). Leakage is per cycle of the node's clock and per instance; area per
  // instance, in square metres.
  std::optional<double> leak_j_per_cycle;
  std::optional<double> area_m2;
  // memory
  std::optional<MemoryEnergy> energy;
  double capacity_bytes = 0;
  int word_bytes = 1;
  double read_port_bytes_per_s = 0;   // 0: no port limit beyond the edges
  double write_port_bytes_per_s = 0;  // 0: no port limit beyond the edges
  // Reads and writes together (an HBM stack's one figure); 0: none. Concurrent loads and stores
  // through this memory share it, which separate read and write ports cannot express.
  double port_bytes_per_s = 0;
  PortScope port_scope = PortScope::shared;
  // A port figure over all instances together: the figure itself when shared, x instances when
  // each instance has its own. The operator-wide floors use it.
  double port_total_bytes_per_s(double figure) const {
    return port_scope == PortScope::per_instance ? figure * static_cast<double>(instances) : figure;
  }
  // What one of `users` concurrent users of the memory gets of a port figure: a users-th of the
  // total, but never more than the one instance it uses has (per_instance).
  double port_share_bytes_per_s(double figure, double users) const;
  // Instances take the next part of a spatial loop as soon as they are free (a GPU's block
  // scheduler hands a kernel's thread blocks to SMs this way): the parts of every iteration of
  // the tiles above form one pool, and waves are counted over that pool, not per iteration.
  // False (`lockstep`): each iteration's parts run in waves of their own.
  bool dynamic_dispatch = false;
  // A part on these instances works on its whole extent even where the problem ends inside it
  // (a GPU thread block: its warps compute whole fragments of zero-filled tails and mask their
  // stores). Only what the part loads in is the tail's size. False (`exact`): tails cost their
  // extent.
  bool padded_tails = false;
  // compute
  std::vector<ComputeCapability> capabilities;
  // A plugin's function that times a call where the graph's figures are not enough
  // (arch/ComputeCostHook.h): its name as the file gives it (empty: none) and, once the graph is
  // read, the function. A call then takes the larger of the hook's time and the figures' time.
  std::string cost_hook;
  TilescopeComputeSeconds cost_hook_seconds = nullptr;
  const void* cost_hook_user = nullptr;
  // The shortest device time of a kernel on this unit, whatever its work: the grid's launch on
  // the device, the first wave's start and the last one's retirement (docs/analysis.md,
  // "Kernel floor"). 0: none.
  double min_kernel_time_s = 0;
  // Data types the unit has no operation of, run as one it has (`runs_as: {int16: fp16}`): an
  // explicit statement of the graph, since an operator of a type the unit lacks is otherwise an
  // error, not an answer at another type's rate. Pairs of (the workload's type, the unit's).
  std::vector<std::pair<DataType, DataType>> runs_as;
  SourceLocation where;

  // The type a unit runs `dtype` as: its `runs_as` target, or the type itself.
  DataType runs_as_type(DataType dtype) const;
  // The unit's types for a class, as text ("fp16, bf16"), for errors that name them.
  std::string operation_types_text(OpClass cls) const;
  // The capability that runs a class: the one declared for it (at the `runs_as` type where the
  // graph gives one) or, for lookup on a unit that declares none, its elementwise one (a table
  // read from its local memory and an add per lane).
  const ComputeCapability* capability(OpClass cls, DataType dtype) const;
  const ComputeCapability* capability(OpClass cls) const;  // any data type
  // The capability written for exactly this class and type, without the lookup fallback.
  const ComputeCapability* declared_capability(OpClass cls, DataType dtype) const;
};

enum class EdgeSharing {
  per_instance,  // every instance pair has the bandwidth to itself
  shared,        // one pool shared by all instances that use the edge at once
};

// How partial sums of one output tile, produced at once by instances that a spatial loop spreads
// over a reduction dimension, reach the memory at the edge's end.
enum class EdgeReduction {
  none,     // each partial is stored on its own, as any store (no reduction hardware)
  network,  // summed on the way (in-array forwarding, an adder tree): one store per group
  memory,   // summed in the memory: each partial arrives, R-1 of R read the previous partial
};

// The shape of a reduction network: how many hops the last partial waits for.
enum class ReductionTopology {
  chain,  // partials forwarded neighbour to neighbour: R-1 hops
  tree,   // an adder tree: ceil(log2 R) levels
};

// Vector transfers over an edge need rows (a tensor's innermost dimension in bytes) that are
// multiples of `bytes`; other rows move element by element, at `unaligned_rate` times the edge's
// rate (a 16-byte load against a 2-byte one: 1/8). docs/analysis.md, "Row alignment".
struct RowAlignment {
  int64_t bytes = 16;
  double unaligned_rate = 1;
};

struct ArchEdge {
  NodeId from;
  NodeId to;
  double bandwidth_bytes_per_s = 0;  // per instance, or of the pool when shared
  double latency_cycles = 0;         // in the clock of the source node
  EdgeSharing sharing = EdgeSharing::per_instance;
  // One read feeds every destination instance that needs the same data at once (`multicast`;
  // `broadcast` is its older spelling).
  bool multicast = false;
  EdgeReduction reduction = EdgeReduction::none;
  // reduction: network only
  ReductionTopology reduction_topology = ReductionTopology::chain;
  double reduction_latency_cycles = 0;         // per hop, in the clock of the source node
  double reduction_bandwidth_bytes_per_s = 0;  // of the reduced stream; 0: the edge's bandwidth
  std::optional<RowAlignment> alignment;       // unset: every row moves at the edge's rate
  // What moving a byte across the edge costs (a network-on-chip hop, a die-to-die link, NVLink,
  // PCIe), in joules; none: not given.
  std::optional<double> energy_per_byte_j;
  SourceLocation where;

  // Hops the last of `partials` partial sums crosses in the reduction network (0 without one).
  int64_t reduction_hops(int64_t partials) const;
};

class ArchitectureGraph {
 public:
  std::string name;
  std::string description;
  std::string source_file;
  double clock_hz = 1e9;
  double launch_overhead_s = 0;  // host-side cost of starting an operator, apart from device time
  // The board's power limit in watts (`power: 70W`); 0: none. A unit whose operations say their
  // energy (`energy_per_op`) runs at most power / (instances x clock x energy) of them a cycle
  // per instance: a 70 W card cannot feed all its lanes at the boost clock, and its firmware
  // lowers the clock until it can (docs/analysis.md, "Power limit").
  double power_w = 0;
  // The same cost for one operator type where it differs (`launch_overheads: {linear: 45us}`): a
  // framework dispatches some operators through more host work, or more kernels, than others
  // (PyTorch's linear is addmm: the bias copied out, then the GEMM). Keyed by the type's name.
  std::map<std::string, double> launch_overheads;
  std::vector<ArchNode> nodes;
  std::vector<ArchEdge> edges;
  // Default mapping templates per operation class, as paths resolved against the graph file. A
  // class may name several (a kernel menu: a library's kernels for it, of which the mapper takes
  // the one it predicts fastest among those whose unit runs the operator's data type).
  std::map<OpClass, std::vector<std::string>> mapping_templates;
  // Templates for one operator type (`rmsnorm`, `silu_mul`, ...), which take precedence over
  // its class's: the kernels a library ships for that operator are written their own way (one
  // thread block per row, say) where the class's template describes another library's kernel.
  std::map<std::string, std::vector<std::string>> operator_templates;

  // The launch overhead of an operator of this type: its own entry, else launch_overhead_s.
  double launch_overhead_for(std::string_view operator_type) const;
  // Operations a cycle one instance of `node` sustains of `cap`: its ops_per_cycle, or less
  // where the power limit caps it (power_w and the capability's energy_per_op both given).
  double sustained_ops_per_cycle(const ArchNode& node, const ComputeCapability& cap) const;

  // Call after nodes and edges are filled; builds the adjacency used by the queries.
  void finalize();

  std::optional<NodeId> find_node(std::string_view node_name) const;
  // Unchecked: ids come from the graph itself; the hot path of the analysis calls these.
  const ArchNode& node(NodeId id) const { return nodes[id.index()]; }
  const ArchEdge& edge(EdgeId id) const { return edges[id.index()]; }
  const std::vector<EdgeId>& out_edges(NodeId node_id) const { return out_.at(node_id.index()); }
  // Every id of the graph, in order, for loops over all nodes or edges.
  std::vector<NodeId> node_ids() const;
  std::vector<EdgeId> edge_ids() const;

  // The direct edge from a to b, or an invalid id.
  EdgeId edge_between(NodeId from, NodeId to) const;
  // The path from a to b with the fewest hops, empty when none or when a == b.
  std::vector<EdgeId> shortest_path(NodeId from, NodeId to) const;
  bool has_path(NodeId from, NodeId to) const {
    return from == to || !shortest_path(from, to).empty();
  }
  // Every simple path from a to b, at most max_paths of them, shortest first.
  std::vector<std::vector<EdgeId>> paths(NodeId from, NodeId to, size_t max_paths = 16) const;

  // Destination instances per source instance (instance counts on the two ends).
  double fan_out(EdgeId edge_id) const;
  // Bandwidth one user sees when `users` instances move data over the edge at once,
  // including the source memory's read port and the target's write port.
  double effective_bandwidth(EdgeId edge_id, int64_t users) const;
  // The same with the link's own figure replaced (a reduction network's `reduction_bandwidth`):
  // sharing and the ports at both ends still apply.
  double effective_bandwidth(EdgeId edge_id, int64_t users, double link_bytes_per_s) const;
  // Compute nodes able to run a class (optionally at a data type).
  std::vector<NodeId> compute_nodes_for(OpClass cls) const;

  // A stable hash of everything that affects a prediction (not names of the file).
  uint64_t content_hash() const;

 private:
  std::vector<std::vector<EdgeId>> out_;
};

}  // namespace ts
