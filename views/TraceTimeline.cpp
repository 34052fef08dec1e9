#include "views/TraceTimeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

namespace ts::views {
namespace {

constexpr const char* kMeasured = " measured";
constexpr const char* kPredicted = " predicted";

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

}  // namespace

std::string trace_span_category(const std::string& track) {
  if (track.rfind("trace ", 0) != 0) return "";
  if (ends_with(track, kMeasured)) return "measured kernel";
  if (ends_with(track, kPredicted)) return "predicted kernel";
  return "";
}

SimulationTimeline trace_timeline(const std::vector<TraceKernelSpan>& kernels,
                                  const std::string& name,
                                  const std::vector<ComparedPoint>& predicted, size_t max_spans) {
  SimulationTimeline out;
  if (kernels.empty()) return out;
  // The earliest kernels, by start, drawn relative to the first: a trace's clock is its own.
  std::vector<size_t> order(kernels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return kernels[a].start_ns < kernels[b].start_ns; });
  const size_t drawn = std::min(max_spans, order.size());
  const double origin_ns = kernels[order.front()].start_ns;

  // A prediction per (operator, kernel name): a point's implementation is the kernel's name.
  std::map<std::pair<std::string, std::string>, double> predicted_s;
  for (const ComparedPoint& p : predicted)
    if (std::isfinite(p.predicted_s)) predicted_s[{p.op_name, p.implementation}] = p.predicted_s;

  std::map<std::pair<int, int64_t>, std::pair<TimelineTrack, TimelineTrack>> streams;
  size_t with_prediction = 0;
  for (size_t i = 0; i < drawn; ++i) {
    const TraceKernelSpan& k = kernels[order[i]];
    auto& [measured, modelled] = streams[{k.device, k.stream}];
    const double start_s = (k.start_ns - origin_ns) * 1e-9;
    measured.spans.push_back({k.op_name.empty() ? k.kernel : k.kernel + " (" + k.op_name + ")",
                              start_s, k.duration_ns * 1e-9});
    if (const auto it = predicted_s.find({k.op_name, k.kernel}); it != predicted_s.end()) {
      modelled.spans.push_back({k.kernel + " (" + k.op_name + ")", start_s, it->second});
      ++with_prediction;
    }
  }
  for (auto& [where, tracks] : streams) {
    const std::string stream =
        where.second < 0 ? std::string("stream ?") : fmt::format("stream {}", where.second);
    const std::string prefix = fmt::format("trace {}: GPU {} {}", name, where.first, stream);
    tracks.first.name = prefix + kMeasured;
    out.tracks.push_back(std::move(tracks.first));
    if (!tracks.second.spans.empty()) {
      tracks.second.name = prefix + kPredicted;
      out.tracks.push_back(std::move(tracks.second));
    }
  }
  out.title = fmt::format("trace {}", name);
  out.iteration_s = out.end_s();
  std::string line =
      fmt::format("trace {}: {} kernels on {} streams", name, kernels.size(), streams.size());
  if (drawn < kernels.size()) line += fmt::format(" (the first {} drawn)", drawn);
  if (!predicted.empty())
    line += fmt::format(", {} with a prediction on the open graph", with_prediction);
  else
    line += ", no predictions (open a graph to predict its operators)";
  out.summary.push_back(std::move(line));
  return out;
}

SimulationTimeline merged_timeline(const SimulationTimeline& timeline,
                                   const SimulationTimeline& trace) {
  if (trace.tracks.empty()) return timeline;
  if (timeline.tracks.empty()) return trace;
  SimulationTimeline out = timeline;
  out.tracks.insert(out.tracks.end(), trace.tracks.begin(), trace.tracks.end());
  out.summary.insert(out.summary.end(), trace.summary.begin(), trace.summary.end());
  return out;
}

}  // namespace ts::views
