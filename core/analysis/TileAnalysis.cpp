#include "analysis/TileAnalysis.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>

#include "analysis/AccessCounts.hpp"
#include "analysis/IssueRate.hpp"

namespace ts {
namespace {

inline int64_t ext_at(const NodeScratch& s, int d, DimMask mode) {
  return ((mode >> d) & 1u) ? s.ext_tail[d] : s.ext_full[d];
}

// x (>= 1) rounded up to whole granules. Written without x + granule - 1, which overflows for a
// granule near 2^63 although the result fits: extents stay below 4e18 (see `extents`), so the
// result, at most max(granule, 2x), always does.
inline int64_t pad_to(int64_t x, int64_t granule) {
  return granule <= 1 ? x : x + (granule - 1 - (x - 1) % granule);
}

// The elements of a tile of tensor t whose extent along dimension d is ext(d): the product over
// its plain dims, times the span of each window axis (a convolution input's halo included).
template <class Extent>
double tile_elements(const MappingProgram& p, int t, Extent&& ext) {
  double n = 1;
  for (DimMask m = p.tensor_dims[t] & ~p.window_dims[t]; m; m &= m - 1)
    n *= static_cast<double>(ext(std::countr_zero(m)));
  for (const WindowAxis& w : p.windows[t])
    n *= window_span(w, static_cast<double>(ext(w.dims[0])), static_cast<double>(ext(w.dims[1])));
  return n;
}

double footprint(const MappingProgram& p, const NodeScratch& s, int t, DimMask mode) {
  double bytes = p.element_bytes[t];
  if (p.window_dims[t] != 0)
    bytes *= tile_elements(p, t, [&](int d) { return ext_at(s, d, mode); });
  else
    for (DimMask m = p.tensor_dims[t]; m; m &= m - 1)
      bytes *= static_cast<double>(ext_at(s, std::countr_zero(m), mode));
  // Whole bytes: n int4 elements (0.5 B each) take ceil(n / 2). Only below a byte an element,
  // so that other types pay no rounding on the hot path.
  return p.element_bytes[t] < 1 ? std::ceil(bytes) : bytes;
}

// One child's share of an iteration of the tile above it: loads into its buffers, its own time,
// and stores out of them. Lfirst/Sdrain are the unamortised first load and last store.
struct IterationShare {
  double load = 0, compute = 0, store = 0, load_first = 0, store_drain = 0;
  // The child tile's own fill and drain. A pipelined parent pays it once, since the child's next
  // execution starts loading while the current one drains; a sequential parent pays it each time.
  double fill_drain = 0;
  BoundBy load_bound, compute_bound, store_bound;
  bool overlapped = true;  // loads and stores overlap compute (double buffering or streaming)
  // A streamed child: its loads and stores overlap all of its own time, fill and drain included,
  // and only the edge latencies (load_first, store_drain) are exposed.
  bool streamed = false;
  // The child's fill and drain are paid every iteration, overlapped or not (pipeline_restarts).
  bool restarts = false;
};

void add_sequential(IterationShare& acc, const IterationShare& u) {
  if (u.compute >= acc.compute) acc.compute_bound = u.compute_bound;
  if (u.load >= acc.load) acc.load_bound = u.load_bound;
  if (u.store >= acc.store) acc.store_bound = u.store_bound;
  acc.load += u.load;
  acc.compute += u.compute;
  acc.fill_drain += u.fill_drain;
  acc.store += u.store;
  acc.load_first += u.load_first;
  acc.store_drain += u.store_drain;
  acc.overlapped = acc.overlapped && u.overlapped;
  acc.streamed = acc.streamed && u.streamed;
  acc.restarts = acc.restarts || u.restarts;
}

void add_parallel(IterationShare& acc, const IterationShare& u) {
  if (u.compute >= acc.compute) {
    acc.compute = u.compute;
    acc.compute_bound = u.compute_bound;
  }
  if (u.load >= acc.load) {
    acc.load = u.load;
    acc.load_bound = u.load_bound;
  }
  if (u.store >= acc.store) {
    acc.store = u.store;
    acc.store_bound = u.store_bound;
  }
  acc.fill_drain = std::max(acc.fill_drain, u.fill_drain);
  acc.load_first = std::max(acc.load_first, u.load_first);
  acc.store_drain = std::max(acc.store_drain, u.store_drain);
  acc.overlapped = acc.overlapped && u.overlapped;
  acc.streamed = acc.streamed && u.streamed;
  acc.restarts = acc.restarts || u.restarts;
}

// One iteration of a loop over the unit. Overlapped: the slowest of load, work and store, plus
// the child's fill and drain when its pipeline restarts every iteration; otherwise all in turn.
double iteration_time(const IterationShare& u) {
  if (!u.overlapped) return u.load + u.compute + u.fill_drain + u.store;
  return std::max({u.load, u.compute + (u.restarts ? u.fill_drain : 0.0), u.store});
}

class Evaluator {
 public:
  Evaluator(const MappingProgram& p, AnalysisScratch& e) : p_(p), e_(e), g_(*p.graph) {}

  // One pipeline: the floor step, then the rest. `evaluate` and the mapper's traffic_floor +
  // evaluate_after_floor run exactly these steps in this order, so they agree by construction on
  // the time, the bound, the failure and every count.
  double run() {
    traffic_floor();
    return after_floor();
  }

  // The floor step: extents and capacity first (an invalid mapping stops here, with no bound and
  // no traffic counted), then the traffic and the operator-wide floor it sets (shared edges and
  // ports over the whole operator's bytes), without the tree's timing. `after_floor` returns the
  // larger of the tree's time and this floor, so it is never below it (+infinity where the
  // mapping is invalid).
  double traffic_floor() {
    begin();
    e_.floor_s = std::numeric_limits<double>::infinity();
    e_.floor_bound = BoundBy{};
    if (!extents() || !residency()) return e_.floor_s;
    top_down();
    traffic();
    e_.device_s = 0;
    shared_floor();
    e_.floor_s = e_.device_s;
    e_.floor_bound = e_.bound;
    e_.device_s = std::numeric_limits<double>::infinity();
    e_.bound = BoundBy{};
    return e_.floor_s;
  }

  // The rest, after traffic_floor on the same program: the tree's time, raised to the floor
  // (shared_floor raises a time to the first of the largest terms above it, which is the floor's
  // bound when the floor is above the tree's time), then to the kernel floor.
  double after_floor() {
    if (!e_.valid()) return e_.device_s;
    tree_time();
    if (e_.floor_s > e_.device_s) {
      e_.device_s = e_.floor_s;
      e_.bound = e_.floor_bound;
    }
    kernel_floor();
    return e_.device_s;
  }

 private:
  void begin() {
    e_.failure = MappingFailure{};
    e_.device_s = std::numeric_limits<double>::infinity();
    e_.bound = BoundBy{};
  }

  // The root's time over the tree (memoised per node and tail case for this evaluation).
  void tree_time() {
    if (++e_.stamp == 0) {
      for (auto& m : e_.memo) m.stamp = 0;
      e_.stamp = 1;
    }
    for (auto& r : e_.reports) r.evaluated = false;
    const auto& root = tile_time(0, ~DimMask(0));
    e_.device_s = root.time;
    e_.bound = root.bound;
  }

  bool fail(EvaluationFailure f, int node, int dim) {
    e_.failure.kind = f;
    e_.failure.node = node;
    e_.failure.dim = dim;
    return false;
  }

