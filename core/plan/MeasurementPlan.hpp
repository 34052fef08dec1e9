#pragma once
// The GPU suite of a workload on an NVIDIA graph, and the plan text that tilescope-cupti-runner
// reads (docs/formats.md, "Runner plan"). Each job line carries the operator entry and the
// mapping file (percent-encoded) that the runner echoes into its results, so that an import
// rebuilds both from the results alone, whatever the mapper would choose by then.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/MappingProgram.hpp"
#include "mapper/Mapper.hpp"
#include "mapper/SearchConvergence.hpp"
#include "measure/MeasurementRecord.hpp"
#include "plan/SuiteEntry.hpp"
#include "workload/Operator.hpp"

namespace ts {

// The thread-block tile of tilescope's CUDA GEMM, read off a mapping: the tile below the spatial
// loop that spreads blocks over the SMs (block M x N), and the K extent of one shared-memory
// step (block K); two shared-memory stages where that tile is double-buffered. The warp tile is
// not in the mapping: it is chosen here (16..64 per side,
// dividing the block, 4 to 16 warps where the block allows).
struct GpuGemmTiling {
  int block_m = 0, block_n = 0, block_k = 0;
  int warp_m = 0, warp_n = 0;
  int stages = 1;  // 2 where the mapping double-buffers the block's tile in shared memory
};
// None, with the reason in `why`, when the mapping has no spatial loop over the SMs or its
// block does not suit the kernel (sides multiples of 16, shared memory within 227 KiB).
std::optional<GpuGemmTiling> gpu_gemm_tiling(const MappingProgram& program, std::string* why);

struct GpuSuiteOptions {
  size_t mappings_per_gemm = 4;  // tilescope-kernel mappings per GEMM (mapper's best first)
  uint64_t seed = 20261129;
  MapperOptions mapper;
  int repetitions = 20;
  bool cold_l2 = true;
  bool cublaslt = true;  // a cuBLASLt job beside each cuBLAS one
  // The template tilescope-kernel mappings are searched from (the kernel's own schedule,
  // samples/mappings/nvidia-wmma-kernel-template.yaml); none: the graph's matmul template.
  std::optional<Mapping> gemm_template;
};

// A suite entry with what tilescope-cupti-runner needs beyond it.
struct GpuSuiteEntry : SuiteEntry {
  std::optional<GpuGemmTiling> tiling;  // tilescope kernel only
  std::string plan_line;                // the `job ...` line
};

struct GpuSuite {
  std::vector<GpuSuiteEntry> entries;
  std::vector<std::string> notes;   // operators or mappings left out, and why
  UnconvergedSearches unconverged;  // operators whose mapper search ran out of budget
  std::string arch_hash;
};

GpuSuite gpu_suite(const Workload& workload, const ArchitectureGraph& graph,
                   const GpuSuiteOptions& options);

// `tilescope-plan 1`, comment lines saying how it was made, one job line per entry.
std::string plan_text(const GpuSuite& suite, const std::vector<std::string>& comment_lines);

}  // namespace ts
