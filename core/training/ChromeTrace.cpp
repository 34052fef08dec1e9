#include "training/ChromeTrace.hpp"

#include <nlohmann/json.hpp>

namespace ts {

std::string unnamed_track_name(int64_t track) { return "stream " + std::to_string(track); }

std::vector<TraceSpan> task_spans(const TaskGraph& g, const TaskTimes& t,
                                  const std::vector<std::string>& categories) {
  std::vector<TraceSpan> spans;
  spans.reserve(g.tasks.size());
  for (size_t i = 0; i < g.tasks.size(); ++i) {
    const Task& task = g.tasks[i];
    if (task.duration_s <= 0) continue;  // joins and other bookkeeping
    const auto stream = static_cast<size_t>(task.stream);
    // Under sharing or interference a task runs longer than its duration alone.
    spans.push_back({task.stream,
                     task.label,
                     stream < categories.size() ? categories[stream] : std::string(),
                     t.start_s[i],
                     t.end_s[i] - t.start_s[i],
                     {}});
  }
  return spans;
}

std::string chrome_trace_json(const std::string& process_name, int64_t tracks,
                              const std::vector<std::string>& names,
                              const std::vector<TraceSpan>& spans,
                              const std::vector<CounterTrack>& counters) {
  nlohmann::json events = nlohmann::json::array();
  if (!process_name.empty())
    events.push_back(
        {{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", process_name}}}});
  for (int64_t s = 0; s < tracks; ++s) {
    const std::string name = static_cast<size_t>(s) < names.size() ? names[static_cast<size_t>(s)]
                                                                   : unnamed_track_name(s);
    events.push_back(
        {{"name", "thread_name"}, {"ph", "M"}, {"pid", 0}, {"tid", s}, {"args", {{"name", name}}}});
    // Perfetto orders threads by this, so that tracks keep the simulator's order.
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", s},
                      {"args", {{"sort_index", s}}}});
  }
  for (const TraceSpan& span : spans) {
    nlohmann::json e = {{"name", span.name},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", span.track},
                        {"ts", span.start_s * 1e6},
                        {"dur", span.duration_s * 1e6}};
    if (!span.category.empty()) e["cat"] = span.category;
    if (!span.args.empty()) {
      nlohmann::json args = nlohmann::json::object();
      for (const auto& [key, value] : span.args) args[key] = value;
      e["args"] = std::move(args);
    }
    events.push_back(std::move(e));
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