  bool extents() {
    const int n = static_cast<int>(p_.nodes.size());
    for (int i = n - 1; i >= 0; --i) {
      const ProgramNode& node = p_.nodes[i];
      NodeScratch& s = e_.nodes[i];
      if (node.kind == MappingNodeKind::op) {
        for (int d = 0; d < p_.ndims; ++d) {
          s.ext_full[d] = node.op_factor[d].full;
          s.ext_tail[d] = node.op_factor[d].tail;
        }
      } else if (node.kind == MappingNodeKind::trans) {
        continue;
      } else {
        DimMask seen = 0;
        for (int d = 0; d < p_.ndims; ++d) s.ext_full[d] = s.ext_tail[d] = 1;
        for (int c : node.children) {
          const ProgramNode& child = p_.nodes[c];
          if (child.kind == MappingNodeKind::trans) continue;
          const NodeScratch& cs = e_.nodes[c];
          for (DimMask m = child.used_dims; m; m &= m - 1) {
            int d = std::countr_zero(m);
            if (!((seen >> d) & 1u)) {
              s.ext_full[d] = cs.ext_full[d];
              s.ext_tail[d] = cs.ext_tail[d];
              seen |= DimMask(1) << d;
            } else if (s.ext_full[d] != cs.ext_full[d] || s.ext_tail[d] != cs.ext_tail[d]) {
              return fail(EvaluationFailure::scope_mismatch, i, d);
            }
          }
        }
        if (node.kind == MappingNodeKind::tile) {
          for (int d = 0; d < p_.ndims; ++d) {
            const Factor& sp = node.spatial[d];
            const Factor& tp = node.temporal[d];
            // Factors from a file can be anything; an extent past any real size cannot cover
            // the problem, and must not overflow on the way to saying so.
            constexpr double kLargest = static_cast<double>(kLargestDimensionSize);
            const double reach = static_cast<double>(sp.full) * static_cast<double>(tp.full) *
                                 static_cast<double>(s.ext_full[d]);
            if (reach > kLargest) {
              e_.failure.extent = reach;
              return fail(EvaluationFailure::coverage, 0, d);
            }
            int64_t sf = sp.full * s.ext_full[d];
            int64_t st = (sp.tail - 1) * s.ext_full[d] + s.ext_tail[d];
            s.ext_full[d] = tp.full * sf;
            s.ext_tail[d] = (tp.tail - 1) * sf + st;
          }
        }
      }
      DimMask tails = 0;
      for (int d = 0; d < p_.ndims; ++d)
        if (s.ext_full[d] != s.ext_tail[d]) tails |= DimMask(1) << d;
      s.tail_dims = tails;
    }
    const NodeScratch& root = e_.nodes[0];
    for (int d = 0; d < p_.ndims; ++d)
      if (root.ext_tail[d] != p_.size[d]) {
        e_.failure.extent = static_cast<double>(root.ext_tail[d]);
        return fail(EvaluationFailure::coverage, 0, d);
      }
    return true;
  }

  // The op a tile feeds directly, or -1: its buffers hold whole granules of the compute unit
  // (a register holds a whole vector, a cube's L0C whole fractal blocks).
  int direct_op(const ProgramNode& tile) const {
    for (int c : tile.children)
      if (p_.nodes[c].kind == MappingNodeKind::op) return c;
    return -1;
  }

  // The unit's block pads the product of a side's dimensions, as op_share counts its work: a
  // prefill attention's Q block is heads x rows on the cube's M side (1 x 128 of them, 128 rows,
  // not 16 x 128 with the one head padded to 16 on its own).
  double granule_footprint(const NodeScratch& s, int t, int op) const {
    // A window's rows are not a side of the unit's block: a convolution's input is held as the
    // rows its windows span (an implicit GEMM pads the product it forms, not the buffer).
    if (p_.window_dims[t] != 0) return footprint(p_, s, t, 0);
    const ProgramNode& o = p_.nodes[op];
    const ComputeCapability& cap = *o.capability;
    double bytes = p_.element_bytes[t];
    int64_t side[3] = {1, 1, 1};  // m, n, k
    bool named[3] = {false, false, false};
    for (DimMask m = p_.tensor_dims[t]; m; m &= m - 1) {
      const int d = std::countr_zero(m);
      const int64_t x = ext_at(s, d, 0);
      switch (o.role[d]) {
        case GranuleRole::m:
          side[0] *= x;
          named[0] = true;
          break;
        case GranuleRole::n:
          side[1] *= x;
          named[1] = true;
          break;
        case GranuleRole::k:
          side[2] *= x;
          named[2] = true;
          break;
        default:
          bytes *= static_cast<double>(x);
          break;
      }
    }
    for (int r = 0; r < 3; ++r)
      if (named[r]) bytes *= static_cast<double>(pad_to(side[r], cap.granule[r]));
    return p_.element_bytes[t] < 1 ? std::ceil(bytes) : bytes;  // whole bytes, as footprint
  }

  // One iteration of the tile's own temporal loops: its extent over their full counts.
  double step_footprint(const ProgramNode& node, const NodeScratch& s, int t) const {
    double bytes = p_.element_bytes[t];
    if (p_.window_dims[t] != 0) {
      bytes *= tile_elements(p_, t, [&](int d) {
        return static_cast<double>(s.ext_full[d]) /
               static_cast<double>(std::max<int64_t>(1, node.temporal[d].full));
      });
      return p_.element_bytes[t] < 1 ? std::ceil(bytes) : bytes;
    }
    for (DimMask m = p_.tensor_dims[t]; m; m &= m - 1) {
      const int d = std::countr_zero(m);
      bytes *= static_cast<double>(s.ext_full[d]) /
               static_cast<double>(std::max<int64_t>(1, node.temporal[d].full));
    }
    return p_.element_bytes[t] < 1 ? std::ceil(bytes) : bytes;
  }

  bool residency() {
    const size_t m = p_.memories.size();
    std::fill(e_.memory_usage_scratch.begin(), e_.memory_usage_scratch.end(), 0.0);
    const int n = static_cast<int>(p_.nodes.size());
    for (int i = n - 1; i >= 0; --i) {
      const ProgramNode& node = p_.nodes[i];
      double* usage = &e_.memory_usage_scratch[static_cast<size_t>(i) * m];
      if (node.kind == MappingNodeKind::tile) {
        const NodeScratch& s = e_.nodes[i];
        const double copies = node.double_buffer ? 2.0 : 1.0;
        const double parts = node.resident_parts > 1 ? node.resident_parts : 1.0;
        const int op = direct_op(node);
        double* placed = &e_.buffer_bytes[static_cast<size_t>(i) * p_.ntensors];
        for (int t = 0; t < p_.ntensors; ++t)
          if (node.buffer[t].valid()) {
            const double bytes = copies * node.buffer_scale[t] *
                                 (op >= 0               ? granule_footprint(s, t, op)
                                  : node.footprint_step ? step_footprint(node, s, t)
                                                        : footprint(p_, s, t, 0));
            placed[t] = bytes * parts;
            usage[e_.memory_index[node.buffer[t].index()]] += bytes;
          } else {
            placed[t] = 0;
          }
      }
      if (node.kind == MappingNodeKind::tile && node.resident_parts > 1)
        for (size_t k = 0; k < m; ++k) usage[k] *= static_cast<double>(node.resident_parts);
      if (node.parent >= 0) {
        double* up = &e_.memory_usage_scratch[static_cast<size_t>(node.parent) * m];
        const ProgramNode& parent = p_.nodes[node.parent];
        const bool shared =
            parent.kind == MappingNodeKind::scope && parent.scope == ScopeKind::sharing;
        for (size_t k = 0; k < m; ++k)
          up[k] = shared ? std::max(up[k], usage[k]) : up[k] + usage[k];
      }
    }
    for (size_t k = 0; k < m; ++k) {
      e_.memory_usage[k] = e_.memory_usage_scratch[k];
      const ArchNode& mem = g_.node(p_.memories[k]);
      if (e_.memory_usage[k] > mem.capacity_bytes) {
        e_.failure.memory = p_.memories[k];
        e_.failure.bytes = e_.memory_usage[k];
        int where = 0;
        for (int i = 0; i < n; ++i) {
          const ProgramNode& node = p_.nodes[i];
          if (node.kind != MappingNodeKind::tile) continue;
          bool here = false;
          for (int t = 0; t < p_.ntensors; ++t) here = here || node.buffer[t] == p_.memories[k];
          if (here) {
            where = i;
            break;
          }
        }
        return fail(EvaluationFailure::overflow, where, -1);
      }
    }
    return true;
  }

  // Refills of a buffer over the loops above it, visited innermost first: the innermost run of
  // loops that do not index the tensor keeps the tile resident; every other loop refills it.
  // The innermost loop that refills a window tensor (a convolution's input) slides its tile:
  // consecutive tiles overlap by the halo, which stays, so each step fills only what is new
  // (`fill_trips` of the `trips`, as Timeloop counts the delta between consecutive tiles).
  struct ReuseCount {
    double fills = 1, execs = 1, distinct = 1;
    bool suffix = true;
    void loop(double trips, bool relevant, double fill_trips = -1) {
      if (trips <= 1) return;
      execs *= trips;
      if (relevant) distinct *= trips;
      if (suffix && !relevant) return;
      fills *= suffix && fill_trips >= 0 ? fill_trips : trips;
      suffix = false;
    }
  };

  // The tiles' worth of tensor t that `trips` steps of a loop over d fill when each step moves
  // the tile `step` along d and the tile is `child`'s: 1 + (trips - 1) x new rows / span along
  // the window axis d is part of; -1 (no sliding) when d is not part of one.
  double sliding_trips(int t, int d, double trips, double step, const NodeScratch& child) const {
    if (!((p_.window_dims[t] >> d) & 1u)) return -1;
    for (const WindowAxis& w : p_.windows[t])
      for (int k = 0; k < 2; ++k) {
        if (w.dims[k] != d) continue;
        const double span = window_span(w, static_cast<double>(child.ext_full[w.dims[0]]),
                                        static_cast<double>(child.ext_full[w.dims[1]]));
        const double shift = step * static_cast<double>(w.strides[k]);
        return 1 + (trips - 1) * std::min(span, shift) / span;
      }
    return -1;
  }

