#include "training/ChromeTrace.hpp"

#include <nlohmann/json.hpp>

namespace ts {

std::string unnamed_track_name(int64_t track) { return "stream " + std::to_string(track); }

std::string chrome_trace_json(const TaskGraph& g, const TaskTimes& t,
                              const std::vector<std::string>& names,
                              const std::vector<CounterTrack>& counters) {
  nlohmann::json events = nlohmann::json::array();
  for (int s = 0; s < g.streams; ++s) {
    const std::string name = static_cast<size_t>(s) < names.size() ? names[static_cast<size_t>(s)]
                                                                   : unnamed_track_name(s);
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", s}, {"args", {{"name", name}}}});
  }
  for (size_t i = 0; i < g.tasks.size(); ++i) {
    const Task& task = g.tasks[i];
    if (task.duration_s <= 0) continue;  // joins and other bookkeeping
    events.push_back({{"name", task.label},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", task.stream},
                      {"ts", t.start_s[i] * 1e6},
                      {"dur", task.duration_s * 1e6}});
  }
  const double gib = 1024.0 * 1024 * 1024;
  for (const CounterTrack& c : counters)
    for (const MemorySample& s : c.samples)
      events.push_back({{"name", c.name},
                        {"ph", "C"},
                        {"pid", 0},
                        {"ts", s.time_s * 1e6},
                        {"args", {{"GiB", s.bytes / gib}}}});
  return nlohmann::json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump();
}

}  // namespace ts
