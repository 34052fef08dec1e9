#include "trace/NsysRangeNesting.hpp"

#include <algorithm>
#include <numeric>

namespace ts {
namespace {

// Range indices by thread, then start; of two that start together the longer comes first, so
// that the shorter, inner one lies above it on the sweep's stack.
std::vector<size_t> by_thread_and_start(const std::vector<NsysRange>& ranges) {
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const NsysRange& x = ranges[a];
    const NsysRange& y = ranges[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.end_ns > y.end_ns;
  });
  return order;
}

}  // namespace

std::vector<std::optional<size_t>> innermost_enclosing(const std::vector<NsysRange>& ranges,
                                                       const std::vector<NsysMoment>& moments) {
  const std::vector<size_t> order = by_thread_and_start(ranges);
  std::vector<size_t> moment_order(moments.size());
  std::iota(moment_order.begin(), moment_order.end(), size_t{0});
  std::stable_sort(moment_order.begin(), moment_order.end(), [&](size_t a, size_t b) {
    if (moments[a].thread != moments[b].thread) return moments[a].thread < moments[b].thread;
    return moments[a].time_ns < moments[b].time_ns;
  });

  std::vector<std::optional<size_t>> out(moments.size());
  // The ranges begun on the current thread, in the order they began; an ended one is dropped
  // only when it is on top. Every range above the top that has been dropped had ended, so the
  // top, once alive, is the latest begun of those alive.
  std::vector<size_t> begun;
  size_t next = 0;
  std::optional<int64_t> thread;
  for (size_t m : moment_order) {
    const NsysMoment& at = moments[m];
    if (thread != at.thread) {
      begun.clear();
      thread = at.thread;
    }
    while (next < order.size() && ranges[order[next]].thread < at.thread) ++next;
    while (next < order.size() && ranges[order[next]].thread == at.thread &&
           ranges[order[next]].start_ns <= at.time_ns)
      begun.push_back(order[next++]);
    while (!begun.empty() && ranges[begun.back()].end_ns <= at.time_ns) begun.pop_back();
    if (!begun.empty()) out[m] = begun.back();
  }
  return out;
}

std::vector<std::optional<size_t>> enclosing_ranges(const std::vector<NsysRange>& ranges) {
  const std::vector<size_t> order = by_thread_and_start(ranges);
  std::vector<std::optional<size_t>> out(ranges.size());
  std::vector<size_t> begun;  // as in innermost_enclosing
  for (size_t k = 0; k < order.size(); ++k) {
    const NsysRange& r = ranges[order[k]];
    if (k > 0 && ranges[order[k - 1]].thread != r.thread) begun.clear();
    while (!begun.empty() && ranges[begun.back()].end_ns <= r.start_ns) begun.pop_back();
    // Nested ranges find their parent on top; a range that only overlaps the top (start/end
    // ranges need not nest) belongs to the latest begun one that outlasts it.
    for (auto it = begun.rbegin(); it != begun.rend(); ++it) {
      const NsysRange& p = ranges[*it];
      if (p.end_ns > r.start_ns && p.end_ns >= r.end_ns) {
        out[order[k]] = *it;
        break;
      }
    }
    begun.push_back(order[k]);
  }
  return out;
}

}  // namespace ts