  // A loop with a tail runs fewer times in the parent's tail tile: its trips per parent tile
  // are the average, so that the steps counted are the steps made (K split 2 x 3/1 is 4 steps,
  // not 6, and a result written once in the walk is a quarter of each step's store).
  // `t` and `child` (the tile or op whose reuse is counted) slide a window tensor's tile; a
  // plain tensor passes -1 and nullptr.
  void temporal_loops(const ProgramNode& tile, const NodeScratch& s, DimMask mask,
                      ReuseCount& count, int t = -1, const NodeScratch* child = nullptr) const {
    for (int k = p_.ndims - 1; k >= 0; --k) {
      const int d = tile.order[k];
      const Factor& f = tile.temporal[d];
      double trips = static_cast<double>(f.full);
      if (f.tail != f.full) {
        const double above = std::max(1.0, s.tiles_above[d]);
        trips = ((above - 1) * trips + static_cast<double>(f.tail)) / above;
      }
      double fill_trips = -1;
      if (child && count.suffix && trips > 1)
        fill_trips = sliding_trips(
            t, d, trips,
            static_cast<double>(s.ext_full[d]) / static_cast<double>(std::max<int64_t>(1, f.full)),
            *child);
      count.loop(trips, (mask >> d) & 1u, fill_trips);
    }
  }

  // Reuse of a child tile's buffers across the loops of every tile above it (waves are the
  // outermost loop of their tile).
  void fractions(int c) {
    const ProgramNode& child = p_.nodes[c];
    NodeScratch& cs = e_.nodes[c];
    auto fraction_of = [&](const Flow& f, bool for_store) {
      const DimMask mask = p_.tensor_dims[f.tensor];
      ReuseCount count;
      const bool window = p_.window_dims[f.tensor] != 0;
      for (int a = enclosing_tile(c); a >= 0; a = enclosing_tile(a)) {
        temporal_loops(p_.nodes[a], e_.nodes[a], mask, count, f.tensor, window ? &cs : nullptr);
        if (e_.nodes[a].waves > 1)
          count.loop(static_cast<double>(e_.nodes[a].waves), (mask & spread_dims(a)) != 0);
      }
      // A buffer that does not keep its tile (`keep: false`) fills on every execution.
      if (child.keep[f.tensor] == KeepChoice::refetch) count.fills = count.execs;
      if (!for_store && f.accumulate) return (count.fills - count.distinct) / count.execs;
      double passes = 1;
      if (!for_store)
        for (DimMask m = f.reduced_dims; m; m &= m - 1)
          if (cs.ext_full[std::countr_zero(m)] < p_.size[std::countr_zero(m)]) passes = 2;
      return passes * count.fills / count.execs;
    };
    for (size_t k = 0; k < child.loads.size(); ++k)
      cs.load_fraction[k] = fraction_of(child.loads[k], false);
    for (size_t k = 0; k < child.stores.size(); ++k)
      cs.store_fraction[k] = fraction_of(child.stores[k], true);
  }

  // A compute unit keeps an operand (and an accumulating result) across consecutive calls while
  // the innermost loops of its tile do not index it: a stationary operand is sent once, unless
  // the op says `keep: false` for it.
  void operand_fractions(int c) {
    const ProgramNode& node = p_.nodes[c];
    NodeScratch& s = e_.nodes[c];
    const int tile = enclosing_tile(c);
    for (size_t k = 0; k < node.operands.size(); ++k) {
      ReuseCount count;
      const int t = node.operands[k].tensor;
      if (tile >= 0)
        temporal_loops(p_.nodes[tile], e_.nodes[tile], p_.tensor_dims[t], count, t,
                       p_.window_dims[t] != 0 ? &s : nullptr);
      // A unit that holds no operand register across calls (`keep: false`) is sent it each call.
      if (node.keep[t] == KeepChoice::refetch) count.fills = count.execs;
      s.load_fraction[k] = count.fills / count.execs;
    }
  }

  void top_down() {
    const int n = static_cast<int>(p_.nodes.size());
    NodeScratch& root = e_.nodes[0];
    root.par = 1;
    for (int d = 0; d < p_.ndims; ++d) root.tiles_above[d] = 1;
    for (int i = 0; i < n; ++i) {
      const ProgramNode& node = p_.nodes[i];
      NodeScratch& s = e_.nodes[i];
      if (node.kind == MappingNodeKind::tile && i > 0) fractions(i);
      if (node.kind == MappingNodeKind::op) operand_fractions(i);
      if (node.kind != MappingNodeKind::tile && node.kind != MappingNodeKind::scope) continue;
      int64_t active = 1;
      if (node.kind == MappingNodeKind::tile) {
        int64_t instances = 1;
        bool dynamic = false;
        for (int c : node.children)
          if (p_.nodes[c].kind != MappingNodeKind::trans) {
            instances = p_.nodes[c].spread_instances;
            dynamic = p_.nodes[c].spread_dynamic;
            break;
          }
        s.child_instances = std::max<int64_t>(1, instances / std::max<int64_t>(1, s.par));
        s.spread = 1;
        for (int d = 0; d < p_.ndims; ++d) s.spread *= node.spatial[d].full;
        s.waves = (s.spread - 1) / s.child_instances + 1;  // ceil; no spread + instances
        active = std::min(s.spread, s.child_instances);
        s.pooled_parts = 0;
        if (dynamic && s.spread > 1) {
          s.pooled_parts = 1;
          for (int d = 0; d < p_.ndims; ++d)
            s.pooled_parts *= (s.tiles_above[d] - 1) * static_cast<double>(node.spatial[d].full) +
                              static_cast<double>(node.spatial[d].tail);
          // Parts of later iterations run beside this one's and share the edges with it.
          active = std::min<int64_t>(static_cast<int64_t>(s.pooled_parts), s.child_instances);
        }
      }
      for (int c : node.children) {
        NodeScratch& cs = e_.nodes[c];
        cs.par = s.par * active;
        for (int d = 0; d < p_.ndims; ++d) {
          double t = s.tiles_above[d];
          if (node.kind == MappingNodeKind::tile) {
            t = (t - 1) * static_cast<double>(node.temporal[d].full) +
                static_cast<double>(node.temporal[d].tail);
            t = (t - 1) * static_cast<double>(node.spatial[d].full) +
                static_cast<double>(node.spatial[d].tail);
          }
          cs.tiles_above[d] = t;
        }
      }
    }
  }

  int enclosing_tile(int i) const {
    int a = p_.nodes[i].parent;
    while (a >= 0 && p_.nodes[a].kind != MappingNodeKind::tile) a = p_.nodes[a].parent;
    return a;
  }

  DimMask spread_dims(int tile) const {
    DimMask m = 0;
    if (tile < 0) return m;
    for (int d = 0; d < p_.ndims; ++d)
      if (p_.nodes[tile].spatial[d].full > 1) m |= DimMask(1) << d;
    return m;
  }

  // Instances of a tile's spatial loop that the dimensions not indexing tensor t spread over
  // (they need the same data of an input, or make partial sums of the same tile of an output),
  // counted among the instances busy at once beside child c, as if those sharing data ran
  // together. 1 when nothing is shared.
  //
  // `tile` is the flow's top (flow_top): the spatial loops of every tile from c's parent up to it
  // spread the instances, those of tiles the tensor bypasses on its way included.
  int64_t sharing_group(int t, int c, int tile) const {
    int64_t along = 1;
    for (int a = enclosing_tile(c); a >= 0; a = enclosing_tile(a)) {
      for (DimMask m = spread_dims(a) & ~p_.tensor_dims[t]; m; m &= m - 1)
        along *= p_.nodes[a].spatial[std::countr_zero(m)].full;
      if (a == tile) break;
    }
    const int64_t active = e_.nodes[c].par / std::max<int64_t>(1, e_.nodes[tile].par);
    return std::max<int64_t>(1, std::min(along, active));
  }

  // The dims the spatial loops spread from c's parent up to `tile` (flow_top), inclusive.
  DimMask chain_spread(int c, int tile) const {
    DimMask m = 0;
    for (int a = enclosing_tile(c); a >= 0; a = enclosing_tile(a)) {
      m |= spread_dims(a);
      if (a == tile) break;
    }
    return m;
  }

  // The tile whose buffer a flow of c leaves or enters: the nearest enclosing tile that holds the
  // tensor in the flow's other memory (the tiles between bypass it); c's parent tile if none.
  int flow_top(const Flow& f, int c) const {
    const int parent = enclosing_tile(c);
    for (int a = parent; a >= 0; a = enclosing_tile(a)) {
      const NodeId held = p_.nodes[a].buffer[f.tensor];
      if (held.valid() && (held == f.from_memory || held == f.to_memory)) return a;
    }
    return parent;
  }

