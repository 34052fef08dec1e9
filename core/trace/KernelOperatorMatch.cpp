#include "trace/KernelOperatorMatch.hpp"

#include <algorithm>
#include <unordered_map>

namespace ts {
namespace {

// A point in time on one thread: an operator opening, or a kernel's launch (or start).
struct SweepPoint {
  double time_ns = 0;
  bool is_operator = false;
  double end_ns = 0;  // an operator's end; longer first among operators starting together
  size_t index = 0;
};

bool before(const SweepPoint& a, const SweepPoint& b) {
  if (a.time_ns != b.time_ns) return a.time_ns < b.time_ns;
  // At the same instant an operator opens before a launch inside it, and an outer operator
  // (the longer) before the inner.
  if (a.is_operator != b.is_operator) return a.is_operator;
  if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
  return a.index < b.index;
}

}  // namespace

void tie_kernels_by_enclosing_span(TraceEvents& events) {
  // Points by thread: -1 (unknown thread) is its own group, so that a format without threads
  // (msprof rows, device-side ranges) still matches by time alone.
  std::unordered_map<int64_t, std::vector<SweepPoint>> by_thread;
  for (size_t i = 0; i < events.operators.size(); ++i) {
    const TraceOperator& op = events.operators[i];
    by_thread[op.thread].push_back(
        SweepPoint{op.start_ns, true, op.start_ns + std::max(0.0, op.duration_ns), i});
  }
  for (size_t i = 0; i < events.kernels.size(); ++i) {
    const TraceKernel& k = events.kernels[i];
    if (k.op) continue;
    const bool launch_known = k.launch_ns >= 0;
    by_thread[launch_known ? k.launch_thread : -1].push_back(
        SweepPoint{launch_known ? k.launch_ns : k.start_ns, false, 0, i});
  }
  std::vector<size_t> open;  // operators enclosing the current time, outermost first
  for (auto& [thread, points] : by_thread) {
    std::sort(points.begin(), points.end(), before);
    open.clear();
    for (const SweepPoint& p : points) {
      while (!open.empty()) {
        const TraceOperator& top = events.operators[open.back()];
        // An operator still encloses a point at its very end (a launch as its last call).
        if (top.start_ns + std::max(0.0, top.duration_ns) >= p.time_ns) break;
        open.pop_back();
      }
      if (p.is_operator) {
        TraceOperator& op = events.operators[p.index];
        if (!op.parent && !open.empty()) op.parent = open.back();
        open.push_back(p.index);
      } else if (!open.empty()) {
        events.kernels[p.index].op = open.back();
      }
    }
  }
}

}  // namespace ts
