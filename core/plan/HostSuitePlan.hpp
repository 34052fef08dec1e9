#pragma once
// The host suite of a workload on the host graph: for each GEMM, tiled-kernel jobs on several
// mappings (the mapping files given for it, or the mapper's top ones and seeded samples of its
// valid space) and an OpenBLAS job; for each other operator, one vector-kernel job. Every entry
// carries its prediction: a tiled kernel's is its own mapping's, a black box's (OpenBLAS, the
// vector kernels) is the mapper's choice.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mapper/Mapper.hpp"
#include "plan/SuiteEntry.hpp"
#include "tile/MappingTree.hpp"

namespace ts {

struct HostSuiteOptions {
  size_t mappings_per_gemm = 8;  // when generated: the mapper's top 3, then seeded samples
  uint64_t seed = 20261129;
  MapperOptions mapper;
  bool openblas = true;  // an OpenBLAS job beside each GEMM's tiled ones
  // Mapping files by the operator they name; a GEMM with files here is measured on them alone.
  std::map<std::string, std::vector<Mapping>> given_mappings;
};

struct HostSuite {
  std::vector<SuiteEntry> entries;  // in workload order; a GEMM's tiled entries first
  std::string arch_hash;
  std::vector<std::string> notes;  // operators left out, and why
};

// `on_operator(index, count, op)` is called before each operator is planned (prediction takes
// a while on large suites). Throws InputError when a mapping does not fit its operator.
HostSuite host_suite(
    const Workload& workload, const ArchitectureGraph& graph, const HostSuiteOptions& options,
    const std::function<void(size_t index, size_t count, const Operator& op)>& on_operator = {});

}  // namespace ts