  // A window tensor's instances spread over its window dims (Eyeriss's filter rows and output
  // columns) need overlapping rows: a multicast read serves the union, so a group of n instances
  // reads n x span / union of them once each. 1 for a plain tensor or no such spread.
  double window_sharing(int t, int c, int tile) const {
    if (p_.window_dims[t] == 0) return 1;
    double ratio = 1;
    const NodeScratch& cs = e_.nodes[c];
    for (const WindowAxis& w : p_.windows[t]) {
      double spread[2] = {1, 1};
      for (int a = enclosing_tile(c); a >= 0; a = enclosing_tile(a)) {
        for (int k = 0; k < 2; ++k)
          spread[k] *= static_cast<double>(p_.nodes[a].spatial[w.dims[k]].full);
        if (a == tile) break;
      }
      if (spread[0] * spread[1] <= 1) continue;
      const double e0 = static_cast<double>(cs.ext_full[w.dims[0]]);
      const double e1 = static_cast<double>(cs.ext_full[w.dims[1]]);
      const double span = window_span(w, e0, e1);
      double u = span + (spread[1] - 1) * std::min(span, e1 * static_cast<double>(w.strides[1]));
      u += (spread[0] - 1) * std::min(u, e0 * static_cast<double>(w.strides[0]));
      ratio *= spread[0] * spread[1] * span / u;
    }
    return ratio;
  }

  // Users of an edge for a flow of child c (a tile's load or store, an op's operand): every busy
  // instance, unless the edge multicasts: then one read per group of instances that need the
  // same data. A tensor that no spread dimension indexes is shared by every busy instance, the
  // parts of later iterations under dynamic dispatch included.
  int64_t users_for(const Flow& f, EdgeId edge, int c, int parent_tile) const {
    const int64_t par = e_.nodes[c].par;
    if (!g_.edge(edge).multicast || parent_tile < 0) return par;
    const int top = flow_top(f, c);
    const int64_t above = e_.nodes[top].par;
    if ((p_.tensor_dims[f.tensor] & chain_spread(c, top)) == 0) return above;
    const int64_t active = par / std::max<int64_t>(1, above);
    const int64_t group = sharing_group(f.tensor, c, top);
    return above * ((active + group - 1) / group);
  }

  // A result's partial sums on one edge of its way up: how many meet there at once (R), and
  // what the edge's reduction makes of them. `reduced` says a network before this edge on the
  // path already summed them.
  struct ReductionStep {
    int64_t partials = 1;           // R, 1 when the edge or the mapping reduces nothing
    bool summed = false;            // a network sums them here or before: one store per group
    double hop_latency_s = 0;       // the network's hops, exposed like an edge latency
    double link_bytes_per_s = 0;    // the stream's bandwidth over this edge
    double read_back_fraction = 0;  // per partial stored, the share the memory reads back
  };

  ReductionStep reduction_step(const Flow& f, EdgeId edge, int c, int parent_tile,
                               bool reduced) const {
    // Called for writes only (a tile's stores, an op's result): a read is never summed.
    const ArchEdge& e = g_.edge(edge);
    ReductionStep r;
    r.link_bytes_per_s = e.bandwidth_bytes_per_s;
    if (parent_tile < 0) return r;
    if (!reduced && e.reduction == EdgeReduction::none) return r;
    r.partials = sharing_group(f.tensor, c, flow_top(f, c));
    if (r.partials <= 1) return r;
    if (reduced) {
      r.summed = true;
    } else if (e.reduction == EdgeReduction::network) {
      r.summed = true;
      r.hop_latency_s = static_cast<double>(e.reduction_hops(r.partials)) *
                        e.reduction_latency_cycles / g_.node(e.from).clock_hz;
      if (e.reduction_bandwidth_bytes_per_s > 0)
        r.link_bytes_per_s = e.reduction_bandwidth_bytes_per_s;
    } else {
      // R partials arrive; all but the first find a partial to add to, read first.
      r.read_back_fraction = static_cast<double>(r.partials - 1) / static_cast<double>(r.partials);
    }
    return r;
  }

  // Users of an edge for a result's stores: every busy instance (a write is never multicast),
  // but a group of R partials summed on the way is one user.
  int64_t store_users(const Flow& f, int c, const ReductionStep& r) const {
    const int64_t par = e_.nodes[c].par;
    if (!r.summed) return par;
    const int64_t above = e_.nodes[flow_top(f, c)].par;
    const int64_t active = par / std::max<int64_t>(1, above);
    return above * ((active + r.partials - 1) / r.partials);
  }

  // The edge of a flow's path with the longest latency (invalid when none has any).
  EdgeId slowest_edge(const Flow& f) const {
    EdgeId best;
    double most = 0;
    for (EdgeId e : f.path)
      if (g_.edge(e).latency_cycles > most) {
        most = g_.edge(e).latency_cycles;
        best = e;
      }
    return best;
  }

  // An op's result summed in a memory: the partials read back take the memory's read port with
  // the operands read out of it (`reads`), and its combined port with the result's writes too,
  // shared by the busy instances.
  double read_back_time(EdgeId edge, double reads, double bytes, const ReductionStep& r,
                        int64_t par) const {
    const ArchNode& m = g_.node(g_.edge(edge).to);
    const double users = static_cast<double>(std::max<int64_t>(1, par));
    const double read_back = bytes * r.read_back_fraction;
    double t = 0;
    if (m.read_port_bytes_per_s > 0)
      t = (reads + read_back) / m.port_share_bytes_per_s(m.read_port_bytes_per_s, users);
    if (m.port_bytes_per_s > 0)
      t = std::max(
          t, (reads + bytes + read_back) / m.port_share_bytes_per_s(m.port_bytes_per_s, users));
    return t;
  }

  IterationShare tile_share(int parent, int c, DimMask mode) {
    IterationShare u;
    const auto& memo = tile_time(c, mode);
    u.compute = memo.steady;
    u.fill_drain = memo.time - memo.steady;
    u.compute_bound = memo.bound;
    const ProgramNode& child = p_.nodes[c];
    const NodeScratch& cs = e_.nodes[c];
    double steady[kMaxLocalEdges] = {}, first[kMaxLocalEdges] = {};
    double latency = 0;
    double step_latency = 0;  // what a double-buffered step waits for (below)
    EdgeId latency_edge;      // where the latency comes from, to name it when it alone bounds
    for (size_t k = 0; k < child.loads.size(); ++k) {
      const Flow& f = child.loads[k];
      const double bytes = footprint(p_, cs, f.tensor, mode);
      for (size_t j = 0; j < f.path.size(); ++j) {
        double bw = g_.effective_bandwidth(f.path[j], users_for(f, f.path[j], c, parent));
        if (f.row_slowdown[j] != 1.0) bw /= f.row_slowdown[j];  // a division saved per edge
        steady[f.local_edge_index[j]] += bytes * cs.load_fraction[k] / bw;
        if (!f.accumulate) first[f.local_edge_index[j]] += bytes / bw;
      }
      if (f.latency_s > latency) {
        latency = f.latency_s;
        latency_edge = slowest_edge(f);
      }
      // In a pipelined step only loads that happen wait: partial sums read back are not asked
      // for ahead, and an operand reloaded on a fraction of the steps waits on that fraction.
      if (!f.accumulate && cs.load_fraction[k] > 0)
        step_latency = std::max(step_latency, f.latency_s * std::min(1.0, cs.load_fraction[k]));
    }
    const size_t local_edge_count = child.local_edges.size();
    double best_first = 0;
    for (size_t j = 0; j < local_edge_count; ++j) {
      if (steady[j] > u.load) {
        u.load = steady[j];
        u.load_bound = BoundBy::edge(child.local_edges[j]);
      }
      best_first = std::max(best_first, first[j]);
      steady[j] = first[j] = 0;
    }
    u.load_first = best_first + latency;
    double store_latency = 0;
    for (size_t k = 0; k < child.stores.size(); ++k) {
      const Flow& f = child.stores[k];
      const double bytes = footprint(p_, cs, f.tensor, mode);
      double latency_s = f.latency_s;
      bool summed = false;
      for (size_t j = 0; j < f.path.size(); ++j) {
        const ReductionStep r = reduction_step(f, f.path[j], c, parent, summed);
        summed = r.summed;
        latency_s += r.hop_latency_s;
        double bw = g_.effective_bandwidth(f.path[j], store_users(f, c, r), r.link_bytes_per_s);
        if (f.row_slowdown[j] != 1.0) bw /= f.row_slowdown[j];
        steady[f.local_edge_index[j]] += bytes * cs.store_fraction[k] / bw;
        first[f.local_edge_index[j]] += bytes * std::min(1.0, cs.store_fraction[k]) / bw;
      }
      store_latency = std::max(store_latency, latency_s * std::min(1.0, cs.store_fraction[k]));
    }
    double drain = 0;
    for (size_t j = 0; j < local_edge_count; ++j) {
      if (steady[j] > u.store) {
        u.store = steady[j];
        u.store_bound = BoundBy::edge(child.local_edges[j]);
      }
      drain = std::max(drain, first[j]);
    }
    u.store_drain = drain + store_latency;
    u.overlapped = child.double_buffer;
    u.restarts = child.pipeline_restarts;
    if (child.streamed) {
      // The buffer fills as the work below asks for it: nothing waits for the whole tile, only
      // for the first bytes to arrive, and the child's own fill and drain run under the stream.
      u.load_first = latency;
      u.store_drain = store_latency;
      u.compute += u.fill_drain;
      u.fill_drain = 0;
      u.overlapped = true;
      u.streamed = true;
    }
    // The parts of a dynamically dispatched grid do not wait for one another: blocks of the next
    // iterations above run beside this one's, so its loads and their latency overlap the work of
    // the others, as a stream's do (many tiles in flight, not one). Each part still fills and
    // drains its own pipeline on its instance: that is paid on every call, in the call's share
    // of the pool's waves (tile_time).
    const bool pooled = cs.pooled_parts > 0;
    if (pooled) u.overlapped = u.restarts = true;
    apply_ports(parent, c, mode, u);
    // Concurrent loads wait for the longer of latency and transfer: where the latency is longer,
    // it is what bounds the step.
    auto wait = [&](double l) {
      if (!child.concurrent_loads) return u.load + l;
      if (l > u.load && latency_edge.valid()) u.load_bound = BoundBy::edge(latency_edge);
      return std::max(u.load, l);
    };
    if (!u.overlapped) {
      u.load = wait(latency);
      u.store += store_latency;
      if (u.load_bound.is_none() && latency_edge.valid())
        u.load_bound = BoundBy::edge(latency_edge);
    } else if (!u.streamed && !pooled && step_latency > 0) {
      // Two buffers put one load in flight ahead of the work: the next tile is asked for when
      // this one's work starts and must have arrived when it ends, so a step lasts at least the
      // load's latency plus its transfer (Little's law with one tile in flight). A streamed
      // cache has many requests in flight and hides it.
      u.load = wait(step_latency);
      if (u.load_bound.is_none() && latency_edge.valid())
        u.load_bound = BoundBy::edge(latency_edge);
    }
    return u;
  }

