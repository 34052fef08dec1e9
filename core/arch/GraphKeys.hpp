#pragma once
// The keys a graph's per-operator maps accept, for files that write graphs (a GPU family's
// rules, core/profile/GpuFamily) and must refuse a key at their own line rather than at the
// generated graph's: `mapping_templates` takes an operation class or an operator type,
// `launch_overheads` an operator type.
#include <string>
#include <vector>

namespace ts {

// matmul, elementwise, reduction, lookup, then every operator type (gemm, batched_gemm, ...).
std::vector<std::string> mapping_template_keys();
// Every operator type.
std::vector<std::string> launch_overhead_keys();

}  // namespace ts
