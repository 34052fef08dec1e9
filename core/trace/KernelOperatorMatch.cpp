#include "trace/KernelOperatorMatch.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <unordered_map>

namespace ts {
namespace {

// A span opening or a point, on one thread.
struct SweepEntry {
  double time_ns = 0;
  double end_ns = 0;  // a span's end
  uint32_t index = 0;
  bool is_span = false;
};

bool before(const SweepEntry& a, const SweepEntry& b) {
  if (a.time_ns != b.time_ns) return a.time_ns < b.time_ns;
  // At the same instant a span opens before a point inside it, and the outer (longer) span
  // before the inner.
  if (a.is_span != b.is_span) return a.is_span;
  if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
  return a.index < b.index;
}

}  // namespace

Enclosure innermost_enclosing(const std::vector<TimeSpan>& spans,
                              const std::vector<TimePoint>& points) {
  if (spans.size() > UINT32_MAX || points.size() > UINT32_MAX)
    throw std::length_error("more than 2^32 operators or launches on one trace");
  Enclosure out;
  out.point_span.assign(points.size(), -1);
  out.span_parent.assign(spans.size(), -1);
  // Each thread's entries at their exact count (counted first): a trace of millions of
  // operators and launches would otherwise hold a vector and its doubled copy at once.
  std::unordered_map<int64_t, std::vector<SweepEntry>> by_thread;
  {
    std::unordered_map<int64_t, size_t> counts;
    for (const TimeSpan& s : spans) ++counts[s.thread];
    for (const TimePoint& p : points) ++counts[p.thread];
    for (const auto& [thread, count] : counts) by_thread[thread].reserve(count);
  }
  for (size_t i = 0; i < spans.size(); ++i)
    by_thread[spans[i].thread].push_back(SweepEntry{spans[i].start_ns,
                                                    std::max(spans[i].start_ns, spans[i].end_ns),
                                                    static_cast<uint32_t>(i), true});
  for (size_t i = 0; i < points.size(); ++i)
    by_thread[points[i].thread].push_back(
        SweepEntry{points[i].time_ns, 0, static_cast<uint32_t>(i), false});
  std::vector<const SweepEntry*> open;  // spans enclosing the current time, outermost first
  for (auto& [thread, entries] : by_thread) {
    std::sort(entries.begin(), entries.end(), before);
    open.clear();
    for (const SweepEntry& e : entries) {
      while (!open.empty() && open.back()->end_ns < e.time_ns) open.pop_back();
      const int64_t innermost = open.empty() ? -1 : static_cast<int64_t>(open.back()->index);
      if (e.is_span) {
        out.span_parent[e.index] = innermost;
        open.push_back(&e);
      } else {
        out.point_span[e.index] = innermost;
      }
    }
    std::vector<SweepEntry>().swap(entries);  // done with this thread: give the memory back
  }
  return out;
}

void tie_kernels_by_enclosing_span(TraceEvents& events) {
  std::vector<TimeSpan> spans;
  spans.reserve(events.operators.size());
  for (const TraceOperator& op : events.operators)
    spans.push_back(TimeSpan{op.start_ns, op.start_ns + std::max(0.0, op.duration_ns), op.thread});
  std::vector<TimePoint> points;
  std::vector<size_t> kernel_of_point;
  for (size_t i = 0; i < events.kernels.size(); ++i) {
    const TraceKernel& k = events.kernels[i];
    if (k.op) continue;
    const bool launch_known = k.launch_ns >= 0;
    points.push_back(
        TimePoint{launch_known ? k.launch_ns : k.start_ns, launch_known ? k.launch_thread : -1});
    kernel_of_point.push_back(i);
  }
  const Enclosure enclosure = innermost_enclosing(spans, points);
  for (size_t p = 0; p < points.size(); ++p)
    if (enclosure.point_span[p] >= 0)
      events.kernels[kernel_of_point[p]].op = static_cast<size_t>(enclosure.point_span[p]);
  for (size_t s = 0; s < spans.size(); ++s)
    if (!events.operators[s].parent && enclosure.span_parent[s] >= 0)
      events.operators[s].parent = static_cast<size_t>(enclosure.span_parent[s]);
}

}  // namespace ts