  // Loads and stores that meet in one memory with a combined port (reads and writes together)
  // share it: the larger of the two stretches until both fit through the port. Partial sums that
  // a `reduction: memory` reads back are reads of that memory: they take its combined port, and
  // its read port together with the loads out of it (each flow's own edges already respect the
  // ports, so a memory without read-backs needs no read-port sum).
  void apply_ports(int parent, int c, DimMask mode, IterationShare& u) const {
    // Most tiles move data between memories without port limits: skip the per-flow work.
    if (!e_.meets_port[static_cast<size_t>(c)]) return;
    const ProgramNode& child = p_.nodes[c];
    const NodeScratch& cs = e_.nodes[c];
    struct PortUse {
      NodeId memory;
      double moved, read, read_back;  // bytes per child and iteration: all, read, read back
    };
    constexpr int kMaxPorts = 8;
    PortUse ports[kMaxPorts];
    int used = 0;
    auto add = [&](NodeId memory, double read, double write, double read_back) {
      const ArchNode& m = g_.node(memory);
      if (m.port_bytes_per_s <= 0 && m.read_port_bytes_per_s <= 0) return;
      const double moved = read + write + read_back;
      for (int i = 0; i < used; ++i)
        if (ports[i].memory == memory) {
          ports[i].moved += moved;
          ports[i].read += read;
          ports[i].read_back += read_back;
          return;
        }
      if (used < kMaxPorts) ports[used++] = PortUse{memory, moved, read, read_back};
    };
    const double par = static_cast<double>(std::max<int64_t>(1, cs.par));
    for (size_t k = 0; k < child.loads.size(); ++k) {
      const Flow& f = child.loads[k];
      double bytes = footprint(p_, cs, f.tensor, mode) * cs.load_fraction[k];
      // A multicast read leaves the memory once per group that shares it (scaled only then, so
      // that the figures of graphs without multicast stay bit for bit what they were).
      const double reads =
          f.path.empty() ? par : static_cast<double>(users_for(f, f.path.front(), c, parent));
      if (reads != par) bytes *= reads / par;
      add(f.from_memory, bytes, 0, 0);
    }
    for (size_t k = 0; k < child.stores.size(); ++k) {
      const Flow& f = child.stores[k];
      const double bytes = footprint(p_, cs, f.tensor, mode) * cs.store_fraction[k];
      bool summed = false;
      for (EdgeId edge : f.path) {
        const ReductionStep r = reduction_step(f, edge, c, parent, summed);
        summed = r.summed;
        if (r.read_back_fraction > 0) add(g_.edge(edge).to, 0, 0, bytes * r.read_back_fraction);
      }
      add(f.to_memory, 0, bytes, 0);
    }
    double port = 0;
    for (int i = 0; i < used; ++i) {
      const ArchNode& m = g_.node(ports[i].memory);
      const PortUse& p = ports[i];
      if (m.port_bytes_per_s > 0)
        port = std::max(port, p.moved / m.port_share_bytes_per_s(m.port_bytes_per_s, par));
      if (m.read_port_bytes_per_s > 0 && p.read_back > 0)
        port = std::max(
            port, (p.read + p.read_back) / m.port_share_bytes_per_s(m.read_port_bytes_per_s, par));
    }
    if (port <= std::max(u.load, u.store)) return;
    double& longer = u.load >= u.store ? u.load : u.store;
    const double other = u.load >= u.store ? u.store : u.load;
    longer = u.overlapped ? std::max(longer, port) : std::max(longer, port - other);
  }

  // An issue-limited unit's rate on the warp tile of op c: the enclosing tile's M and N extents
  // over the op's warps (IssueRate.hpp).
  double warp_fed_ops_per_cycle(int c) const {
    const ProgramNode& node = p_.nodes[c];
    const int tile = enclosing_tile(c);
    int64_t warp_m = 1, warp_n = 1;
    for (int d = 0; d < p_.ndims; ++d) {
      const int64_t extent = tile >= 0 ? e_.nodes[tile].ext_full[d] : e_.nodes[c].ext_full[d];
      const int64_t per_warp = (extent - 1) / node.op_warps[d] + 1;  // ceil, without overflow
      if (node.role[d] == GranuleRole::m) warp_m *= per_warp;
      if (node.role[d] == GranuleRole::n) warp_n *= per_warp;
    }
    return issue_limited_ops_per_cycle(*node.capability, node.warps, warp_m, warp_n);
  }

