#pragma once
// A GPU vendor's generation rules as data (`kind: gpu_family`, docs/formats.md): what a datasheet
// does not say (register-file and shared-memory rates, the L2's bandwidth per SM, the tensor
// cores' native shapes) and what it may leave out (fp32 lanes per SM, shared memory per SM),
// each with its source, plus the graph-wide figures and the kernel menus (mapping templates) a
// generated graph names. plugins/nvidia/family.yaml and plugins/amd/family.yaml are the bundled
// ones; a rule is tuned by editing the file, not the code.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/InputError.hpp"

namespace ts {

// One rule: a figure and where it comes from (a whitepaper, a microbenchmark paper, or
// "assumed: why").
struct FamilyRule {
  double value = 0;  // SI base units: B, B/cycle, s, or a plain number
  std::string text;  // as written: `164KiB`, `128B/cycle`, `4us`, `2`
  std::string source;
  SourceLocation where;
};

// What a kernel needs of the graph to be on its menu.
enum class KernelCondition {
  always,
  matrix,     // only where the graph has tensor (matrix) cores: a rate was given for one type
  no_matrix,  // only where it has none (the fallback of a menu)
};

struct KernelChoice {
  std::string kernel;  // a file name without `.yaml` in the family's kernels folder
  KernelCondition when = KernelCondition::always;
};

// The nodes of a generated graph, named as the vendor names them (the kernel templates name
// them too): NVIDIA's DRAM, L2, SMEM, RF, TensorCore, CUDACores; AMD's DRAM, L2, LDS, VGPR,
// MatrixCore, VectorALU.
struct GpuNodeNames {
  std::string memory, l2, shared, registers, matrix, vector;
};

struct GpuGeneration {
  std::string name;
  std::string description;
  SourceLocation where;
  // Every rule, the family's graph-wide ones with this generation's own in their place. Keys:
  // gpu_rule_keys(); matrix_feed only where there are matrix granules.
  std::map<std::string, FamilyRule> rules;
  // Per operator type: the graph-wide duration where a framework's dispatch costs differ.
  std::map<std::string, FamilyRule> launch_overheads;
  // The tensor cores' native mma shape [m, n, k] per data type name (as the spec names them:
  // fp16, tf32, ...), and where the shapes come from. Empty: no tensor cores (Pascal).
  std::map<std::string, std::array<int64_t, 3>> matrix_granules;
  std::string matrix_granule_source;
  // Per class or operator type (`gemm`, `softmax`, ...): the kernel menu, the family's with this
  // generation's keys in their place.
  std::map<std::string, std::vector<KernelChoice>> mapping_templates;

  const FamilyRule& rule(std::string_view key) const;  // throws std::out_of_range for none
};

struct GpuFamily {
  std::string file;
  std::string vendor;
  std::string description;
  std::string unit = "SM";  // what a spec's `sms` counts, in comments: SM or CU
  GpuNodeNames nodes;
  std::string kernels_folder;  // resolved against the family file
  std::vector<GpuGeneration> generations;

  const GpuGeneration* generation(std::string_view name) const;
  std::string generation_names() const;  // "pascal, volta, ..." for messages
  // The kernel template file of a kernel name: <kernels_folder>/<kernel>.yaml.
  std::string kernel_file(std::string_view kernel) const;
};

// The rule keys every generation has (its own or the family's): fp32_cores_per_sm,
// shared_memory_per_sm, registers_per_sm, fp16_vector_ratio, shared_memory_bandwidth,
// l2_bandwidth_per_sm, matrix_feed, vector_feed, vector_granule, launch_overhead,
// min_kernel_time.
const std::vector<std::string_view>& gpu_rule_keys();

// InputError at file:line:col: unknown keys, a rule without its value or source, a value of the
// wrong unit, a granule that is not three positive counts, a menu key that is no class or
// operator type, a rule missing from a generation and from the family.
GpuFamily load_gpu_family(const std::string& path);
GpuFamily parse_gpu_family(const std::string& text, const std::string& file);

}  // namespace ts
