// A mapping as a loop nest (docs/host.md, "Host collector"). Every tile level iterates its
// temporal dims in its order with the step of its child tile (the product of the full factors
// below) and clips the last iteration to its own box; for a chain normalised by make_tail_chain
// that reproduces every tail factor. The one level with spatial factors splits each of its boxes
// into spatial tiles; thread t takes tiles t, t+T, ... (waves). The innermost tile's K loop and
// the op block become one micro-kernel call per register block.
#include "host/TiledGemm.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "analysis/TailChain.hpp"
#include "host/IsaKernels.hpp"
#include "host/MicroKernel.hpp"
#include "host/TileCopy.hpp"

namespace ts::host {
namespace {

// Loop axes of the kernel, whatever the operator's own dim order.
enum Axis { kBatch = 0, kRow = 1, kCol = 2, kDepth = 3, kAxes = 4 };
constexpr const char* kAxisNames[kAxes] = {"B", "M", "N", "K"};

struct Box {
  int64_t lo[kAxes];
  int64_t hi[kAxes];
};

struct Level {
  int node = -1;
  // Temporal axes that loop more than once, outermost first (a factor of 1 leaves the box as it
  // is, so its loop is skipped; so is the innermost tile's K, which the micro-kernel runs).
  int order[kAxes] = {};
  int loops = 0;
  int64_t temporal_step[kAxes] = {};
  int64_t spatial_step[kAxes] = {};  // 0: not split spatially
  bool spatial = false;
  bool innermost = false;  // its child is the op: its K loop runs inside the micro-kernel
};

}  // namespace

struct TiledGemm::Plan {
  std::vector<Level> levels;
  int64_t size[kAxes] = {1, 1, 1, 1};
  int threads = 1;
  bool parallel = false;  // some level is spatial and threads > 1
  // The instruction-set level's kernels, fixed when the plan is made: a run never mixes levels.
  const IsaKernels* isa = nullptr;
  int lanes = 1;  // fp32 lanes of one vector register of that level
  RegisterBlock block;
  int64_t block_cols = 1;  // columns of the register block actually used
  // The level whose tile is copied into contiguous per-thread buffers (A and B), or -1: the tile
  // just above the register tile, i.e. what the mapping places in L1.
  int pack_level = -1;

  void run(const float* a, const float* b, float* c, int thread, int team) const;
  struct Walk;
};

struct TiledGemm::Plan::Walk {
  const Plan& plan;
  const float* a;
  const float* b;
  float* c;
  int thread;
  int team;  // threads actually running (the runtime may give fewer than asked)

  // The A and B tiles of the packing level, copied with row strides that are not multiples of
  // 4 KiB: the mapping says the tile is held in L1, and a strided view of a matrix whose rows
  // are 4 KiB apart (N = 1024, 2048, 3072 floats) maps all its rows to a few L1 sets instead.
  // A tile whose ranges did not change since the last copy is reused, as the model reuses it.
  struct Packed {
    bool active = false;
    int64_t batch = -1, r0 = 0, r1 = 0, c0 = 0, c1 = 0, ka0 = 0, ka1 = 0, kb0 = 0, kb1 = 0;
    float* a = nullptr;
    int64_t lda = 0;
    float* b = nullptr;
    int64_t ldb = 0;
  };
  mutable Packed packed;

  static int64_t leading(int64_t extent) {
    int64_t ld = (extent + 15) / 16 * 16;
    if ((ld * static_cast<int64_t>(sizeof(float))) % 4096 == 0) ld += 16;
    return ld;
  }

  void pack(const Box& box) const {
    if (box.hi[kBatch] - box.lo[kBatch] != 1) {
      packed.active = false;
      return;
    }
    static thread_local std::vector<float> abuf, bbuf;
    const int64_t m = plan.size[kRow], n = plan.size[kCol], k = plan.size[kDepth];
    const int64_t bi = box.lo[kBatch];
    const int64_t r0 = box.lo[kRow], r1 = box.hi[kRow], c0 = box.lo[kCol], c1 = box.hi[kCol];
    const int64_t k0 = box.lo[kDepth], k1 = box.hi[kDepth];
    const bool same_batch = packed.active && packed.batch == bi;
    if (!same_batch || packed.r0 != r0 || packed.r1 != r1 || packed.ka0 != k0 || packed.ka1 != k1) {
      const int64_t lda = leading(k1 - k0);
      if (abuf.size() < static_cast<size_t>((r1 - r0) * lda + 16))
        abuf.resize(static_cast<size_t>((r1 - r0) * lda + 16));
      copy_tile(abuf.data(), lda, a + bi * m * k + r0 * k + k0, k, r1 - r0, k1 - k0);
      packed.a = abuf.data();
      packed.lda = lda;
      packed.r0 = r0, packed.r1 = r1, packed.ka0 = k0, packed.ka1 = k1;
    }
    if (!same_batch || packed.c0 != c0 || packed.c1 != c1 || packed.kb0 != k0 || packed.kb1 != k1) {
      const int64_t ldb = leading(c1 - c0);
      if (bbuf.size() < static_cast<size_t>((k1 - k0) * ldb + 16))
        bbuf.resize(static_cast<size_t>((k1 - k0) * ldb + 16));
      copy_tile(bbuf.data(), ldb, b + bi * k * n + k0 * n + c0, n, k1 - k0, c1 - c0);
      packed.b = bbuf.data();
      packed.ldb = ldb;
      packed.c0 = c0, packed.c1 = c1, packed.kb0 = k0, packed.kb1 = k1;
    }
    packed.batch = bi;
    packed.active = true;
  }

