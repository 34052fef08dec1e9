#pragma once
// The tile-centric notation as plain values, as written in a mapping file. Names are resolved
// against an operator and a graph later (analysis/MappingProgram), so one tree can be checked
// against several graphs.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/InputError.hpp"

namespace ts {

// A loop factor: runs `full` times, except on the last iteration of every enclosing loop of the
// same dimension, where it runs `tail` times. `8/4` in a file; tail == full when there is none.
// A free factor (`?`) is left for the mapper to choose.
struct Factor {
  int64_t full = 1;
  int64_t tail = 1;
  bool free = false;
  bool has_tail() const { return tail != full; }
  static Factor exact(int64_t n) { return Factor{n, n, false}; }
  static Factor with_tail(int64_t n, int64_t t) { return Factor{n, t, false}; }
};

struct DimFactor {
  std::string dim;
  Factor factor;
  SourceLocation where;
};

enum class MappingNodeKind { tile, op, scope, trans };
enum class ScopeKind { sequential, parallel, pipeline, sharing };

std::string_view to_string(ScopeKind kind);

// What `buffers: {T: "?"}` writes: the mapper chooses whether the tile holds T in its own
// memory or T bypasses it (mapper/BufferChoices).
inline constexpr const char* kFreeBuffer = "?";
inline constexpr const char* kBypass = "bypass";

struct TensorPlacement {
  std::string tensor;
  std::string memory;  // kBypass: the tensor has no buffer at this tile; kFreeBuffer: either
  SourceLocation where;
  bool free() const { return memory == kFreeBuffer; }
};

// Whether a buffer keeps a tensor's tile across the loops above it (`keep:` on a tile), or a
// compute unit holds an operand across consecutive calls (`keep:` on an op). `inferred` is what
// a file that says nothing gets: the innermost run of enclosing loops that do not index the
// tensor reuses it. `keep` states that reuse explicitly; `refetch` gives it up, so the tile is
// fetched on every iteration of every enclosing loop (a controller that reloads an operand per
// block, a PE without an operand register); `free` (`"?"`) leaves the choice to the mapper.
enum class KeepChoice : uint8_t { inferred, keep, refetch, free };

std::string_view to_string(KeepChoice choice);

struct TensorKeep {
  std::string tensor;
  KeepChoice choice = KeepChoice::inferred;
  SourceLocation where;
};

struct MappingNode {
  MappingNodeKind kind = MappingNodeKind::tile;
  SourceLocation where;

  // tile: a loop band whose buffers live at `memory` (per-tensor overrides in `placements`)
  std::string memory;
  std::vector<TensorPlacement> placements;
  // tile and op: explicit keep or refetch per tensor (`keep: {A: true, B: false, C: "?"}`)
  std::vector<TensorKeep> keeps;
  std::vector<DimFactor> temporal;  // in loop order, outermost first
  std::vector<DimFactor> spatial;   // spread over instances of the memory below
  bool order_free = false;          // the mapper chooses the temporal order
  bool double_buffer = false;
  bool double_buffer_free = false;  // `double_buffer: "?"`: the mapper chooses
  // The buffer fills while the work below runs (a cache filled on demand, or a prefetching
  // engine): its loads and stores overlap the children and only edge latency is exposed.
  bool streamed = false;
  // The pipeline below this tile (its children's first load and last store) starts anew every
  // iteration instead of flowing from one iteration into the next: a kernel that synchronises
  // its engines once per block pays the fill and drain per block even when double-buffered.
  bool pipeline_restarts = false;
  // Every load of a step is asked for at once, by the many threads of the blocks resident on
  // an instance: the bytes stream in under the latency, so a step waits for the longer of its
  // loads' latency and their transfer, not for their sum (Little's law with all of them in
  // flight). Without it a step pays the latency on top of the transfer.
  bool concurrent_loads = false;
  // The tile's buffers hold one iteration of its own temporal loops at a time, not the whole
  // walk (`footprint: step`): a cache that a walk streams through, such as a GPU's L2 under the
  // thread blocks walking K, holds the blocks' current slices; what it moves is still the whole
  // walk. Default (`whole`): a buffer holds everything its tile covers.
  bool footprint_step = false;
  // Parts of this tile an instance holds at once (`resident_parts: 2`: a GPU SM running two
  // thread blocks of a kernel): each takes its own buffers, and one part's first loads and last
  // stores overlap another's work instead of adding to it. 1: one part at a time.
  int64_t resident_parts = 1;

  // op: the leaf computation on a compute node, optionally processing a block per call
  std::string compute;
  std::string stage;  // which stage of a fused operator; empty for a single-stage operator
  std::vector<DimFactor> op_factors;
  // The warps the enclosing tile's iterations are dealt out over, per dimension (`warps: {M: 2,
  // N: 2}`): a warp's tile is the enclosing tile's extent over its factor. Only a capability
  // with `issue:` reads it; empty: one warp runs the whole tile.
  std::vector<DimFactor> op_warps;

  // scope
  ScopeKind scope = ScopeKind::sequential;

  // trans: the tensor moves to `target` here
  std::string tensor;
  std::string target;

  std::vector<MappingNode> children;
};

struct Mapping {
  std::string name;
  std::string description;
  std::string source_file;
  std::string op_name;  // the operator it was written for, optional
  SourceLocation op_where;
  MappingNode root;

  // Free factors, or a free keep or buffer choice: any makes the mapping a template for the
  // mapper.
  bool has_free_factors() const;
};

// A factor as written in a mapping file: `8`, `8/4` (with a tail), `?` (free).
std::string factor_text(const Factor& f);

// Indented one-line-per-node rendering for the CLI and logs.
std::string render_tree(const Mapping& mapping);
// Canonical text (stable ordering, no comments) whose hash identifies a mapping.
std::string canonical_text(const Mapping& mapping);

}  // namespace ts
