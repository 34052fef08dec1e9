#include "plan/MeasurementPlan.hpp"

#include <fmt/format.h>

#include "analysis/MappingWriter.hpp"
#include "analysis/Prediction.hpp"
#include "analysis/TileAnalysis.hpp"
#include "mapper/MappingSet.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/PredictionRecordOf.hpp"
#include "workload/VectorStep.hpp"

namespace ts {
namespace {

// H100/H200: 227 KiB of shared memory per block with the opt-in attribute (CUDA C++ Programming
// Guide, compute capability 9.0). The runner checks the device's own figure again.
constexpr int64_t kMaxSharedBytesPerBlock = 232448;

void multiply_subtree(const MappingProgram& p, int node, int dim, bool include_self,
                      int64_t& product) {
  const ProgramNode& n = p.nodes[node];
  if (include_self) {
    if (n.kind == MappingNodeKind::tile)
      product *= n.temporal[dim].full * n.spatial[dim].full;
    else if (n.kind == MappingNodeKind::op)
      product *= n.op_factor[dim].full;
  }
  for (int c : n.children) multiply_subtree(p, c, dim, true, product);
}

int64_t subtree_extent(const MappingProgram& p, int node, int dim, bool include_self) {
  if (dim < 0) return 1;
  int64_t product = 1;
  multiply_subtree(p, node, dim, include_self, product);
  return product;
}

std::string dtype_text(DataType t) { return std::string(to_string(t)); }

std::string shape_field(const Operator& op) {
  std::string out;
  for (const Dimension& d : op.dims) {
    const std::string name = d.name == "R" ? "rows" : d.name == "C" ? "cols" : d.name;
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", name, d.size);
  }
  return out;
}

// Plan values hold no spaces (docs/formats.md): bytes outside a safe set become %XX.
std::string percent_encode(const std::string& text) {
  std::string out;
  for (const unsigned char c : text) {
    const bool safe =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        std::string_view("_-.,:/{}[]()<>*+!?@^|~'\"").find(c) != std::string_view::npos;
    out += safe ? std::string(1, static_cast<char>(c)) : fmt::format("%{:02X}", c);
  }
  return out;
}

// The runner (collectors/cupti/VectorJob.cu) has a kernel for every vector step; its own plan
// reader keeps a copy of the names because it builds without core.
bool runner_has_step(const std::string& s) { return is_vector_step(s); }

// The runner's kernels for whole LLM operators rather than chain steps: vLLM's row kernels
// (collectors/cupti/LlmRowJob.cu) and split-KV decode attention (DecodeAttentionJob.cu).
bool runner_has_kernel(OperatorType type) {
  return type == OperatorType::rmsnorm || type == OperatorType::silu_mul ||
         type == OperatorType::rope || type == OperatorType::decode_attention;
}

}  // namespace

std::optional<GpuGemmTiling> gpu_gemm_tiling(const MappingProgram& p, std::string* why) {
  auto refuse = [&](const std::string& reason) -> std::optional<GpuGemmTiling> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const int m = p.op->find_dim("M"), n = p.op->find_dim("N"), k = p.op->find_dim("K"),
            b = p.op->find_dim("B");
  if (m < 0 || n < 0 || k < 0) return refuse("not a GEMM (dimensions M, N, K)");
  int spatial = -1;
  for (size_t i = 0; i < p.nodes.size() && spatial < 0; ++i)
    if (p.nodes[i].kind == MappingNodeKind::tile &&
        (p.nodes[i].spatial[m].full > 1 || p.nodes[i].spatial[n].full > 1 ||
         (b >= 0 && p.nodes[i].spatial[b].full > 1)))
      spatial = static_cast<int>(i);
  if (spatial < 0) return refuse("no spatial loop spreads thread blocks over the SMs");
  if (p.nodes[spatial].children.size() != 1 ||
      p.nodes[p.nodes[spatial].children[0]].kind != MappingNodeKind::tile)
    return refuse("the spatial loop has not exactly one tile below it");
  const int block = p.nodes[spatial].children[0];
  if (subtree_extent(p, block, b, true) != 1)
    return refuse("a thread block would hold several batch entries");
  // The kernel is one grid whose blocks each walk all of K (samples/mappings/
  // nvidia-wmma-kernel-template.yaml). Loops above the grid over B, M and N only walk its parts.
  // A K loop there would split K into partial sums, and a loop over M, N or the batch beside the
  // grid, or an M or N loop above it when a block takes K in a single step, would let a block
  // reuse operands another block loaded: the kernel does neither. A loop inside the block's
  // shared-memory tile would stream it in pieces the kernel does not make.
  auto loops = [&](int node, bool allow_k, bool allow_grid) {
    std::string out;
    for (int d = 0; d < p.ndims; ++d) {
      const bool allowed = (allow_k && d == k) || (allow_grid && d != k);
      if (p.nodes[node].temporal[d].full > 1 && !allowed)
        out += fmt::format("{}{}={}", out.empty() ? "" : " ", p.op->dims[d].name,
                           p.nodes[node].temporal[d].full);
    }
    return out;
  };
  const bool one_k_step = p.nodes[spatial].temporal[k].full == 1;
  // The kernel launches every block at once, and the SMs take them in waves. A graph whose SMs
  // take blocks as they free up (`dispatch: dynamic`) pools the parts of the loops above the grid
  // the same way; under lockstep the model runs those loops one after another, each on as many
  // SMs as the grid's part has blocks, and the two agree only when each part fills the SMs.
  int64_t part = 1;
  for (int d = 0; d < p.ndims; ++d) part *= p.nodes[spatial].spatial[d].full;
  const int64_t sms = p.graph->node(p.nodes[block].memory).instances;
  for (int a = p.nodes[spatial].parent; a >= 0; a = p.nodes[a].parent) {
    if (p.nodes[a].kind != MappingNodeKind::tile) continue;
    if (p.nodes[a].temporal[k].full > 1)
      return refuse(
          fmt::format("temporal {} at {} above the grid: the kernel does not split K "
                      "into partial sums",
                      loops(a, false, false), p.graph->node(p.nodes[a].memory).name));
    if (!p.nodes[block].spread_dynamic && part < sms && !loops(a, false, false).empty())
      return refuse(
          fmt::format("temporal {} at {} above a grid part of {} blocks on {} SMs: the "
                      "kernel runs all of its blocks at once",
                      loops(a, false, false), p.graph->node(p.nodes[a].memory).name, part, sms));
    if (one_k_step && (p.nodes[a].temporal[m].full > 1 || p.nodes[a].temporal[n].full > 1))
      return refuse(fmt::format(
          "temporal {} at {} above a grid whose blocks take K in one step: the model would keep "
          "one block's operands in shared memory for the next, which the kernel reloads",
          loops(a, false, false), p.graph->node(p.nodes[a].memory).name));
  }
  if (const std::string beside = loops(spatial, true, false); !beside.empty())
    return refuse(fmt::format("temporal {} beside the grid at {}: only K steps loop there", beside,
                              p.graph->node(p.nodes[spatial].memory).name));
  if (const std::string inside = loops(block, false, false); !inside.empty())
    return refuse(fmt::format("temporal {} in the block's {} tile: a K step is the whole tile",
                              inside, p.graph->node(p.nodes[block].memory).name));
  GpuGemmTiling t;
  t.block_m = static_cast<int>(subtree_extent(p, block, m, true));
  t.block_n = static_cast<int>(subtree_extent(p, block, n, true));
  t.block_k = static_cast<int>(subtree_extent(p, block, k, false));
  t.stages = p.nodes[block].double_buffer ? 2 : 1;
  if (t.block_m % 16 || t.block_n % 16 || t.block_k % 16)
    return refuse(fmt::format("block {}x{}x{}: the WMMA kernel needs multiples of 16", t.block_m,
                              t.block_n, t.block_k));
  // Largest warp tile that leaves 4..16 warps; else the largest with 4..32. Fewer than 4 warps
  // leave some of the SM's four schedulers idle, which the model does not describe. Registers
  // bound it too: a thread holds 8 fp32 per 16x16 accumulator fragment, 4 per operand fragment,
  // and about 64 more (ptxas for sm_90: 220 for 64x64 warp tiles, 166 for 48x64), allocated in
  // steps of 8 per thread. An SM's 65536 registers are four files of 16384, one per scheduler,
  // and a block's warps are dealt out over the four: the busiest file holds ceil(warps / 4)
  // warps. (On the H200, 9 warps of 64x64 were refused: 3 x 7168 registers > 16384.)
  auto fits = [](int wm, int wn, int warps) {
    const int fm = wm / 16, fn = wn / 16;
    const int per_thread = (8 * fm * fn + 4 * (fm + fn) + 64 + 7) / 8 * 8;
    return (warps + 3) / 4 * 32 * per_thread <= 16384;
  };
  int best = 0;
  for (int pass = 0; pass < 2 && best == 0; ++pass)
    for (int wm : {64, 48, 32, 16})
      for (int wn : {64, 48, 32, 16}) {
        if (t.block_m % wm || t.block_n % wn) continue;
        const int warps = (t.block_m / wm) * (t.block_n / wn);
        const bool ok = warps >= 4 && warps <= (pass == 0 ? 16 : 32) && fits(wm, wn, warps);
        if (ok && wm * wn > best) best = wm * wn, t.warp_m = wm, t.warp_n = wn;
      }
  if (best == 0)
    return refuse(fmt::format(
        "block {}x{}: no warp tiling of 4 to 32 warps within the registers of an SM (16384 per "
        "scheduler)",
        t.block_m, t.block_n));
  const int64_t warps = int64_t(t.block_m / t.warp_m) * (t.block_n / t.warp_n);
  const int64_t smem =
      t.stages * (int64_t(t.block_m) * (t.block_k + 8) + int64_t(t.block_k) * (t.block_n + 8)) * 2 +
      warps * 1024;
  if (smem > kMaxSharedBytesPerBlock)
    return refuse(
        fmt::format("block {}x{}x{} in {} stage(s) needs {} B of shared memory (at most {})",
                    t.block_m, t.block_n, t.block_k, t.stages, smem, kMaxSharedBytesPerBlock));
  return t;
}

GpuSuite gpu_suite(const Workload& workload, const ArchitectureGraph& graph,
                   const GpuSuiteOptions& options) {
  GpuSuite suite;
  suite.arch_hash = hash_text(graph.content_hash());
  const std::string common =
      fmt::format("reps={} l2={}", options.repetitions, options.cold_l2 ? "cold" : "warm");
  for (const Operator& op : workload.operators) {
    const DataType dt = op.primary_dtype();
    if (dt != DataType::fp16 && dt != DataType::bf16 && dt != DataType::fp32) {
      suite.notes.push_back(
          fmt::format("{}: dtype {} is not in the runner's suite", op.name, dtype_text(dt)));
      continue;
    }
    const std::string dtype = dtype_text(dt);
    const OperatorKey key = operator_key(op, workload.name);
    // A linear layer (GEMM and bias epilogue) has no runner job of its own: the runner's plan
    // reader takes gemm and batched_gemm, so it is left out and said so.
    if (op.type == OperatorType::linear) {
      suite.notes.push_back(fmt::format(
          "{}: a linear layer (GEMM with its bias) has no runner job; measure it as a gemm",
          op.name));
      continue;
    }
    const bool gemm = is_gemm(op);
    // A grouped GEMM (a mixture of experts' expert GEMMs) is the libraries' strided batched GEMM
    // over its B experts with tokens, each over M = the largest group's rows, as the operator
    // counts it (LlmOperators.hpp): measured by cuBLAS and cuBLASLt, not by the WMMA kernel.
    const bool grouped = op.type == OperatorType::grouped_gemm;
    const bool library_gemm = gemm || grouped;
    std::string steps;
    if (!library_gemm) {
      bool runnable = true;
      for (const Stage& s : op.stages) {
        runnable = runnable && runner_has_step(s.name);
        steps += (steps.empty() ? "" : ",") + s.name;
      }
      runnable = runnable || runner_has_kernel(op.type);
      if (!runnable) {
        suite.notes.push_back(fmt::format("{} ({}: {}): the runner has no kernel for a step of it",
                                          op.name, to_string(op.type), steps));
        continue;
      }
    }
    const std::string head = fmt::format(
        "job suite={} op={} type={}{} shape={} dtype={}", workload.name, op.name,
        grouped ? std::string_view("batched_gemm") : to_string(op.type),
        op.type == OperatorType::fused ? " steps=" + steps : std::string(), shape_field(op), dtype);
    if (gemm && dt != DataType::fp32) {
      // More candidates than wanted: many mappings do not suit the WMMA kernel.
      bool converged = true;
      std::vector<NamedProgram> programs =
          suite_mappings(op, graph, options.mappings_per_gemm * 6, options.seed, options.mapper,
                         options.gemm_template ? &*options.gemm_template : nullptr, &converged);
      suite.unconverged.note(op.name, true, converged);
      size_t taken = 0;
      for (NamedProgram& np : programs) {
        if (taken == options.mappings_per_gemm) break;
        std::string why;
        const std::optional<GpuGemmTiling> tiling = gpu_gemm_tiling(np.program, &why);
        if (!tiling) {
          suite.notes.push_back(fmt::format("{} mapping {}: {}", op.name, np.name, why));
          continue;
        }
        // The kernel's warps, written on the op (`warps:`), so that a graph whose tensor cores
        // have an issue limit times the warps the kernel runs (formats.md).
        for (ProgramNode& node : np.program.nodes)
          if (node.kind == MappingNodeKind::op) {
            node.warps = 1;
            for (int d = 0; d < np.program.ndims; ++d) {
              node.op_warps[d] = node.role[d] == GranuleRole::m   ? tiling->block_m / tiling->warp_m
                                 : node.role[d] == GranuleRole::n ? tiling->block_n / tiling->warp_n
                                                                  : 1;
              node.warps *= node.op_warps[d];
            }
          }
        GpuSuiteEntry e;
        fill_mapped_entry(e, op, key, "tilescope", dtype, np.program, np.name, graph);
        e.tiling = tiling;
        e.plan_line = fmt::format(
            "{} impl=tilescope block={}x{}x{} warp={}x{} stages={} mapping={} mapping_name={} "
            "{} spec={} mapping_yaml={}",
            head, tiling->block_m, tiling->block_n, tiling->block_k, tiling->warp_m, tiling->warp_n,
            tiling->stages, e.mapping->hash, np.name, common, percent_encode(key.spec),
            percent_encode(e.mapping->yaml));
        suite.entries.push_back(std::move(e));
        ++taken;
      }
      if (taken == 0)
        suite.notes.push_back(fmt::format("{}: no mapping suits tilescope's CUDA GEMM", op.name));
    }
    // A black box (cuBLAS, cuBLASLt) or the runner's vector kernels: the mapper's choice is the
    // prediction.
    MappingProgram chosen;
    OperatorPredictionOptions o;
    o.mapper = options.mapper;
    Prediction p;
    try {
      p = predict_operator(op, graph, o, &chosen);
      suite.unconverged.note(p);
    } catch (const InputError& e) {
      suite.notes.push_back(
          fmt::format("{}: no prediction on {}: {}", op.name, graph.name, e.message()));
      continue;
    }
    const std::string chosen_yaml = mapping_yaml(chosen, op.name + "-mapper", "");
    std::vector<std::string> impls;
    if (library_gemm) {
      impls.push_back("cublas");
      if (options.cublaslt) impls.push_back("cublaslt");
    } else {
      impls.push_back("vector");
    }
    for (const std::string& impl : impls) {
      GpuSuiteEntry e;
      e.op = op;
      e.key = key;
      e.implementation = impl;
      e.dtype = dtype;
      e.prediction = prediction_record(p, key, std::nullopt, graph, chosen_yaml);
      e.plan_line =
          fmt::format("{} impl={} {} spec={}", head, impl, common, percent_encode(key.spec));
      suite.entries.push_back(std::move(e));
    }
  }
  return suite;
}

std::string plan_text(const GpuSuite& suite, const std::vector<std::string>& comment_lines) {
  std::string out = "tilescope-plan 1\n";
  for (const std::string& c : comment_lines) out += "# " + c + "\n";
  for (const std::string& c : suite.notes) out += "# left out: " + c + "\n";
  for (const GpuSuiteEntry& e : suite.entries) out += e.plan_line + "\n";
  return out;
}

}  // namespace ts
