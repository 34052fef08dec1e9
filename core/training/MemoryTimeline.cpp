#include "training/MemoryTimeline.hpp"

#include <algorithm>

namespace ts {

std::vector<MemorySample> memory_over_time(const TaskGraph& g, const TaskTimes& t, int stream,
                                           double base_bytes) {
  struct Change {
    double time_s, bytes;
  };
  std::vector<Change> changes;
  for (int id : g.order.at(static_cast<size_t>(stream))) {
    const Task& task = g.tasks[static_cast<size_t>(id)];
    if (task.memory_bytes > 0)
      changes.push_back({t.start_s[static_cast<size_t>(id)], task.memory_bytes});
    if (task.memory_bytes < 0)
      changes.push_back({t.end_s[static_cast<size_t>(id)], task.memory_bytes});
  }
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return a.time_s < b.time_s || (a.time_s == b.time_s && a.bytes < b.bytes);
  });
  std::vector<MemorySample> out{{0, base_bytes}};
  double held = base_bytes;
  for (const Change& c : changes) {
    held += c.bytes;
    if (out.back().time_s == c.time_s)
      out.back().bytes = held;
    else
      out.push_back({c.time_s, held});
  }
  return out;
}

double peak_bytes(const std::vector<MemorySample>& samples) {
  double peak = 0;
  for (const MemorySample& s : samples) peak = std::max(peak, s.bytes);
  return peak;
}

}  // namespace ts
