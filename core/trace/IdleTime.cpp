#include "trace/IdleTime.hpp"

#include <algorithm>
#include <map>

namespace ts {
namespace {

struct Interval {
  int64_t begin = 0;
  int64_t end = 0;
};

// Sorted, disjoint.
std::vector<Interval> union_of(std::vector<Interval> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> out;
  for (const Interval& s : spans) {
    if (s.end <= s.begin) continue;
    if (!out.empty() && s.begin <= out.back().end)
      out.back().end = std::max(out.back().end, s.end);
    else
      out.push_back(s);
  }
  return out;
}

int64_t covered(const std::vector<Interval>& disjoint, int64_t begin, int64_t end) {
  auto it = std::upper_bound(disjoint.begin(), disjoint.end(), begin,
                             [](int64_t v, const Interval& i) { return v < i.end; });
  int64_t total = 0;
  for (; it != disjoint.end() && it->begin < end; ++it)
    total += std::min(end, it->end) - std::max(begin, it->begin);
  return total;
}

// True when the GPU work was launched after `since` (so it could not have run before).
bool launched_after(const RankTrace& rank, const GpuActivity& a, int64_t since) {
  return a.launch >= 0 && rank.launches[static_cast<size_t>(a.launch)].start_ns >= since;
}

}  // namespace

IdleBreakdown idle_breakdown(const RankTrace& rank, const TimeWindow& window) {
  IdleBreakdown out;
  out.rank = rank.rank;
  out.window = window;
  std::map<int64_t, std::vector<const GpuActivity*>> by_stream;
  std::vector<Interval> all;
  for (const GpuActivity& a : rank.gpu) {
    if (a.start_ns >= window.end_ns) break;
    const Interval clipped{std::max(a.start_ns, window.begin_ns),
                           std::min(a.end_ns, window.end_ns)};
    if (a.end_ns < window.begin_ns) continue;
    by_stream[a.stream].push_back(&a);
    all.push_back(clipped);
  }
  std::map<int64_t, std::vector<Interval>> busy;
  for (const auto& [stream, list] : by_stream) {
    std::vector<Interval> spans;
    for (const GpuActivity* a : list)
      spans.push_back(
          Interval{std::max(a->start_ns, window.begin_ns), std::min(a->end_ns, window.end_ns)});
    busy[stream] = union_of(std::move(spans));
  }

  for (const auto& [stream, list] : by_stream) {
    std::vector<Interval> others;
    for (const auto& [other, spans] : busy)
      if (other != stream) others.insert(others.end(), spans.begin(), spans.end());
    others = union_of(std::move(others));
    StreamIdle s;
    s.stream = stream;
    int64_t busy_until = std::max(list.front()->end_ns, window.begin_ns);
    for (size_t i = 1; i < list.size(); ++i) {
      const GpuActivity& next = *list[i];
      const int64_t gap_end = std::min(next.start_ns, window.end_ns);
      if (gap_end > busy_until) {
        ++s.gaps;
        const int64_t gap = gap_end - busy_until;
        if (launched_after(rank, next, busy_until)) {
          s.host_bound_ns += gap;
        } else {
          const int64_t waited = covered(others, busy_until, gap_end);
          s.other_stream_ns += waited;
          s.other_ns += gap - waited;
        }
      }
      busy_until = std::max(busy_until, std::min(next.end_ns, window.end_ns));
    }
    out.streams.push_back(s);
  }

  // The device's idle intervals, each charged by the work that ended it.
  const std::vector<Interval> device_busy = union_of(std::move(all));
  int64_t at = window.begin_ns;
  auto first_starting_at = [&](int64_t t) -> const GpuActivity* {
    auto it = std::lower_bound(rank.gpu.begin(), rank.gpu.end(), t,
                               [](const GpuActivity& a, int64_t v) { return a.start_ns < v; });
    return it != rank.gpu.end() ? &*it : nullptr;
  };
  auto charge = [&](int64_t begin, int64_t end) {
    if (end <= begin) return;
    const GpuActivity* next = end < window.end_ns ? first_starting_at(end) : nullptr;
    if (next && launched_after(rank, *next, begin))
      out.device_host_bound_ns += end - begin;
    else
      out.device_other_ns += end - begin;
  };
  for (const Interval& b : device_busy) {
    charge(at, b.begin);
    at = std::max(at, b.end);
  }
  charge(at, window.end_ns);
  return out;
}

}  // namespace ts
