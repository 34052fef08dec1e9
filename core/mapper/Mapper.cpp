#include "mapper/Mapper.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "analysis/TailChain.hpp"
#include "analysis/TileAnalysis.hpp"
#include "common/CheckedArithmetic.hpp"
#include "mapper/ComputeFloor.hpp"

namespace ts {
namespace {

enum class FactorKind { temporal, spatial, op };

// Where one factor of a dimension sits on the primary path: a tile's temporal or spatial loop,
// or an op's block. A dimension's chain of sites multiplies out to its size.
struct FactorSite {
  int node = -1;
  FactorKind kind = FactorKind::temporal;
};

struct DimChain {
  int dim = -1;
  std::vector<FactorSite> sites;  // root to leaf along the primary path
  int absorb = -1;                // the site that takes whatever the inner sites leave
  // Per site: the variable that chooses it (-1: none) and otherwise its full count. A point is
  // built from these alone, never from a previous point's program, so that scores do not
  // depend on which thread evaluated what before.
  std::vector<int> site_var;
  std::vector<int64_t> base_full;
  // Per site: inside a part of a `tails: padded` memory (at or below such a tile), where a
  // factor the template fixes is the block's extent whatever the problem's size (a thread block
  // of 128 rows computes 128 where M is 24).
  std::vector<bool> in_padded_part;
};

struct Variable {
  // A factor choice (dim chain site), a loop order choice (node), whether a node's buffers
  // are doubled (node; values 0 and 1), or whether a node keeps a tensor (node and tensor;
  // values 1 keep and 0 refetch).
  bool is_order = false;
  bool is_buffering = false;
  bool is_keep = false;
  int chain = -1;
  int site = -1;
  int node = -1;
  int tensor = -1;
  std::vector<int64_t> values;
  std::vector<std::array<uint8_t, kMaxDims>> orders;
  size_t count() const { return is_order ? orders.size() : values.size(); }
};

template <typename Program>
auto& factor_at(Program& p, const FactorSite& s, int d) {
  auto& n = p.nodes[static_cast<size_t>(s.node)];
  switch (s.kind) {
    case FactorKind::temporal:
      return n.temporal[d];
    case FactorKind::spatial:
      return n.spatial[d];
    case FactorKind::op:
      return n.op_factor[d];
  }
  return n.temporal[d];
}

bool site_free(const MappingProgram& p, const FactorSite& s, int d) {
  const ProgramNode& n = p.nodes[static_cast<size_t>(s.node)];
  switch (s.kind) {
    case FactorKind::temporal:
      return n.temporal_free[d];
    case FactorKind::spatial:
      return n.spatial_free[d];
    case FactorKind::op:
      return n.op_free[d];
  }
  return false;
}

std::vector<int64_t> candidate_values(int64_t limit, bool spatial, int64_t granule) {
  std::vector<int64_t> v{1};
  for (int64_t base : {int64_t(1), int64_t(3), int64_t(5)}) {
    if (base == 5 && !spatial) continue;
    for (int64_t x = base; x <= limit; x *= 2) v.push_back(x);
  }
  if (spatial && limit > 1) v.push_back(limit);
  for (auto& x : v) x *= granule;
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

class SearchSpace {
 public:
  explicit SearchSpace(const MappingProgram& t) : tmpl_(t) {
    build_path();
    build_twin_tiles();
    build_chains();
    build_orders();
    build_buffering();
    build_keep();
    for (DimChain& c : chains_) {
      c.site_var.assign(c.sites.size(), -1);
      c.base_full.resize(c.sites.size());
      for (size_t k = 0; k < c.sites.size(); ++k)
        c.base_full[k] = factor_at(tmpl_, c.sites[k], c.dim).full;
    }
    for (size_t k = 0; k < vars_.size(); ++k)
      if (vars_[k].chain >= 0)
        chains_[static_cast<size_t>(vars_[k].chain)].site_var[static_cast<size_t>(vars_[k].site)] =
            static_cast<int>(k);
    for (const auto& f : fixed_)
      chains_[static_cast<size_t>(f.chain)].base_full[static_cast<size_t>(f.site)] = f.value;
    for (size_t k = 0; k < vars_.size(); ++k) {
      const Variable& v = vars_[k];
      bool placed = false;
      if (v.chain >= 0)
        for (auto& g : groups_)
          if (vars_[g.front()].chain >= 0 &&
              chains_[static_cast<size_t>(vars_[g.front()].chain)].dim ==
                  chains_[static_cast<size_t>(v.chain)].dim) {
            g.push_back(k);
            placed = true;
            break;
          }
      if (!placed) groups_.push_back({k});
    }
  }

  const std::vector<Variable>& variables() const { return vars_; }
  // Variables that the descent changes together: those of one dimension, or one loop order.
  const std::vector<std::vector<size_t>>& groups() const { return groups_; }
  double size() const {
    double s = 1;
    for (const auto& v : vars_) s *= static_cast<double>(v.count());
    return s;
  }

  // Writes a point into a program (a copy of the template). False when no tails can make the
  // chosen factors cover a dimension.
  bool apply(const std::vector<uint32_t>& point, MappingProgram& p) const {
    for (size_t i = 0; i < vars_.size(); ++i) {
      const Variable& v = vars_[i];
      if (v.is_order) p.nodes[static_cast<size_t>(v.node)].order = v.orders[point[i]];
      if (v.is_buffering) p.nodes[static_cast<size_t>(v.node)].double_buffer = v.values[point[i]];
      if (v.is_keep)
        p.nodes[static_cast<size_t>(v.node)].keep[static_cast<size_t>(v.tensor)] =
            v.values[point[i]] ? KeepChoice::keep : KeepChoice::refetch;
    }
    std::array<Factor, 16> chain{};
    for (const DimChain& c : chains_) {
      if (c.absorb < 0) continue;
      const size_t n = c.sites.size() - static_cast<size_t>(c.absorb);
      if (n > chain.size()) return false;
      for (size_t k = 0; k < n; ++k) {
        const size_t site = static_cast<size_t>(c.absorb) + k;
        const int var = c.site_var[site];
        chain[k] = Factor::exact(
            var >= 0 ? vars_[static_cast<size_t>(var)].values[point[static_cast<size_t>(var)]]
                     : c.base_full[site]);
      }
      if (!make_tail_chain(tmpl_.size[c.dim], std::span<Factor>(chain.data(), n))) return false;
      for (size_t k = 0; k < n; ++k) {
        Factor f = chain[k];
        f.free = false;
        // Where every level above runs once, the chain makes a fixed factor the problem's size
        // (only its tail runs); in a padded part it stays the block's extent, with that tail.
        const size_t site = static_cast<size_t>(c.absorb) + k;
        if (c.in_padded_part[site] && !site_free(tmpl_, c.sites[site], c.dim) &&
            f.full < c.base_full[site])
          f.full = c.base_full[site];
        factor_at(p, c.sites[site], c.dim) = f;
      }
    }
    // Tiles of a scope beside the primary path's one, in the same memory, run its tile: the
    // chains follow the primary path alone, so a tail the chain puts there (2 rows as 2/1 where
    // the problem has 1) must reach the siblings too.
    for (const auto& [from, to] : twin_tiles_) {
      const ProgramNode& on = p.nodes[static_cast<size_t>(from)];
      ProgramNode& other = p.nodes[static_cast<size_t>(to)];
      other.temporal = on.temporal;
      other.spatial = on.spatial;
    }
    // Ops off the primary path run the same block as the primary op.
    if (primary_op_ >= 0)
      for (size_t i = 0; i < p.nodes.size(); ++i) {
        ProgramNode& n = p.nodes[i];
        if (n.kind == MappingNodeKind::op && static_cast<int>(i) != primary_op_)
          n.op_factor = p.nodes[static_cast<size_t>(primary_op_)].op_factor;
      }
    return true;
  }

  // Clears free marks on the program once choices are made.
  static void settle(MappingProgram& p) {
    for (auto& n : p.nodes) {
      n.order_free = false;
      n.double_buffer_free = false;
      for (auto& k : n.keep)
        if (k == KeepChoice::free) k = KeepChoice::keep;
      n.temporal_free.fill(false);
      n.spatial_free.fill(false);
      n.op_free.fill(false);
      for (auto* fs : {&n.temporal, &n.spatial, &n.op_factor})
        for (auto& f : *fs) f.free = false;
    }
  }

 private:
  void build_path() {
    // Primary path: root to the first op in preorder.
    for (size_t i = 0; i < tmpl_.nodes.size(); ++i)
      if (tmpl_.nodes[i].kind == MappingNodeKind::op) {
        primary_op_ = static_cast<int>(i);
        break;
      }
    for (int x = primary_op_; x >= 0; x = tmpl_.nodes[static_cast<size_t>(x)].parent)
      path_.push_back(x);
    std::reverse(path_.begin(), path_.end());
  }

  void build_chains() {
    for (int d = 0; d < tmpl_.ndims; ++d) {
      DimChain c;
      c.dim = d;
      bool padded = false;
      for (int node : path_) {
        const ProgramNode& n = tmpl_.nodes[static_cast<size_t>(node)];
        if (n.kind == MappingNodeKind::tile) {
          padded = padded || n.padded_tails;
          c.sites.push_back({node, FactorKind::temporal});
          c.sites.push_back({node, FactorKind::spatial});
          c.in_padded_part.insert(c.in_padded_part.end(), 2, padded);
        } else if (n.kind == MappingNodeKind::op) {
          c.sites.push_back({node, FactorKind::op});
          c.in_padded_part.push_back(padded);
        }
      }
      for (size_t k = 0; k < c.sites.size(); ++k) {
        if (!site_free(tmpl_, c.sites[k], d)) continue;
        if (c.sites[k].kind == FactorKind::op) continue;
        c.absorb = static_cast<int>(k);
        break;
      }
      const int chain_index = static_cast<int>(chains_.size());
      chains_.push_back(c);
      if (c.absorb < 0) continue;
      const int64_t size = tmpl_.size[d];
      for (size_t k = static_cast<size_t>(c.absorb) + 1; k < c.sites.size(); ++k) {
        const FactorSite& s = c.sites[k];
        if (!site_free(tmpl_, s, d)) continue;
        // The fixed factors below a free one are written in the mapping file and may be
        // anything up to 2^63-1: their product is checked, and an overflow is an error at the
        // factor's node (no such product can cover a dimension, which is at most
        // kLargestDimensionSize).
        int64_t inner = 1;
        std::string written;
        for (size_t j = k + 1; j < c.sites.size(); ++j) {
          const int64_t factor = factor_at(tmpl_, c.sites[j], d).full;
          if (site_free(tmpl_, c.sites[j], d) || factor == 1) continue;  // a 1 changes nothing
          multiply_checked(
              inner, written, {factor, tmpl_.nodes[static_cast<size_t>(c.sites[j].node)].where},
              fmt::format("fixed factors of dimension '{}' under a free one:", dimension_name(d)));
        }
        // ceil(size / inner) without size + inner - 1, which passes 64 bits for a large inner.
        const int64_t limit = std::max<int64_t>(1, size / inner + (size % inner != 0 ? 1 : 0));
        Variable v;
        v.chain = chain_index;
        v.site = static_cast<int>(k);
        v.values = candidate_values(limit, s.kind == FactorKind::spatial, 1);
        if (s.kind == FactorKind::spatial) {
          // More than the instances would only add waves; keep a few such values.
          const int64_t instances = spatial_instances(s.node);
          std::vector<int64_t> kept;
          for (int64_t x : v.values)
            if (x <= instances || x == limit ||
                (x <= checked_mul(4, instances).value_or(std::numeric_limits<int64_t>::max()) &&
                 (x % instances == 0 || std::has_single_bit(static_cast<uint64_t>(x)))))
              kept.push_back(x);
          v.values = kept;
        }
        if (v.values.size() > 1)
          vars_.push_back(std::move(v));
        else if (!v.values.empty())
          fixed_.push_back({chain_index, static_cast<int>(k), v.values[0]});
      }
    }
  }

  // Tiles of a scope on the primary path paired with their identical siblings (same memory,
  // same loops in the template): fixed by the template, so found once, not at every point.
  void build_twin_tiles() {
    for (size_t k = 1; k < path_.size(); ++k) {
      const ProgramNode& on = tmpl_.nodes[static_cast<size_t>(path_[k])];
      const ProgramNode& parent = tmpl_.nodes[static_cast<size_t>(path_[k - 1])];
      if (on.kind != MappingNodeKind::tile || parent.kind != MappingNodeKind::scope) continue;
      for (int sibling : parent.children) {
        const ProgramNode& other = tmpl_.nodes[static_cast<size_t>(sibling)];
        if (sibling != path_[k] && other.kind == MappingNodeKind::tile &&
            other.memory == on.memory && same_factors(sibling, path_[k]))
          twin_tiles_.emplace_back(path_[k], sibling);
      }
    }
  }

  // Whether two tiles of the template have the same loops (and may run the same tile).
  bool same_factors(int a, int b) const {
    const ProgramNode& x = tmpl_.nodes[static_cast<size_t>(a)];
    const ProgramNode& y = tmpl_.nodes[static_cast<size_t>(b)];
    auto same = [](const Factor& f, const Factor& g) {
      return f.full == g.full && f.tail == g.tail && f.free == g.free;
    };
    for (int d = 0; d < tmpl_.ndims; ++d)
      if (!same(x.temporal[d], y.temporal[d]) || !same(x.spatial[d], y.spatial[d])) return false;
    return true;
  }

  std::string dimension_name(int d) const {
    return tmpl_.op != nullptr ? tmpl_.op->dims[static_cast<size_t>(d)].name : std::to_string(d);
  }

  int64_t spatial_instances(int node) const {
    const ProgramNode& n = tmpl_.nodes[static_cast<size_t>(node)];
    for (int c : n.children)
      if (tmpl_.nodes[static_cast<size_t>(c)].kind != MappingNodeKind::trans)
        return tmpl_.nodes[static_cast<size_t>(c)].spread_instances;
    return 1;
  }

  void build_orders() {
    for (size_t i = 0; i < tmpl_.nodes.size(); ++i) {
      const ProgramNode& n = tmpl_.nodes[i];
      if (n.kind != MappingNodeKind::tile || !n.order_free) continue;
      std::vector<uint8_t> active, rest;
      for (int k = 0; k < tmpl_.ndims; ++k) {
        const int d = n.order[k];
        if (n.temporal_free[d] || n.temporal[d].full > 1)
          active.push_back(static_cast<uint8_t>(d));
        else
          rest.push_back(static_cast<uint8_t>(d));
      }
      if (active.size() <= 1) continue;
      std::sort(active.begin(), active.end());
      Variable v;
      v.is_order = true;
      v.node = static_cast<int>(i);
      do {
        std::array<uint8_t, kMaxDims> order{};
        size_t k = 0;
        for (uint8_t d : active) order[k++] = d;
        for (uint8_t d : rest) order[k++] = d;
        for (int d = tmpl_.ndims; d < kMaxDims; ++d) order[k++] = static_cast<uint8_t>(d);
        v.orders.push_back(order);
      } while (std::next_permutation(active.begin(), active.end()));
      vars_.push_back(std::move(v));
    }
  }

  // A tile whose double buffering is left free: with it the tile holds half as much but hides
  // its loads; without it, twice as much but in turn (a cube's L0C holding one large block).
  void build_buffering() {
    for (size_t i = 0; i < tmpl_.nodes.size(); ++i) {
      const ProgramNode& n = tmpl_.nodes[i];
      if (n.kind != MappingNodeKind::tile || !n.double_buffer_free) continue;
      Variable v;
      v.is_buffering = true;
      v.node = static_cast<int>(i);
      v.values = {0, 1};
      vars_.push_back(std::move(v));
    }
  }

  // A tile or op whose keep of a tensor is left free (`keep: {B: "?"}`). Keep is tried first: it
  // never moves more bytes, so refetch wins only where it scores better.
  void build_keep() {
    for (size_t i = 0; i < tmpl_.nodes.size(); ++i) {
      const ProgramNode& n = tmpl_.nodes[i];
      if (n.kind != MappingNodeKind::tile && n.kind != MappingNodeKind::op) continue;
      for (int t = 0; t < tmpl_.ntensors; ++t) {
        if (n.keep[static_cast<size_t>(t)] != KeepChoice::free) continue;
        Variable v;
        v.is_keep = true;
        v.node = static_cast<int>(i);
        v.tensor = t;
        v.values = {1, 0};
        vars_.push_back(std::move(v));
      }
    }
  }

  struct Fixed {
    int chain, site;
    int64_t value;
  };
  const MappingProgram& tmpl_;
  std::vector<int> path_;
  int primary_op_ = -1;
  std::vector<std::pair<int, int>> twin_tiles_;  // (primary-path tile, identical sibling)
  std::vector<DimChain> chains_;
  std::vector<Variable> vars_;
  std::vector<std::vector<size_t>> groups_;
  std::vector<Fixed> fixed_;

 public:
  void apply_fixed(MappingProgram& p) const {
    for (const auto& f : fixed_) {
      const DimChain& c = chains_[static_cast<size_t>(f.chain)];
      factor_at(p, c.sites[static_cast<size_t>(f.site)], c.dim) = Factor::exact(f.value);
    }
  }
  // The factor a factor variable chooses, as a program of the template's tree has it.
  int64_t factor_of(const Variable& v, const MappingProgram& p) const {
    const DimChain& c = chains_[static_cast<size_t>(v.chain)];
    return factor_at(p, c.sites[static_cast<size_t>(v.site)], c.dim).full;
  }
};

struct Worker {
  MappingProgram program;
  AnalysisScratch eval;
  std::vector<uint32_t> point;
  // Since the last Search::collect: points evaluated in full, and skipped by their floor.
  uint64_t evaluated = 0;
  uint64_t pruned = 0;
  uint64_t pruned_by_traffic = 0;  // of `pruned`, those the compute floor let through
};

struct Best {
  double time = std::numeric_limits<double>::infinity();
  uint64_t index = std::numeric_limits<uint64_t>::max();
};

bool before(const Best& a, const Best& b) {
  return a.time < b.time || (a.time == b.time && a.index < b.index);
}

// The best few (time, index) pairs, sorted; merging is deterministic whatever the split.
struct TopK {
  static constexpr size_t kMax = 8;
  std::array<Best, kMax> entries{};
  size_t size = 0;
  size_t capacity = 1;

  void offer(const Best& b) {
    if (!std::isfinite(b.time)) return;
    if (size == capacity && !before(b, entries[size - 1])) return;
    size_t k = size < capacity ? size++ : size - 1;
    while (k > 0 && before(b, entries[k - 1])) {
      entries[k] = entries[k - 1];
      --k;
    }
    entries[k] = b;
  }
  Best best() const { return size > 0 ? entries[0] : Best{}; }
  // What a point must beat to enter: a point whose floor is above it cannot.
  double entry_time() const {
    return size == capacity ? entries[size - 1].time : std::numeric_limits<double>::infinity();
  }
};

TopK merged(TopK a, const TopK& b) {
  for (size_t k = 0; k < b.size; ++k) a.offer(b.entries[k]);
  return a;
}

class Search {
  static constexpr size_t kStarts = 64;
  static constexpr uint64_t kMaxGroupPoints = 4096;
  static constexpr uint64_t kMaxCrossPoints = 1024;
  // Sweeps that prune run in blocks, in order, each pruned against the best of the blocks
  // before it: a threshold fixed per block keeps the result independent of the threads.
  static constexpr uint64_t kBlock = uint64_t(1) << 14;
  static constexpr uint64_t kFirstBlock = 256;

 public:
  Search(const MappingProgram& t, const MapperOptions& o)
      : tmpl_(t), options_(o), space_(t), floor_(t), workers_([this] {
          Worker w{tmpl_, {}, {}};
          space_.apply_fixed(w.program);
          prepare(w.program, w.eval);
          w.point.assign(space_.variables().size(), 0);
          return w;
        }) {}

  MapperResult run() {
    MapperResult result;
    const auto& vars = space_.variables();
    result.space_size = space_.size();
    // Every point worth returning, with its time: the best is the first after sorting.
    std::vector<std::pair<double, std::vector<uint32_t>>> found;

    // The start's objective value (its time in a latency search) and its device time.
    double start_s = std::numeric_limits<double>::infinity();
    double start_device_s = start_s;
    std::vector<uint32_t> start_point;
    if (options_.start && same_tree(*options_.start)) {
      AnalysisScratch e;
      start_device_s = evaluate(*options_.start, e);
      start_s = objective_value(options_.objective, *options_.start, e, start_device_s);
      ++evaluations_;
      start_point = project(*options_.start);
    }

    if (result.space_size <= static_cast<double>(options_.budget)) {
      result.exhaustive = true;
      const uint64_t n = static_cast<uint64_t>(result.space_size);
      TopK top;
      top.capacity = std::clamp<size_t>(options_.keep, 1, TopK::kMax);
      // Blocks that grow from small: an early threshold prunes most of what follows.
      for (uint64_t b = 0, size = kFirstBlock; b < n && !cancelled();
           b += size, size = std::min(2 * size, kBlock))
        top = merged(top, reduce(
                              b, std::min(n, b + size),
                              [&](uint64_t i, std::vector<uint32_t>& pt) { decode(i, pt); },
                              top.entry_time(), top.capacity));
      if (cancelled()) return stopped(std::move(result));
      collect();
      for (size_t k = 0; k < top.size; ++k) {
        std::vector<uint32_t> pt(vars.size());
        decode(top.entries[k].index, pt);
        found.push_back({top.entries[k].time, std::move(pt)});
      }
    } else {
      // A quarter of the budget's draws sample the space uniformly. The draws do not depend on
      // the graph, so that a faster graph sees the same candidates; the descent then spends the
      // rest from the best of them.
      const uint64_t samples = std::max<uint64_t>(1, options_.budget / 4);
      std::vector<double> times(samples, std::numeric_limits<double>::infinity());
      // Pruned against the kStarts-th best sample so far: only starts matter.
      std::vector<double> leaders;
      for (uint64_t b = 0; b < samples && !cancelled(); b += kBlock) {
        const uint64_t e = std::min(samples, b + kBlock);
        const double threshold =
            leaders.size() < kStarts ? std::numeric_limits<double>::infinity() : leaders.back();
        run_range(b, e, [&](uint64_t i, Worker& w) {
          draw(i, w.point);
          times[i] = score(w, threshold);
        });
        for (uint64_t i = b; i < e; ++i)
          if (std::isfinite(times[i])) leaders.push_back(times[i]);
        std::sort(leaders.begin(), leaders.end());
        if (leaders.size() > kStarts) leaders.resize(kStarts);
      }
      if (cancelled()) return stopped(std::move(result));
      collect();
      std::vector<uint64_t> order;
      for (uint64_t i = 0; i < samples; ++i)
        if (std::isfinite(times[i])) order.push_back(i);
      std::sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
        return times[a] < times[b] || (times[a] == times[b] && a < b);
      });
      // Descend to a local optimum from the start point, then from the kStarts best samples in
      // turn, until the best stops improving or the budget ends: one start alone often settles
      // in the basin of a poor loop order. (Pruned samples rank below the kStarts best, so
      // pruning never changes the starts.)
      auto descend_from = [&](std::vector<uint32_t> point, double time) {
        if (options_.keep > 1) found.push_back({time, point});
        descend(point, time, false);
        note(time);
        found.push_back({time, std::move(point)});
      };
      if (!start_point.empty()) {
        Worker& w = workers_.local();
        w.point = start_point;
        const double t = score(w, std::numeric_limits<double>::infinity());
        collect();
        note(t);
        if (std::isfinite(t)) descend_from(start_point, t);
      }
      // The samples' best is new at the end of the sampling: patience counts from there.
      if (!order.empty()) {
        best_s_ = std::min(best_s_, times[order.front()]);
        last_improvement_ = evaluations_;
      }
      // Where no draw fits (scratchpads of a few words against a GEMM of 10^13 points: almost
      // every random tile overflows one), start from the smallest tiles: every free factor 1
      // under the outermost level, which takes the dimension whole, single buffers, nothing
      // kept. If any point fits that one does, and the descent grows the tiles from there.
      if (order.empty() && start_point.empty() && !cancelled()) {
        last_improvement_ = evaluations_;  // patience counts from this start
        Worker& w = workers_.local();
        w.point = smallest_point();
        const double t = score(w, std::numeric_limits<double>::infinity());
        collect();
        note(t);
        if (std::isfinite(t)) descend_from(w.point, t);
      }
      std::vector<uint32_t> next(vars.size());
      for (size_t s = 0; s < std::min(order.size(), kStarts) && running(); ++s) {
        draw(order[s], next);
        note(times[order[s]]);
        descend_from(next, times[order[s]]);
      }
      // Refine around the best point: its neighbourhood (adjacent candidates, adjacent loop
      // swaps) as well as the descent's moves, until none improves.
      if (!found.empty() && evaluations_ < options_.budget && !cancelled()) {
        last_improvement_ = evaluations_;  // the refinement gets its own patience
        auto best = std::min_element(found.begin(), found.end());
        std::vector<uint32_t> point = best->second;
        double time = best->first;
        descend(point, time, true);
        note(time);
        found.push_back({time, std::move(point)});
      }
      if (cancelled()) return stopped(std::move(result));
      result.converged = evaluations_ < options_.budget || stalled();
    }
    if (result.exhaustive) result.converged = true;
    // Stable order: by time, then by the point itself, so that ties do not depend on threads.
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end(),
                            [](const auto& a, const auto& b) { return a.second == b.second; }),
                found.end());
    for (const auto& [time, point] : found) {
      if (result.ranked.size() >= std::max<size_t>(1, options_.keep)) break;
      MappingProgram p = tmpl_;
      space_.apply_fixed(p);
      if (!std::isfinite(time) || !space_.apply(point, p)) continue;
      SearchSpace::settle(p);
      AnalysisScratch eval;
      const double device_s = evaluate(p, eval);
      const double value = objective_value(options_.objective, p, eval, device_s);
      if (!std::isfinite(value)) continue;
      result.ranked.push_back(std::move(p));
      result.ranked_device_s.push_back(device_s);
      result.ranked_score.push_back(value);
    }
    // The start stays unless something is strictly faster (better, by the objective): the same
    // question on a faster graph never gets a slower answer than the one shown.
    if (std::isfinite(start_s) &&
        (result.ranked.empty() || start_s <= result.ranked_score.front())) {
      result.ranked.insert(result.ranked.begin(), *options_.start);
      result.ranked_device_s.insert(result.ranked_device_s.begin(), start_device_s);
      result.ranked_score.insert(result.ranked_score.begin(), start_s);
      if (result.ranked.size() > std::max<size_t>(1, options_.keep)) {
        result.ranked.pop_back();
        result.ranked_device_s.pop_back();
        result.ranked_score.pop_back();
      }
      result.from_start = true;
    }
    result.evaluations = evaluations_;
    result.pruned = pruned_;
    result.pruned_by_traffic = pruned_by_traffic_;
    if (!result.ranked.empty()) {
      result.program = result.ranked.front();
      result.device_s = result.ranked_device_s.front();
      result.score = result.ranked_score.front();
      result.found = true;
    } else {
      result.program = tmpl_;
      space_.apply_fixed(result.program);
    }
    return result;
  }

  // Uniform draws over the space, kept when valid and not far slower than the reference.
  std::vector<MappingProgram> sample(size_t count, uint64_t seed, double limit_s,
                                     uint64_t max_tries) {
    const auto& vars = space_.variables();
    std::vector<MappingProgram> out;
    std::vector<std::vector<uint32_t>> seen;
    Worker& w = workers_.local();
    for (uint64_t i = 0; i < max_tries && out.size() < count; ++i) {
      uint64_t h = splitmix(seed ^ (i * 0x9e3779b97f4a7c15ull));
      for (size_t k = 0; k < vars.size(); ++k) {
        h = splitmix(h);
        w.point[k] = static_cast<uint32_t>(h % vars[k].count());
      }
      if (std::find(seen.begin(), seen.end(), w.point) != seen.end()) continue;
      const double t = score(w, std::numeric_limits<double>::infinity());
      if (!std::isfinite(t) || (limit_s > 0 && t > limit_s)) continue;
      seen.push_back(w.point);
      MappingProgram p = tmpl_;
      space_.apply_fixed(p);
      space_.apply(w.point, p);
      SearchSpace::settle(p);
      out.push_back(std::move(p));
    }
    return out;
  }

 private:
  bool cancelled() const {
    return options_.cancel && options_.cancel->load(std::memory_order_relaxed);
  }

  // The best has not improved over the patience's share of the budget.
  bool stalled() const {
    return options_.patience > 0 && static_cast<double>(evaluations_ - last_improvement_) >=
                                        options_.patience * static_cast<double>(options_.budget);
  }

  bool running() const { return evaluations_ < options_.budget && !stalled() && !cancelled(); }

  void note(double time) {
    if (time < best_s_) {
      best_s_ = time;
      last_improvement_ = evaluations_;
    }
  }

  // Adds up what the workers evaluated and pruned since the last call (the totals do not depend
  // on which thread did what).
  void collect() {
    for (Worker& w : workers_) {
      evaluations_ += w.evaluated;
      pruned_ += w.pruned;
      pruned_by_traffic_ += w.pruned_by_traffic;
      w.evaluated = w.pruned = w.pruned_by_traffic = 0;
    }
  }

  // A cancelled search returns no mapping: the points it scored are a partial sample, and a
  // caller that cancelled has moved on.
  MapperResult stopped(MapperResult result) const {
    result.cancelled = true;
    result.evaluations = cancel_counted_.load();
    result.program = tmpl_;
    space_.apply_fixed(result.program);
    return result;
  }

  bool same_tree(const MappingProgram& p) const {
    if (p.nodes.size() != tmpl_.nodes.size() || p.ndims != tmpl_.ndims) return false;
    // The same buffers too: a tile that bypasses a tensor here moves it by other flows.
    for (size_t i = 0; i < p.nodes.size(); ++i)
      if (p.nodes[i].kind != tmpl_.nodes[i].kind || p.nodes[i].buffer != tmpl_.nodes[i].buffer)
        return false;
    return true;
  }

  // The point of the space nearest to a concrete program of the template's tree: each choice
  // its value there, or the candidate nearest to it (by ratio) where the value is not one.
  std::vector<uint32_t> project(const MappingProgram& p) const {
    const auto& vars = space_.variables();
    std::vector<uint32_t> pt(vars.size(), 0);
    for (size_t k = 0; k < vars.size(); ++k) {
      const Variable& v = vars[k];
      const ProgramNode& n = p.nodes[static_cast<size_t>(v.node >= 0 ? v.node : 0)];
      if (v.is_order) {
        for (size_t j = 0; j < v.orders.size(); ++j)
          if (std::equal(v.orders[j].begin(), v.orders[j].begin() + tmpl_.ndims, n.order.begin()))
            pt[k] = static_cast<uint32_t>(j);
        continue;
      }
      const int64_t value = v.is_buffering ? int64_t(n.double_buffer) : space_.factor_of(v, p);
      double nearest = std::numeric_limits<double>::infinity();
      for (size_t j = 0; j < v.values.size(); ++j) {
        const double gap =
            v.is_buffering ? std::abs(static_cast<double>(v.values[j] - value))
                           : std::abs(std::log(static_cast<double>(v.values[j]) /
                                               static_cast<double>(std::max<int64_t>(1, value))));
        if (gap < nearest) nearest = gap, pt[k] = static_cast<uint32_t>(j);
      }
    }
    return pt;
  }

  // The point of the smallest footprint: each factor's smallest candidate, buffers single and
  // tensors refetched rather than kept, the first loop order.
  std::vector<uint32_t> smallest_point() const {
    const auto& vars = space_.variables();
    std::vector<uint32_t> pt(vars.size(), 0);
    for (size_t k = 0; k < vars.size(); ++k) {
      const Variable& v = vars[k];
      if (v.is_order) continue;
      const auto& values = v.values;
      const int64_t want =
          v.is_buffering || v.is_keep ? 0 : *std::min_element(values.begin(), values.end());
      pt[k] = static_cast<uint32_t>(std::find(values.begin(), values.end(), want) - values.begin());
    }
    return pt;
  }

  void draw(uint64_t i, std::vector<uint32_t>& pt) const {
    const auto& vars = space_.variables();
    uint64_t h = splitmix(options_.seed ^ (i * 0x2545f4914f6cdd1dull));
    for (size_t k = 0; k < vars.size(); ++k) {
      h = splitmix(h);
      pt[k] = static_cast<uint32_t>(h % vars[k].count());
    }
  }

  // Calls each(i) for i in [begin, end); with a cancel flag, looks at it every
  // kCancelPollEvaluations calls and counts the calls made.
  template <typename Each>
  void evaluate_range(uint64_t begin, uint64_t end, Each&& each) {
    if (!options_.cancel) {
      for (uint64_t i = begin; i != end; ++i) each(i);
      return;
    }
    for (uint64_t i = begin; i != end;) {
      if (cancelled()) return;
      const uint64_t stop = std::min(end, i + kCancelPollEvaluations);
      cancel_counted_.fetch_add(stop - i, std::memory_order_relaxed);
      for (; i != stop; ++i) each(i);
    }
  }

  void decode(uint64_t index, std::vector<uint32_t>& pt) const {
    const auto& vars = space_.variables();
    for (size_t k = 0; k < vars.size(); ++k) {
      const uint64_t c = vars[k].count();
      pt[k] = static_cast<uint32_t>(index % c);
      index /= c;
    }
  }

  // The point's device time, or +infinity when it is invalid or a floor under its time is above
  // `threshold` (it cannot beat a point already found: not evaluated). The floor is the larger
  // of the compute floor and the traffic floor; the compute floor costs a few multiplications
  // and goes first, the traffic floor (the first step of an evaluation: extents, capacity and
  // the traffic count, without the tree's timing) only once there is a threshold to beat. A
  // point the traffic floor lets through is finished from where the floor left it, so the floor
  // costs next to nothing.
  //
  // Under the energy and EDP objectives the score is that objective's value, priced from the
  // point's access counts, and nothing is pruned: a point that cannot be faster may still use
  // less energy, so every point the search visits is evaluated and priced in full.
  double score(Worker& w, double threshold) {
    if (!space_.apply(w.point, w.program)) return std::numeric_limits<double>::infinity();
    if (options_.objective != MapperObjective::latency) {
      ++w.evaluated;
      return evaluate_objective(options_.objective, w.program, w.eval);
    }
    if (options_.prune && floor_.seconds(w.program) > threshold) {
      ++w.pruned;
      return std::numeric_limits<double>::infinity();
    }
    if (options_.prune && std::isfinite(threshold)) {
      // An invalid point (infinite floor) counts as evaluated, as it does without pruning.
      const double floor = traffic_floor(w.program, w.eval);
      if (floor > threshold && w.eval.valid()) {
        ++w.pruned;
        ++w.pruned_by_traffic;
        return std::numeric_limits<double>::infinity();
      }
      ++w.evaluated;
      return evaluate_after_floor(w.program, w.eval);  // the traffic is counted once
    }
    ++w.evaluated;
    return evaluate(w.program, w.eval);
  }

  template <typename Decode>
  TopK reduce(uint64_t begin, uint64_t end, Decode&& make_point, double threshold,
              size_t keep = 1) {
    TopK empty;
    empty.capacity = std::clamp<size_t>(keep, 1, TopK::kMax);
    auto body = [&](const tbb::blocked_range<uint64_t>& r, TopK acc) {
      Worker& w = workers_.local();
      evaluate_range(r.begin(), r.end(), [&](uint64_t i) {
        make_point(i, w.point);
        acc.offer(Best{score(w, threshold), i});
      });
      return acc;
    };
    if (!options_.parallel) return body(tbb::blocked_range<uint64_t>(begin, end), empty);
    return tbb::parallel_reduce(tbb::blocked_range<uint64_t>(begin, end, 256), empty, body, merged);
  }

  template <typename Body>
  void run_range(uint64_t begin, uint64_t end, Body&& body) {
    auto chunk = [&](const tbb::blocked_range<uint64_t>& r) {
      Worker& w = workers_.local();
      evaluate_range(r.begin(), r.end(), [&](uint64_t i) { body(i, w); });
    };
    if (!options_.parallel)
      chunk(tbb::blocked_range<uint64_t>(begin, end));
    else
      tbb::parallel_for(tbb::blocked_range<uint64_t>(begin, end, 256), chunk);
  }

  // Block coordinate descent to a local optimum: change the choices of one dimension together
  // (their factors trade against each other through the tails), or one loop order, while it
  // helps. When no such move helps, pairs of choices from different dimensions are tried (a
  // block's M and N trade against each other through the capacity of the memory that holds
  // it), then the neighbourhood of the point: each choice and each pair of choices moved to
  // their adjacent candidates, loop orders by one swap of adjacent loops. It stops where none
  // of these improves, or when the budget ends or the search has stalled.
  void descend(std::vector<uint32_t>& point, double& best, bool polish) {
    const auto& groups = space_.groups();
    const auto& vars = space_.variables();
    std::vector<std::vector<size_t>> within, across;
    for (const auto& members : groups) {
      // Saturates: a dimension split over many levels of a graph has more joint choices than
      // 64 bits count, and all that matters is that they are more than kMaxGroupPoints.
      uint64_t n = 1;
      for (size_t k : members) {
        uint64_t joint = 0;
        n = __builtin_mul_overflow(n, vars[k].count(), &joint)
                ? std::numeric_limits<uint64_t>::max()
                : joint;
      }
      // A dimension split over many levels has too many joint choices to try at once: move
      // its choices two at a time then (one level's factor trades against another's).
      if (n <= kMaxGroupPoints) {
        within.push_back(members);
        continue;
      }
      for (size_t a = 0; a < members.size(); ++a)
        for (size_t b = a + 1; b < members.size(); ++b)
          if (vars[members[a]].count() * vars[members[b]].count() <= kMaxGroupPoints)
            within.push_back({members[a], members[b]});
    }
    for (size_t g = 0; g < groups.size(); ++g)
      for (size_t h = g + 1; h < groups.size(); ++h)
        for (size_t a : groups[g])
          for (size_t b : groups[h])
            if (!vars[a].is_order && !vars[b].is_order &&
                vars[a].count() * vars[b].count() <= kMaxCrossPoints)
              across.push_back({a, b});
    bool improved = std::isfinite(best);
    while (improved && running()) {
      improved = try_moves(within, point, best);
      if (!improved) improved = try_moves(across, point, best);
      if (!improved && polish) improved = try_neighbours(point, best);
    }
  }

  bool try_moves(const std::vector<std::vector<size_t>>& moves, std::vector<uint32_t>& point,
                 double& best) {
    const auto& vars = space_.variables();
    bool improved = false;
    for (const auto& move : moves) {
      if (!running()) break;
      uint64_t m = 1;
      for (size_t k : move) m *= vars[k].count();
      auto set = [&](uint64_t i, std::vector<uint32_t>& pt) {
        pt = point;
        for (size_t k : move) {
          pt[k] = static_cast<uint32_t>(i % vars[k].count());
          i /= vars[k].count();
        }
      };
      Best b = reduce(0, m, set, best).best();
      if (cancelled()) break;  // the best of a partial sweep
      collect();
      if (b.time < best) {
        std::vector<uint32_t> next;
        set(b.index, next);
        if (next != point) {
          best = b.time;
          point = next;
          improved = true;
          note(best);
        }
      }
    }
    return improved;
  }

  // The choices adjacent to a variable's current one: the next smaller and larger candidate
  // value, or for a loop order each order one swap of adjacent loops away.
  std::vector<uint32_t> adjacent(size_t k, uint32_t at) const {
    const Variable& v = space_.variables()[k];
    std::vector<uint32_t> out;
    if (!v.is_order) {
      if (at > 0) out.push_back(at - 1);
      if (at + 1 < v.count()) out.push_back(at + 1);
      return out;
    }
    const auto& here = v.orders[at];
    for (size_t j = 0; j < v.orders.size(); ++j) {
      int first = -1, differ = 0;
      for (int d = 0; d < kMaxDims; ++d)
        if (v.orders[j][d] != here[d]) first = differ++ == 0 ? d : first;
      if (differ == 2 && first + 1 < kMaxDims && v.orders[j][first] == here[first + 1] &&
          v.orders[j][first + 1] == here[first])
        out.push_back(static_cast<uint32_t>(j));
    }
    return out;
  }

  // One sweep over the neighbourhood of the point: single and paired adjacent moves.
  bool try_neighbours(std::vector<uint32_t>& point, double& best) {
    const size_t nv = space_.variables().size();
    std::vector<std::vector<uint32_t>> steps(nv);
    for (size_t k = 0; k < nv; ++k) steps[k] = adjacent(k, point[k]);
    std::vector<std::vector<uint32_t>> candidates;
    for (size_t a = 0; a < nv; ++a)
      for (uint32_t x : steps[a]) {
        candidates.push_back(point);
        candidates.back()[a] = x;
        for (size_t b = a + 1; b < nv; ++b)
          for (uint32_t y : steps[b]) {
            candidates.push_back(point);
            candidates.back()[a] = x;
            candidates.back()[b] = y;
          }
      }
    if (candidates.empty()) return false;
    auto set = [&](uint64_t i, std::vector<uint32_t>& pt) { pt = candidates[i]; };
    Best b = reduce(0, candidates.size(), set, best).best();
    if (cancelled()) return false;
    collect();
    if (!(b.time < best)) return false;
    best = b.time;
    point = candidates[b.index];
    note(best);
    return true;
  }

  const MappingProgram& tmpl_;
  MapperOptions options_;
  SearchSpace space_;
  ComputeFloor floor_;
  tbb::enumerable_thread_specific<Worker> workers_;
  uint64_t evaluations_ = 0;
  uint64_t pruned_ = 0;
  uint64_t pruned_by_traffic_ = 0;
  double best_s_ = std::numeric_limits<double>::infinity();
  uint64_t last_improvement_ = 0;  // evaluations_ when best_s_ last improved
  // Evaluations made, counted only when a cancel flag is given (the budget logic above counts
  // whole sweeps; this counts what a stopped sweep really did).
  std::atomic<uint64_t> cancel_counted_{0};
};

}  // namespace

MapperResult search_mapping(const MappingProgram& template_program, const MapperOptions& options) {
  require_energy_for(options.objective, template_program);
  return Search(template_program, options).run();
}

std::vector<MappingProgram> sample_valid_mappings(const MappingProgram& template_program,
                                                  size_t count, uint64_t seed, double reference_s,
                                                  double max_slowdown, uint64_t max_tries) {
  MapperOptions options;
  options.parallel = false;
  const double limit = reference_s > 0 && max_slowdown > 0 ? reference_s * max_slowdown : 0;
  return Search(template_program, options).sample(count, seed, limit, max_tries);
}

}  // namespace ts