  // The box is changed in place and restored: no copy per iteration.
  void temporal(size_t li, int pos, Box& box) const {
    const Level& level = plan.levels[li];
    if (pos == level.loops) return after_temporal(li, box);
    const int ax = level.order[pos];
    const int64_t lo = box.lo[ax], hi = box.hi[ax], step = level.temporal_step[ax];
    for (int64_t x = lo; x < hi; x += step) {
      box.lo[ax] = x;
      box.hi[ax] = std::min(hi, x + step);
      temporal(li, pos + 1, box);
    }
    box.lo[ax] = lo;
    box.hi[ax] = hi;
  }

  void after_temporal(size_t li, const Box& box) const {
    const Level& level = plan.levels[li];
    if (!level.spatial) return descend(li, box);
    int64_t count[kAxes], total = 1;
    for (int ax = 0; ax < kAxes; ++ax) {
      const int64_t len = box.hi[ax] - box.lo[ax], step = level.spatial_step[ax];
      count[ax] = step > 0 ? (len + step - 1) / step : 1;
      total *= count[ax];
    }
    for (int64_t s = thread; s < total; s += team) {
      Box sub = box;
      int64_t rest = s;
      for (int ax = kAxes; ax-- > 0;) {
        const int64_t i = rest % count[ax];
        rest /= count[ax];
        if (level.spatial_step[ax] <= 0) continue;
        sub.lo[ax] = box.lo[ax] + i * level.spatial_step[ax];
        sub.hi[ax] = std::min(box.hi[ax], sub.lo[ax] + level.spatial_step[ax]);
      }
      descend(li, sub);
    }
  }

  void descend(size_t li, const Box& box) const {
    if (plan.levels[li].innermost) return kernel(box);
    if (static_cast<int>(li) + 1 == plan.pack_level) pack(box);
    Box inner = box;
    temporal(li + 1, 0, inner);
  }

