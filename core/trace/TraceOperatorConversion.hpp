#pragma once
// A framework operator of a trace (`aten::addmm` with its recorded input shapes and dtypes) as
// the tilescope operator it computes (a gemm with M, N, K), so that its kernels can be stored
// against an operator that predict and correlate know, and written into a workload.
// docs/traces.md has the table of operator names and how each one's shapes are read.
#include <optional>
#include <string>
#include <string_view>

#include "common/InputError.hpp"
#include "trace/KernelNameRules.hpp"
#include "trace/TraceEvents.hpp"
#include "workload/Operator.hpp"

namespace ts {

// The tilescope operator, or none when the name is not one this knows (and `hint`, the class
// the kernel's name says, does not tell either), the shapes do not fit the name (a rank-1
// matmul), or a dtype is not one tilescope models (double, integers for a GEMM).
// The operator is named after the framework operator, its sizes and dtype
// (`addmm_512x768x768_fp16`), so that the same shapes always make the same name: measurements
// and the workload written from the same trace meet under it.
// Throws InputError at `where` (the operator's record) when the operator would break the sizes
// every workload keeps (workload/WorkloadLimits.hpp: a size past 4e18, sizes that fold into one
// past it, a tensor's bytes past 64 bits): such an operator could be neither stored nor written
// into a workload that loads.
std::optional<Operator> tilescope_operator_of(const TraceOperator& op,
                                              std::optional<KernelClass> hint = std::nullopt,
                                              const SourceLocation& where = {});

// A recorded dtype (`c10::Half`, `float`, `c10::BFloat16`) as tilescope's; none for others.
std::optional<DataType> trace_data_type(std::string_view recorded);

}  // namespace ts
