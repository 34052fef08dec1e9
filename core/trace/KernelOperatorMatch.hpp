#pragma once
// Ties kernels to the operators that launched them by time: a kernel whose reader gave no
// operator (no correlation id or flow tied it) gets the innermost operator whose span encloses
// its launch on the launching thread (a PyTorch CPU operator, an NVTX range), or, when the
// launch is not known, the innermost one enclosing the kernel's own start. Operators without a
// parent get the innermost operator that encloses them on their thread, so that a kernel under
// an operator without shapes can be traced up to one with shapes.
#include "trace/TraceEvents.hpp"

namespace ts {

// One sweep per thread over operators and launches in time order: O(n log n), no allocation
// per kernel, so that a trace of millions of events ties in a second or two.
void tie_kernels_by_enclosing_span(TraceEvents& events);

}  // namespace ts