  IterationShare op_share(int c, DimMask mode) {
    IterationShare u;
    const ProgramNode& node = p_.nodes[c];
    const NodeScratch& s = e_.nodes[c];
    const Stage& st = p_.op->stages[node.stage];
    const ComputeCapability& cap = *node.capability;
    int64_t m = 1, n = 1, k = 1, batch = 1, vec = 1;
    for (int d : st.dims) {
      const int64_t x = ext_at(s, d, mode);
      switch (node.role[d]) {
        case GranuleRole::m:
          m *= x;
          break;
        case GranuleRole::n:
          n *= x;
          break;
        case GranuleRole::k:
          k *= x;
          break;
        case GranuleRole::vector:
          vec *= x;
          break;
        default:
          batch *= x;
          break;
      }
    }
    double ops;
    if (st.op_class == OpClass::matmul)
      ops = static_cast<double>(pad_to(m, cap.granule[0])) *
            static_cast<double>(pad_to(n, cap.granule[1])) *
            static_cast<double>(pad_to(k, cap.granule[2])) * static_cast<double>(batch);
    else
      ops = static_cast<double>(pad_to(vec, cap.granule[0])) * static_cast<double>(batch);
    ops *= node.priced_ops_per_point;  // exp, div, ... at their cost (OperationPrice.hpp)
    // An epilogue runs once per walk of the reduction it finishes: its calls inside the walk's
    // loops share one (the extent of such a dimension at the op is its factor there, 1 at most).
    for (DimMask d = node.epilogue_dims; d; d &= d - 1) {
      const int dim = std::countr_zero(d);
      const int64_t here = std::max<int64_t>(1, ext_at(s, dim, mode));
      ops /= static_cast<double>((p_.size[dim] - 1) / here + 1);
    }
    const double ops_per_cycle =
        cap.issue ? std::min(warp_fed_ops_per_cycle(c), node.sustained_ops_per_cycle)
                  : node.sustained_ops_per_cycle;
    const ArchNode& unit = g_.node(node.compute);
    double compute_s = ops / ops_per_cycle / unit.clock_hz;
    // A plugin's hook may only add time (ComputeCostHook.h): the mapper's compute floor stays
    // a lower bound. Graphs without one pay this one test.
    if (unit.cost_hook_seconds != nullptr) {
      const bool matmul = st.op_class == OpClass::matmul;
      const TilescopeComputeTile call{static_cast<uint32_t>(st.op_class),
                                      static_cast<uint32_t>(cap.dtype),
                                      matmul ? m : 1,
                                      matmul ? n : 1,
                                      matmul ? k : 1,
                                      matmul ? 1 : vec,
                                      batch,
                                      ops,
                                      ops_per_cycle,
                                      unit.clock_hz};
      compute_s = std::max(compute_s, unit.cost_hook_seconds(&call, unit.cost_hook_user));
    }
    // More calls at once than the unit has instances (a graph with fewer compute units than the
    // memories that feed them, as a sweep of the unit's count alone makes): the calls take turns
    // on the instances there are. A warp-fed unit's sharing is in its issue rate already.
    const int64_t busy = e_.nodes[c].par;
    if (!cap.issue && unit.instances > 0 && busy > unit.instances)
      compute_s *= static_cast<double>((busy - 1) / unit.instances + 1);
    u.compute = compute_s;
    u.compute_bound = BoundBy::compute(node.compute);
    // A SIMD FMA unit (granule [1, lanes, 1]) broadcasts each element of an operand that has no
    // N dimension to a whole vector: every element occupies the path as one vector access.
    const bool simd_fma = st.op_class == OpClass::matmul && cap.granule[0] == 1 &&
                          cap.granule[1] > 1 && cap.granule[2] == 1;
    // Operands that share an edge share its bandwidth: their times add up per edge.
    EdgeId edge_ids[kMaxLocalEdges];
    double edge_time[kMaxLocalEdges];
    int used = 0;
    const int tile = enclosing_tile(c);
    for (size_t j = 0; j < node.operands.size(); ++j) {
      const Flow& f = node.operands[j];
      double bytes = footprint(p_, s, f.tensor, mode) * s.load_fraction[j];
      if (simd_fma && p_.op->is_input(f.tensor)) {
        bool has_n = false;
        for (DimMask m = p_.tensor_dims[f.tensor]; m; m &= m - 1)
          has_n = has_n || node.role[std::countr_zero(m)] == GranuleRole::n;
        if (!has_n) bytes *= static_cast<double>(cap.granule[1]);
      }
      // The last operand is the result, written back (MappingProgram): its partial sums may be
      // summed on the way up; the others are reads, which a multicast edge shares.
      const bool result = j + 1 == node.operands.size();
      bool summed = false;
      for (EdgeId edge : f.path) {
        double t;
        if (result) {
          const ReductionStep r = reduction_step(f, edge, c, tile, summed);
          summed = r.summed;
          u.store_drain += r.hop_latency_s;
          t = bytes / g_.effective_bandwidth(edge, store_users(f, c, r), r.link_bytes_per_s);
          if (r.read_back_fraction > 0) {
            // What the other operands read out of the memory the partials are added in, each
            // read once per group a multicast feeds.
            const NodeId memory = g_.edge(edge).to;
            double reads = 0;
            for (size_t i = 0; i + 1 < node.operands.size(); ++i) {
              const Flow& in = node.operands[i];
              if (in.from_memory != memory || in.path.empty()) continue;
              reads += footprint(p_, s, in.tensor, mode) * s.load_fraction[i] *
                       static_cast<double>(users_for(in, in.path.front(), c, tile)) /
                       static_cast<double>(std::max<int64_t>(1, s.par));
            }
            t = std::max(t, read_back_time(edge, reads, bytes, r, s.par));
          }
        } else {
          t = bytes / g_.effective_bandwidth(edge, users_for(f, edge, c, tile));
        }
        int k = 0;
        while (k < used && edge_ids[k] != edge) ++k;
        if (k == used) {
          if (used == kMaxLocalEdges) continue;
          edge_ids[used] = edge;
          edge_time[used++] = 0;
        }
        edge_time[k] += t;
      }
    }
    for (int k = 0; k < used; ++k)
      if (edge_time[k] > u.compute) {
        u.compute = edge_time[k];
        u.compute_bound = BoundBy::edge(edge_ids[k]);
      }
    u.overlapped = true;
    return u;
  }

  IterationShare trans_share(int c, DimMask mode) {
    IterationShare u;
    const ProgramNode& node = p_.nodes[c];
    const ProgramNode& parent = p_.nodes[node.parent];
    int ref = node.parent;
    if (parent.kind == MappingNodeKind::tile)
      for (int s : parent.children)
        if (p_.nodes[s].kind != MappingNodeKind::trans) {
          ref = s;
          break;
        }
    const double bytes = footprint(p_, e_.nodes[ref], node.tensor, mode);
    for (EdgeId edge : node.transfer.path) {
      const double t = bytes / g_.effective_bandwidth(edge, e_.nodes[c].par);
      if (t > u.compute) {
        u.compute = t;
        u.compute_bound = BoundBy::edge(edge);
      }
    }
    u.compute += node.transfer.latency_s;
    return u;
  }

  IterationShare share_of(int parent_tile, int c, DimMask mode) {
    const ProgramNode& node = p_.nodes[c];
    switch (node.kind) {
      case MappingNodeKind::tile:
        return tile_share(parent_tile, c, mode);
      case MappingNodeKind::op:
        return op_share(c, mode);
      case MappingNodeKind::trans:
        return trans_share(c, mode);
      case MappingNodeKind::scope: {
        IterationShare acc;
        bool first = true;
        for (int k : node.children) {
          IterationShare u = share_of(parent_tile, k, mode);
          if (first) {
            acc = u;
            first = false;
          } else if (node.scope == ScopeKind::parallel || node.scope == ScopeKind::pipeline) {
            add_parallel(acc, u);
          } else {
            add_sequential(acc, u);
          }
        }
        return acc;
      }
    }
    return {};
  }

  // A pool's waves shared out over its parts: only the pool's last wave is partial.
  static double waves_per_pooled_part(const NodeScratch& s) {
    return std::ceil(s.pooled_parts / static_cast<double>(s.child_instances)) / s.pooled_parts;
  }

  const AnalysisScratch::Memo& tile_time(int n, DimMask mode) {
    const NodeScratch& s = e_.nodes[n];
    mode &= s.tail_dims;
    // A padded part works on its whole extent; its loads, timed by its parent, stay the tail's.
    if (p_.nodes[n].padded_tails) mode = 0;
    AnalysisScratch::Memo& memo = e_.memo[static_cast<size_t>(n) * e_.mode_stride + mode];
    if (memo.stamp == e_.stamp) return memo;
    const ProgramNode& node = p_.nodes[n];

    double total = 0, load_sum = 0, compute_sum = 0, store_sum = 0, iterations = 0;
    IterationShare last;
    DimMask sub = mode;
    while (true) {
      double count = 1;
      for (int d = 0; d < p_.ndims; ++d) {
        const Factor& f = node.temporal[d];
        if ((mode >> d) & 1u)
          count *= ((sub >> d) & 1u) ? 1.0 : static_cast<double>(f.tail - 1);
        else
          count *= static_cast<double>(f.full);
      }
      if (count > 0) {
        int64_t spread = 1;
        DimMask child_mode = 0;
        for (int d = 0; d < p_.ndims; ++d) {
          const Factor& sp = node.spatial[d];
          const bool tail = (sub >> d) & 1u;
          const int64_t k = tail ? sp.tail : sp.full;
          spread *= k;
          if (tail && k == 1) child_mode |= DimMask(1) << d;
        }
        // Lockstep: this iteration's parts in whole waves. Dynamic dispatch: instances pick up
        // parts of the next iterations as they free up, so only the pool's last wave is partial
        // and each iteration takes its share of the pool's waves.
        double waves = static_cast<double>((spread - 1) / s.child_instances + 1);
        if (s.pooled_parts > 0) waves = static_cast<double>(spread) * waves_per_pooled_part(s);
        IterationShare u;
        bool first = true;
        for (int c : node.children) {
          IterationShare cu = share_of(n, c, child_mode);
          if (first) {
            u = cu;
            first = false;
          } else {
            add_sequential(u, cu);
          }
        }
        const double it = count * waves;
        // Parts resident together keep the instance busy with one's transfers while another
        // computes: a step takes the longest of its loads, work and stores, not their sum.
        const double step =
            node.resident_parts > 1 ? std::max({u.load, u.compute, u.store}) : iteration_time(u);
        total += it * step;
        load_sum += it * u.load;
        compute_sum += it * (u.compute + (u.overlapped && u.restarts ? u.fill_drain : 0.0));
        store_sum += it * u.store;
        iterations += it;
        if (sub == mode) last = u;
      }
      if (sub == 0) break;
      sub = (sub - 1) & mode;
    }
    // Fill and drain: the first load and the last store are not hidden behind anything, unless
    // another resident part's work hides them (resident_parts: it runs while this one fills and
    // drains, and the instance is busy with one part's steady work or another's transfers).
    double fill_drain;
    if (node.resident_parts > 1)
      fill_drain = 0;
    else if (last.streamed)
      fill_drain = last.load_first + last.store_drain;
    else if (last.overlapped)
      fill_drain = last.load_first + last.compute + last.fill_drain + last.store_drain -
                   iteration_time(last);
    else
      fill_drain = (last.load_first - last.load) + (last.store_drain - last.store);
    if (s.pooled_parts > 0) {
      // Each part fills and drains its own pipeline, all those of a wave at once: this call's
      // parts take their share of the pool's waves of fill and drain, as of its steady steps.
      double parts = 1;
      for (int d = 0; d < p_.ndims; ++d)
        parts *=
            static_cast<double>(((mode >> d) & 1u) ? node.spatial[d].tail : node.spatial[d].full);
      fill_drain *= parts * waves_per_pooled_part(s);
    }
    memo.steady = total;
    memo.time = total + std::max(0.0, fill_drain);
    memo.iterations = iterations;
    memo.load = iterations > 0 ? load_sum / iterations : 0;
    memo.compute = iterations > 0 ? compute_sum / iterations : 0;
    memo.store = iterations > 0 ? store_sum / iterations : 0;
    if (compute_sum >= load_sum && compute_sum >= store_sum)
      memo.bound = last.compute_bound;
    else if (load_sum >= store_sum)
      memo.bound = last.load_bound;
    else
      memo.bound = last.store_bound;
    memo.stamp = e_.stamp;

    NodeReport& r = e_.reports[n];
    if (!r.evaluated || mode == 0) {
      r = NodeReport{memo.time,  memo.load, memo.compute, memo.store,
                     iterations, s.waves,   memo.bound,   true};
    }
    return memo;
  }