  // One op block with the innermost tile's whole K range: register blocks, each one call.
  void kernel(const Box& box) const {
    const int64_t m = plan.size[kRow], n = plan.size[kCol], k = plan.size[kDepth];
    const int64_t k0 = box.lo[kDepth], kc = box.hi[kDepth] - k0;
    const bool accumulate = k0 > 0;  // every C element meets K in increasing order
    const int rows = plan.block.rows;
    const int64_t cols = plan.block_cols;
    for (int64_t bi = box.lo[kBatch]; bi < box.hi[kBatch]; ++bi) {
      const float* ab = a + bi * m * k;
      const float* bb = b + bi * k * n;
      float* cb = c + bi * m * n;
      for (int64_t i = box.lo[kRow]; i < box.hi[kRow]; i += rows) {
        const int r = static_cast<int>(std::min<int64_t>(rows, box.hi[kRow] - i));
        for (int64_t j = box.lo[kCol]; j < box.hi[kCol]; j += cols) {
          const int w = static_cast<int>(std::min<int64_t>(cols, box.hi[kCol] - j));
          const int nv = (w + plan.lanes - 1) / plan.lanes;
          const int last = w - (nv - 1) * plan.lanes;
          MicroKernel fn = plan.isa->micro_kernel(r, nv, last != plan.lanes);
          if (packed.active && packed.batch == bi)
            fn(kc, packed.a + (i - packed.r0) * packed.lda + (k0 - packed.ka0), packed.lda,
               packed.b + (k0 - packed.kb0) * packed.ldb + (j - packed.c0), packed.ldb,
               cb + i * n + j, n, last, accumulate);
          else
            fn(kc, ab + i * k + k0, k, bb + k0 * n + j, n, cb + i * n + j, n, last, accumulate);
        }
      }
    }
  }
};

namespace {

SourceLocation located(const MappingProgram& p, const ProgramNode& node) {
  SourceLocation where = node.where;
  if (where.file.empty()) where.file = p.mapping_file;
  return where;
}

std::string factor_chain_text(const std::vector<Factor>& chain) {
  std::string text;
  for (const Factor& f : chain) text += (text.empty() ? "" : " x ") + factor_text(f);
  return text;
}

}  // namespace

void TiledGemm::Plan::run(const float* a, const float* b, float* c, int thread, int team) const {
  Box root{};
  for (int ax = 0; ax < kAxes; ++ax) {
    root.lo[ax] = 0;
    root.hi[ax] = size[ax];
  }
  Walk walk{*this, a, b, c, thread, team, {}};
  if (pack_level == 0) walk.pack(root);
  walk.temporal(0, 0, root);
}

TiledGemm::TiledGemm(const MappingProgram& program, int threads) : plan_(std::make_unique<Plan>()) {
  if (!program.op || program.nodes.empty())
    throw InputError(SourceLocation{program.mapping_file, 0, 0},
                     "the tiled GEMM needs a mapping resolved against an operator");
  const Operator& op = *program.op;
  const SourceLocation root_where = located(program, program.nodes.front());
  Plan& plan = *plan_;

  // Axes by the builders' dim names; operands by their tensor names.
  int axis_of_dim[kMaxDims];
  std::fill(std::begin(axis_of_dim), std::end(axis_of_dim), -1);
  int dim_of_axis[kAxes] = {-1, -1, -1, -1};
  for (int d = 0; d < program.ndims; ++d) {
    const std::string& name = op.dims[static_cast<size_t>(d)].name;
    for (int ax = 0; ax < kAxes; ++ax)
      if (name == kAxisNames[ax]) {
        axis_of_dim[d] = ax;
        dim_of_axis[ax] = d;
      }
    if (axis_of_dim[d] < 0)
      throw InputError(root_where,
                       fmt::format("the tiled GEMM runs gemm and batched_gemm (dims M, N, K and "
                                   "B); operator '{}' has dimension '{}'",
                                   op.name, name));
  }
  for (int ax = kRow; ax < kAxes; ++ax)
    if (dim_of_axis[ax] < 0)
      throw InputError(root_where, fmt::format("the tiled GEMM needs dimension {} in operator '{}'",
                                               kAxisNames[ax], op.name));
  const bool batched = dim_of_axis[kBatch] >= 0;
  auto expect_tensor = [&](const char* name, std::vector<int> axes) {
    const int t = op.find_tensor(name);
    std::vector<int> dims;
    for (int ax : axes)
      if (dim_of_axis[ax] >= 0) dims.push_back(dim_of_axis[ax]);
    if (t < 0 || op.tensors[static_cast<size_t>(t)].dims != dims)
      throw InputError(root_where,
                       fmt::format("the tiled GEMM expects the builders' tensors A[B,M,K], "
                                   "{}[B,K,N], C[B,M,N] (B for batched_gemm only); operator '{}' "
                                   "differs at '{}'",
                                   batched ? "W" : "B", op.name, name));
  };
  expect_tensor("A", {kBatch, kRow, kDepth});
  expect_tensor(batched ? "W" : "B", {kBatch, kDepth, kCol});
  expect_tensor("C", {kBatch, kRow, kCol});
  for (int ax = 0; ax < kAxes; ++ax)
    plan.size[ax] = dim_of_axis[ax] >= 0 ? program.size[dim_of_axis[ax]] : 1;

  // The chain: tiles with one child each, ending in one op.
  std::vector<int> path;
  int op_node = -1;
  for (int id = 0;;) {
    const ProgramNode& node = program.nodes[static_cast<size_t>(id)];
    if (node.kind == MappingNodeKind::op) {
      op_node = id;
      break;
    }
    if (node.kind != MappingNodeKind::tile || node.children.size() != 1)
      throw InputError(located(program, node),
                       "the tiled GEMM runs a chain of tiles with one child each ending in one op; "
                       "scopes, transfers and siblings are not part of its kernel family");
    path.push_back(id);
    id = node.children.front();
  }
  if (path.empty())
    throw InputError(root_where, "the tiled GEMM needs at least one tile above the op");
  const ProgramNode& opn = program.nodes[static_cast<size_t>(op_node)];

  auto full = [](const Factor& f) { return std::max<int64_t>(f.full, 1); };
  // Check every dim's chain: concrete, tails no larger than their full counts (what clipping
  // reproduces), covering the dim exactly.
  for (int d = 0; d < program.ndims; ++d) {
    std::vector<Factor> chain;
    std::vector<int> owner;
    for (int id : path) {
      const ProgramNode& n = program.nodes[static_cast<size_t>(id)];
      chain.push_back(n.temporal[d]);
      chain.push_back(n.spatial[d]);
      owner.push_back(id);
      owner.push_back(id);
    }
    chain.push_back(opn.op_factor[d]);
    owner.push_back(op_node);
    for (size_t i = 0; i < chain.size(); ++i) {
      const Factor& f = chain[i];
      if (f.free || f.full < 1 || f.tail < 1 || f.tail > f.full)
        throw InputError(
            located(program, program.nodes[static_cast<size_t>(owner[i])]),
            fmt::format("factor {} of dimension {} is not one the tiled GEMM runs: expected a "
                        "concrete factor F or F/T with 1 <= T <= F",
                        factor_text(f), op.dims[static_cast<size_t>(d)].name));
    }
    if (chain_extent(chain) != program.size[d])
      throw InputError(root_where,
                       fmt::format("factors for dimension {} ({}) cover {} but operator '{}' has "
                                   "{}={}",
                                   op.dims[static_cast<size_t>(d)].name, factor_chain_text(chain),
                                   chain_extent(chain), op.name,
                                   op.dims[static_cast<size_t>(d)].name, program.size[d]));
  }

  // Full extent below each slot, innermost first: the op block, then each tile's spatial and
  // temporal factors.
  int64_t below[kAxes];
  for (int ax = 0; ax < kAxes; ++ax)
    below[ax] = dim_of_axis[ax] >= 0 ? full(opn.op_factor[dim_of_axis[ax]]) : 1;
  plan.levels.resize(path.size());
  int spatial_levels = 0;
  for (size_t li = path.size(); li-- > 0;) {
    const ProgramNode& n = program.nodes[static_cast<size_t>(path[li])];
    Level& level = plan.levels[li];
    level.node = path[li];
    level.innermost = li + 1 == path.size();
    for (int ax = 0; ax < kAxes; ++ax) {
      const int d = dim_of_axis[ax];
      const int64_t s = d >= 0 ? full(n.spatial[d]) : 1;
      const bool split = d >= 0 && (s > 1 || n.spatial[d].has_tail());
      level.spatial_step[ax] = split ? below[ax] : 0;
      level.spatial = level.spatial || split;
      below[ax] *= s;
      level.temporal_step[ax] = below[ax];
      below[ax] *= d >= 0 ? full(n.temporal[d]) : 1;
    }
    if (level.spatial_step[kDepth] > 0)
      throw InputError(located(program, n),
                       "the tiled GEMM does not split K spatially (threads would race on C); "
                       "put the spatial factors on M, N or B");
    if (level.innermost) level.temporal_step[kDepth] = std::max<int64_t>(plan.size[kDepth], 1);
    spatial_levels += level.spatial ? 1 : 0;
    for (int i = 0; i < program.ndims; ++i) {
      const int d = n.order[i], ax = axis_of_dim[d];
      const bool loops = full(n.temporal[d]) > 1 && !(level.innermost && ax == kDepth);
      if (loops) level.order[level.loops++] = ax;
    }
  }
  plan.pack_level = static_cast<int>(path.size()) - 2;
  if (spatial_levels > 1)
    throw InputError(root_where,
                     "the tiled GEMM spreads one tile level over threads; this mapping has spatial "
                     "factors at several levels");

  plan.threads = threads > 0 ? threads : omp_get_num_procs();
  plan.parallel = spatial_levels == 1 && plan.threads > 1;

  // The register block: the op's M x N, within what the RF holds and the table has.
  plan.isa = &isa_kernels();
  plan.lanes = plan.isa->vector_bytes / static_cast<int>(sizeof(float));
  int max_accumulators = plan.isa->max_accumulators;
  if (program.graph) {
    if (auto rf = program.graph->find_node("RF")) {
      const double vector_bytes = plan.isa->vector_bytes;
      const int registers =
          static_cast<int>(program.graph->node(*rf).capacity_bytes / vector_bytes);
      if (registers > 0) max_accumulators = std::min(max_accumulators, std::max(1, registers));
    }
  }
  const int64_t op_rows = full(opn.op_factor[dim_of_axis[kRow]]);
  const int64_t op_cols = full(opn.op_factor[dim_of_axis[kCol]]);
  plan.block = plan.isa->choose_register_block(op_rows, op_cols, max_accumulators);
  plan.block_cols = std::min<int64_t>(op_cols, int64_t{plan.block.vector_columns} * plan.lanes);
}

TiledGemm::~TiledGemm() = default;
TiledGemm::TiledGemm(TiledGemm&&) noexcept = default;

void TiledGemm::run(const float* a, const float* b, float* c) const {
  const Plan& plan = *plan_;
  if (!plan.parallel) {
    plan.run(a, b, c, 0, 1);
    return;
  }
#pragma omp parallel num_threads(plan.threads)
  plan.run(a, b, c, omp_get_thread_num(), omp_get_num_threads());
}

int TiledGemm::register_rows() const { return plan_->block.rows; }
int TiledGemm::register_cols() const { return static_cast<int>(plan_->block_cols); }

}  // namespace ts::host
