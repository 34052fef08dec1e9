#pragma once
// Ties kernels to the operators that launched them by time: a kernel whose reader gave no
// operator (no correlation id or flow tied it) gets the innermost operator whose span encloses
// its launch on the launching thread (a PyTorch CPU operator, an NVTX range), or, when the
// launch is not known, the innermost one enclosing the kernel's own start. Operators without a
// parent get the innermost operator that encloses them on their thread, so that a kernel under
// an operator without shapes can be traced up to one with shapes.
#include <cstdint>
#include <vector>

#include "trace/TraceEvents.hpp"

namespace ts {

struct TimeSpan {
  double start_ns = 0;
  double end_ns = 0;
  int64_t thread = -1;  // -1: unknown, its own group (matched by time alone)
};
struct TimePoint {
  double time_ns = 0;
  int64_t thread = -1;
};
struct Enclosure {
  std::vector<int64_t> point_span;   // per point: the innermost span enclosing it, -1 for none
  std::vector<int64_t> span_parent;  // per span: the innermost other span enclosing it, or -1
};

// One sweep per thread over spans and points in time order: O(n log n), so that a trace of
// millions of events ties in a second or two. A span encloses a point at its very end (a launch
// as an operator's last call); among spans that open together the longer is the outer.
Enclosure innermost_enclosing(const std::vector<TimeSpan>& spans,
                              const std::vector<TimePoint>& points);

// Fills TraceKernel::op for kernels without one and TraceOperator::parent for operators
// without one, through innermost_enclosing over the operators and the kernels' launches (their
// starts where the launch is not known).
void tie_kernels_by_enclosing_span(TraceEvents& events);

}  // namespace ts