  // A kernel takes at least its unit's min_kernel_time: the larger of the two, not their sum,
  // since the tree's time already holds the first loads' latency and the last stores' drain,
  // which are most of a short kernel's fixed time (docs/analysis.md, "Kernel floor").
  void kernel_floor() {
    if (p_.min_kernel_s > e_.device_s) {
      e_.device_s = p_.min_kernel_s;
      e_.bound = BoundBy::kernel_floor(p_.min_kernel_unit);
    }
  }

  // However the tree overlaps its levels, the whole operator's bytes through a shared edge, or
  // through a memory's port, take at least their bandwidth: a floor for flows the tree times at
  // different levels (loads at one level and stores at another through one HBM port). A read
  // port carries the bytes out of the memory and the partials it reads back, a write port the
  // bytes into it, a combined port all of them.
  void shared_floor() {
    auto raise_to = [&](double t, EdgeId edge) {
      if (t > e_.device_s) {
        e_.device_s = t;
        e_.bound = BoundBy::edge(edge);
      }
    };
    for (EdgeId k : e_.shared_edges)
      raise_to(e_.edge_bytes[k.index()] / g_.edge(k).bandwidth_bytes_per_s, k);
    // The sum over a port's edges, and the busiest of them, to name it.
    auto over = [&](const std::vector<EdgeId>& edges, double& bytes, EdgeId& busiest) {
      double most = -1;
      for (EdgeId k : edges) {
        bytes += e_.edge_bytes[k.index()];
        if (e_.edge_bytes[k.index()] > most) most = e_.edge_bytes[k.index()], busiest = k;
      }
    };
    for (const AnalysisScratch::Port& port : e_.ports) {
      const double read_back = e_.read_back_bytes[port.memory.index()];
      if (port.bytes_per_s > 0) {
        double bytes = 0;
        EdgeId busiest = port.edges.front();
        over(port.edges, bytes, busiest);
        raise_to((bytes + read_back) / port.bytes_per_s, busiest);
      }
      if (port.read_bytes_per_s > 0 && !port.out_edges.empty()) {
        double bytes = 0;
        EdgeId busiest = port.out_edges.front();
        over(port.out_edges, bytes, busiest);
        raise_to((bytes + read_back) / port.read_bytes_per_s, busiest);
      }
      if (port.write_bytes_per_s > 0 && !port.in_edges.empty()) {
        double bytes = 0;
        EdgeId busiest = port.in_edges.front();
        over(port.in_edges, bytes, busiest);
        raise_to(bytes / port.write_bytes_per_s, busiest);
      }
    }
  }

  enum class FlowKind { load, store, operand, result, transfer };

  // Every movement of the operator, whole: a tile's loads and stores, an op's operands and its
  // result (the last operand, MappingProgram), a trans node's transfer, each with the bytes it
  // carries before any multicast or reduction, the node it serves and its enclosing tile.
  // traffic() and accesses() walk the same flows, so their figures agree by construction.
  template <class Visit>
  void each_flow(Visit&& visit) const {
    const int n = static_cast<int>(p_.nodes.size());
    // A window tensor's tiles overlap: its volume is a tile's span times every tile above, of
    // its plain dims included, where a plain tensor's tiles partition it.
    auto volume = [&](int t, const NodeScratch& s) {
      double v = p_.tensor_bytes[t];
      if (p_.window_dims[t] != 0) {
        v = p_.element_bytes[t] * tile_elements(p_, t, [&](int d) { return s.ext_full[d]; });
        for (int d = 0; d < p_.ndims; ++d)
          if ((p_.window_dims[t] >> d) & 1u) v *= s.tiles_above[d];
        for (DimMask m = p_.tensor_dims[t] & ~p_.window_dims[t]; m; m &= m - 1) {
          const int d = std::countr_zero(m);
          v *= static_cast<double>(p_.size[d]) / static_cast<double>(s.ext_full[d]);
        }
      }
      for (int d = 0; d < p_.ndims; ++d)
        if (!((p_.tensor_dims[t] >> d) & 1u)) v *= s.tiles_above[d];
      return v;
    };
    for (int i = 1; i < n; ++i) {
      const ProgramNode& node = p_.nodes[i];
      const NodeScratch& s = e_.nodes[i];
      const int parent = enclosing_tile(i);
      if (node.kind == MappingNodeKind::tile) {
        for (size_t k = 0; k < node.loads.size(); ++k)
          visit(FlowKind::load, node.loads[k], volume(node.loads[k].tensor, s) * s.load_fraction[k],
                i, parent);
        for (size_t k = 0; k < node.stores.size(); ++k)
          visit(FlowKind::store, node.stores[k],
                volume(node.stores[k].tensor, s) * s.store_fraction[k], i, parent);
      } else if (node.kind == MappingNodeKind::op) {
        for (size_t j = 0; j < node.operands.size(); ++j) {
          const Flow& f = node.operands[j];
          visit(j + 1 == node.operands.size() ? FlowKind::result : FlowKind::operand, f,
                volume(f.tensor, s) * s.load_fraction[j], i, parent);
        }
      } else if (node.kind == MappingNodeKind::trans) {
        visit(FlowKind::transfer, node.transfer, volume(node.tensor, s), i, parent);
      }
    }
  }

  void traffic() {
    std::fill(e_.edge_bytes.begin(), e_.edge_bytes.end(), 0.0);
    std::fill(e_.read_back_bytes.begin(), e_.read_back_bytes.end(), 0.0);
    each_flow([&](FlowKind kind, const Flow& f, double bytes, int c, int parent) {
      if (kind == FlowKind::transfer) {
        for (EdgeId edge : f.path) e_.edge_bytes[edge.index()] += bytes;
      } else if (kind == FlowKind::load || kind == FlowKind::operand) {
        // A read over a multicast edge serves the group of busy instances that need its data;
        // a partial sum sent back down serves the group whose partials are summed with it.
        for (EdgeId edge : f.path) {
          double b = bytes;
          if ((g_.edge(edge).multicast || f.accumulate) && parent >= 0) {
            const int top = flow_top(f, c);
            b /= static_cast<double>(sharing_group(f.tensor, c, top)) *
                 window_sharing(f.tensor, c, top);
          }
          e_.edge_bytes[edge.index()] += b;
        }
      } else {
        // R partials summed by a network cross it and the rest of the way as one; summed in a
        // memory, each arrives and R-1 of R are read back there first.
        bool summed = false;
        for (EdgeId edge : f.path) {
          const ReductionStep r = reduction_step(f, edge, c, parent, summed);
          summed = r.summed;
          e_.edge_bytes[edge.index()] += r.summed ? bytes / static_cast<double>(r.partials) : bytes;
          e_.read_back_bytes[g_.edge(edge).to.index()] += bytes * r.read_back_fraction;
        }
      }
    });
  }

 public:
  // The words each memory reads, is filled with and updates, per tensor (AccessCounts.hpp), from
  // the flows traffic() counts in bytes. After run() found the mapping valid.
  void accesses(AccessCounts& out) const {
    std::map<std::pair<int32_t, int>, size_t> index;
    auto at = [&](NodeId memory, int tensor) -> TensorAccesses& {
      auto [it, fresh] = index.emplace(std::make_pair(memory.value, tensor), out.entries.size());
      if (fresh) out.entries.push_back(TensorAccesses{memory, tensor});
      return out.entries[it->second];
    };
    // Words leaving each memory as a tile's drain, per tensor: the residencies an output had
    // there, each of which began with a write that read nothing.
    std::map<std::pair<int32_t, int>, double> drained;
    // The memories a unit writes its results into: where partial sums are added to, so where an
    // update reads the word first. A memory a tile drains into only stores what arrives (its
    // reads of it serve refills, counted as reads above).
    std::set<std::pair<int32_t, int>> accumulates;
    each_flow([&](FlowKind kind, const Flow& f, double bytes, int c, int parent) {
      const double words = bytes / p_.element_bytes[f.tensor];
      if (kind == FlowKind::transfer) {
        if (f.from_memory.valid()) at(f.from_memory, f.tensor).reads += words;
        if (f.to_memory.valid()) at(f.to_memory, f.tensor).fills += words;
        return;
      }
      if (kind == FlowKind::load || kind == FlowKind::operand) {
        // One read at the source feeds a multicast group (an edge leaving it that multicasts).
        // A partial sum refilled into instances that split the reduction is read once for the
        // group: their partials are summed into one value (Timeloop reads it once, as the
        // content accesses after spatial reduction).
        double read = words;
        if (!f.path.empty() && (g_.edge(f.path.front()).multicast || f.accumulate) && parent >= 0) {
          const int top = flow_top(f, c);
          read /= static_cast<double>(sharing_group(f.tensor, c, top)) *
                  window_sharing(f.tensor, c, top);
        }
        if (f.from_memory.valid()) at(f.from_memory, f.tensor).reads += read;
        if (kind == FlowKind::load && f.to_memory.valid()) at(f.to_memory, f.tensor).fills += words;
        return;
      }
      // A store or a result: partials summed on the way arrive as one update; a memory that
      // sums them reads back the ones it adds to.
      bool summed = false;
      int64_t partials = 1;
      for (EdgeId edge : f.path) {
        const ReductionStep r = reduction_step(f, edge, c, parent, summed);
        summed = r.summed;
        if (r.summed) partials = r.partials;
        if (r.read_back_fraction > 0)
          at(g_.edge(edge).to, f.tensor).reads += words * r.read_back_fraction;
      }
      if (!f.to_memory.valid()) return;
      TensorAccesses& to = at(f.to_memory, f.tensor);
      const double arrived = words / static_cast<double>(partials);
      to.updates += arrived;
      to.spatial_reductions += words - arrived;
      if (kind == FlowKind::store && f.from_memory.valid())
        drained[{f.from_memory.value, f.tensor}] += words;
      if (kind == FlowKind::result) accumulates.insert({f.to_memory.value, f.tensor});
    });
    // Read-modify-write: every update of a word already there reads it first. A residency of an
    // output element begins with its first update (no read) or with a fill of its partial sum
    // (whose next update reads it); the residencies are the drains out of the memory, or the
    // tensor itself where nothing drains it (the outermost memory).
    for (TensorAccesses& a : out.entries) {
      if (a.updates <= 0 || !accumulates.count({a.memory.value, a.tensor})) continue;
      const auto d = drained.find({a.memory.value, a.tensor});
      const double residencies =
          d != drained.end() ? d->second : p_.tensor_bytes[a.tensor] / p_.element_bytes[a.tensor];
      a.read_modify_writes = std::max(0.0, a.updates - residencies + a.fills);
      a.reads += a.read_modify_writes;
    }
    for (const ProgramNode& node : p_.nodes)
      if (node.kind == MappingNodeKind::op && node.stage >= 0)
        out.operations += p_.op->stage_points(p_.op->stages[static_cast<size_t>(node.stage)]);
  }

 private:
  const MappingProgram& p_;
  AnalysisScratch& e_;
  const ArchitectureGraph& g_;
};

}  // namespace

void prepare(const MappingProgram& program, AnalysisScratch& eval) {
  const size_t n = program.nodes.size();
  eval.nodes.assign(n, NodeScratch{});
  eval.reports.assign(n, NodeReport{});
  eval.mode_stride = 1 << program.ndims;
  eval.memo.assign(n * static_cast<size_t>(eval.mode_stride), AnalysisScratch::Memo{});
  eval.stamp = 0;
  eval.edge_bytes.assign(program.graph->edges.size(), 0.0);
  eval.memory_usage.assign(program.memories.size(), 0.0);
  eval.buffer_bytes.assign(n * static_cast<size_t>(program.ntensors), 0.0);
  eval.memory_usage_scratch.assign(program.memories.size() * n, 0.0);
  eval.memory_index.assign(program.graph->nodes.size(), -1);
  for (size_t k = 0; k < program.memories.size(); ++k)
    eval.memory_index[program.memories[k].index()] = static_cast<int>(k);
  const ArchitectureGraph& g = *program.graph;
  eval.shared_edges.clear();
  for (EdgeId k : g.edge_ids())
    if (g.edge(k).sharing == EdgeSharing::shared) eval.shared_edges.push_back(k);
  eval.read_back_bytes.assign(program.graph->nodes.size(), 0.0);
  // What apply_ports sums: the memories a node's loads leave, its stores enter, and those a
  // reduction on the way reads back from (the `to` of every edge of a store's path).
  auto limits_port = [&](NodeId m) {
    return m.valid() && (g.node(m).port_bytes_per_s > 0 || g.node(m).read_port_bytes_per_s > 0);
  };
  eval.meets_port.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const ProgramNode& node = program.nodes[i];
    bool meets = false;
    for (const Flow& f : node.loads) meets = meets || limits_port(f.from_memory);
    for (const Flow& f : node.stores) {
      meets = meets || limits_port(f.to_memory);
      for (EdgeId edge : f.path) meets = meets || limits_port(g.edge(edge).to);
    }
    eval.meets_port[i] = meets ? 1 : 0;
  }
  eval.ports.clear();
  for (NodeId m : g.node_ids()) {
    const ArchNode& memory = g.node(m);
    if (memory.port_bytes_per_s <= 0 && memory.read_port_bytes_per_s <= 0 &&
        memory.write_port_bytes_per_s <= 0)
      continue;
    AnalysisScratch::Port port;
    port.memory = m;
    port.bytes_per_s = memory.port_total_bytes_per_s(memory.port_bytes_per_s);
    port.read_bytes_per_s = memory.port_total_bytes_per_s(memory.read_port_bytes_per_s);
    port.write_bytes_per_s = memory.port_total_bytes_per_s(memory.write_port_bytes_per_s);
    for (EdgeId k : g.edge_ids()) {
      if (g.edge(k).from == m || g.edge(k).to == m) port.edges.push_back(k);
      if (g.edge(k).from == m) port.out_edges.push_back(k);
      if (g.edge(k).to == m) port.in_edges.push_back(k);
    }
    if (!port.edges.empty()) eval.ports.push_back(std::move(port));
  }
}

double evaluate(const MappingProgram& program, AnalysisScratch& eval) {
  if (eval.nodes.size() != program.nodes.size()) prepare(program, eval);
  return Evaluator(program, eval).run();
}

double traffic_floor(const MappingProgram& program, AnalysisScratch& eval) {
  if (eval.nodes.size() != program.nodes.size()) prepare(program, eval);
  return Evaluator(program, eval).traffic_floor();
}

double evaluate_after_floor(const MappingProgram& program, AnalysisScratch& eval) {
  return Evaluator(program, eval).after_floor();
}

const TensorAccesses* AccessCounts::find(NodeId memory, int tensor) const {
  for (const TensorAccesses& a : entries)
    if (a.memory == memory && a.tensor == tensor) return &a;
  return nullptr;
}

AccessCounts access_counts(const MappingProgram& program, const AnalysisScratch& eval) {
  AccessCounts out;
  // accesses() only reads the scratch; the Evaluator holds it as the timing steps write it.
  if (eval.valid()) Evaluator(program, const_cast<AnalysisScratch&>(eval)).accesses(out);
  return out;
}

}  // namespace ts
