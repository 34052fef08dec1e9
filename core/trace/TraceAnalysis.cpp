#include "trace/TraceAnalysis.hpp"

#include <fmt/format.h>

#include "common/CsvField.hpp"

namespace ts {

std::vector<RankAnalysis> analyse_trace(const Trace& trace, int64_t step) {
  std::vector<RankAnalysis> out;
  for (const RankTrace& rank : trace.ranks) {
    RankAnalysis a;
    a.rank = rank.rank;
    a.file = rank.file;
    a.device_name = rank.device_name;
    a.window = window_of(rank, step);
    a.iterations = rank.iterations.size();
    a.cpu_operators = rank.ops.size();
    a.launches = rank.launches.size();
    a.temporal = temporal_breakdown(rank, a.window);
    a.overlap = communication_overlap(rank, a.window);
    a.idle = idle_breakdown(rank, a.window);
    a.launch = launch_statistics(rank, a.window);
    a.kernels = kernel_breakdown(rank, a.window);
    a.notes = rank.notes;
    out.push_back(std::move(a));
  }
  return out;
}

namespace {

double us(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

double share(int64_t part, int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

nlohmann::json temporal_json(const TemporalBreakdown& t) {
  return {{"wall_us", us(t.wall_ns())},
          {"compute_us", us(t.compute_ns)},
          {"communication_us", us(t.communication_ns)},
          {"memory_us", us(t.memory_ns)},
          {"idle_us", us(t.idle_ns)},
          {"compute_fraction", share(t.compute_ns, t.wall_ns())},
          {"communication_fraction", share(t.communication_ns, t.wall_ns())},
          {"memory_fraction", share(t.memory_ns, t.wall_ns())},
          {"idle_fraction", share(t.idle_ns, t.wall_ns())}};
}

nlohmann::json overlap_json(const CommunicationOverlap& o) {
  return {{"communication_us", us(o.communication_ns)},
          {"compute_us", us(o.compute_ns)},
          {"overlapped_us", us(o.overlapped_ns)},
          {"overlap_fraction",
           o.communication_ns > 0 ? nlohmann::json(o.fraction()) : nlohmann::json(nullptr)}};
}

nlohmann::json idle_json(const IdleBreakdown& i) {
  nlohmann::json streams = nlohmann::json::array();
  for (const StreamIdle& s : i.streams)
    streams.push_back({{"stream", s.stream},
                       {"gaps", s.gaps},
                       {"idle_us", us(s.idle_ns())},
                       {"host_bound_us", us(s.host_bound_ns)},
                       {"other_stream_us", us(s.other_stream_ns)},
                       {"other_us", us(s.other_ns)}});
  return {{"device_idle_us", us(i.device_idle_ns())},
          {"device_host_bound_us", us(i.device_host_bound_ns)},
          {"device_other_us", us(i.device_other_ns)},
          {"streams", streams}};
}

nlohmann::json launch_json(const LaunchStatistics& l) {
  nlohmann::json bins = nlohmann::json::array();
  for (const DelayBin& b : l.histogram)
    bins.push_back({{"from_us", us(b.lower_ns)}, {"to_us", us(b.upper_ns)}, {"count", b.count}});
  nlohmann::json delays = nullptr;  // no launch: no delay to state
  if (l.launched > 0)
    delays = {{"min", us(l.delay_min_ns)}, {"p50", us(l.delay_p50_ns)},
              {"p90", us(l.delay_p90_ns)}, {"p99", us(l.delay_p99_ns)},
              {"max", us(l.delay_max_ns)}, {"mean", l.delay_mean_ns / 1000.0}};
  return {{"launched", l.launched},
          {"without_launch", l.unlaunched},
          {"delay_us", delays},
          {"histogram", bins},
          {"shorter_than_launch", l.shorter_than_launch},
          {"shorter_than_launch_us", us(l.shorter_than_launch_ns)},
          {"max_queue", l.max_queue},
          {"mean_queue", l.mean_queue}};
}

nlohmann::json kernels_json(const KernelBreakdown& k, size_t top) {
  nlohmann::json kernels = nlohmann::json::array();
  for (size_t i = 0; i < k.kernels.size() && i < top; ++i) {
    const KernelTime& t = k.kernels[i];
    nlohmann::json row = {{"name", t.name},
                          {"kind", std::string(to_string(t.kind))},
                          {"class", std::string(to_string(t.time_class))},
                          {"count", t.count},
                          {"total_us", us(t.total_ns)},
                          {"mean_us", us(t.total_ns) / static_cast<double>(t.count)},
                          {"min_us", us(t.min_ns)},
                          {"max_us", us(t.max_ns)},
                          {"share", share(t.total_ns, k.total_ns())}};
    if (t.bytes > 0) row["bytes"] = t.bytes;
    kernels.push_back(row);
  }
  nlohmann::json operators = nlohmann::json::array();
  for (size_t i = 0; i < k.operators.size() && i < top; ++i)
    operators.push_back({{"name", k.operators[i].name},
                         {"kernels", k.operators[i].kernels},
                         {"total_us", us(k.operators[i].total_ns)}});
  return {{"gpu_time_us", us(k.total_ns())},
          {"compute_us", us(k.class_ns[0])},
          {"communication_us", us(k.class_ns[1])},
          {"memory_us", us(k.class_ns[2])},
          {"distinct_kernels", k.kernels.size()},
          {"kernels", kernels},
          {"operators", operators}};
}

}  // namespace

nlohmann::json trace_analysis_json(const std::vector<RankAnalysis>& ranks, TraceView view,
                                   size_t top_kernels) {
  nlohmann::json out = nlohmann::json::array();
  for (const RankAnalysis& a : ranks) {
    nlohmann::json r = {{"rank", a.rank},
                        {"file", a.file},
                        {"window",
                         {{"step", a.window.step},
                          {"begin_us", us(a.window.begin_ns)},
                          {"end_us", us(a.window.end_ns)},
                          {"wall_us", us(a.window.wall_ns())}}}};
    switch (view) {
      case TraceView::summary:
        r["device"] = a.device_name;
        r["iterations"] = a.iterations;
        r["cpu_operators"] = a.cpu_operators;
        r["launch_calls"] = a.launches;
        r["breakdown"] = temporal_json(a.temporal);
        r["overlap"] = overlap_json(a.overlap);
        r["idle"] = idle_json(a.idle);
        r["launch"] = launch_json(a.launch);
        r["kernels"] = kernels_json(a.kernels, top_kernels);
        r["notes"] = a.notes;
        break;
      case TraceView::breakdown:
        r["breakdown"] = temporal_json(a.temporal);
        r["kernels"] = kernels_json(a.kernels, top_kernels);
        break;
      case TraceView::overlap:
        r["overlap"] = overlap_json(a.overlap);
        break;
      case TraceView::idle:
        r["idle"] = idle_json(a.idle);
        break;
      case TraceView::launch:
        r["launch"] = launch_json(a.launch);
        break;
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::string trace_analysis_csv(const std::vector<RankAnalysis>& ranks, TraceView view,
                               size_t top_kernels) {
  CsvRows csv;
  switch (view) {
    case TraceView::summary:
    case TraceView::breakdown:
      if (view == TraceView::breakdown) {
        // The kernel breakdown, one row per rank and kernel; the temporal one is the summary's.
        csv.row({"rank", "kernel", "kind", "class", "count", "total_us", "mean_us", "share"});
        for (const RankAnalysis& a : ranks)
          for (size_t i = 0; i < a.kernels.kernels.size() && i < top_kernels; ++i) {
            const KernelTime& t = a.kernels.kernels[i];
            csv.row({std::to_string(a.rank), t.name, std::string(to_string(t.kind)),
                     std::string(to_string(t.time_class)), std::to_string(t.count),
                     fmt::format("{:.3f}", us(t.total_ns)),
                     fmt::format("{:.3f}", us(t.total_ns) / static_cast<double>(t.count)),
                     fmt::format("{:.4f}", share(t.total_ns, a.kernels.total_ns()))});
          }
        break;
      }
      csv.row({"rank", "step", "wall_us", "compute_us", "communication_us", "memory_us", "idle_us",
               "overlap_fraction", "host_bound_idle_us", "launch_delay_p50_us", "max_queue"});
      for (const RankAnalysis& a : ranks)
        csv.row({std::to_string(a.rank), std::to_string(a.window.step),
                 fmt::format("{:.3f}", us(a.temporal.wall_ns())),
                 fmt::format("{:.3f}", us(a.temporal.compute_ns)),
                 fmt::format("{:.3f}", us(a.temporal.communication_ns)),
                 fmt::format("{:.3f}", us(a.temporal.memory_ns)),
                 fmt::format("{:.3f}", us(a.temporal.idle_ns)),
                 a.overlap.communication_ns > 0 ? fmt::format("{:.4f}", a.overlap.fraction())
                                                : std::string("n/a"),
                 fmt::format("{:.3f}", us(a.idle.device_host_bound_ns)),
                 a.launch.launched > 0 ? fmt::format("{:.3f}", us(a.launch.delay_p50_ns))
                                       : std::string("n/a"),
                 std::to_string(a.launch.max_queue)});
      break;
    case TraceView::overlap:
      csv.row({"rank", "communication_us", "compute_us", "overlapped_us", "overlap_fraction"});
      for (const RankAnalysis& a : ranks)
        csv.row({std::to_string(a.rank), fmt::format("{:.3f}", us(a.overlap.communication_ns)),
                 fmt::format("{:.3f}", us(a.overlap.compute_ns)),
                 fmt::format("{:.3f}", us(a.overlap.overlapped_ns)),
                 fmt::format("{:.4f}", a.overlap.fraction())});
      break;
    case TraceView::idle:
      csv.row(
          {"rank", "stream", "gaps", "idle_us", "host_bound_us", "other_stream_us", "other_us"});
      for (const RankAnalysis& a : ranks) {
        csv.row({std::to_string(a.rank), "device", "",
                 fmt::format("{:.3f}", us(a.idle.device_idle_ns())),
                 fmt::format("{:.3f}", us(a.idle.device_host_bound_ns)), "",
                 fmt::format("{:.3f}", us(a.idle.device_other_ns))});
        for (const StreamIdle& s : a.idle.streams)
          csv.row({std::to_string(a.rank), std::to_string(s.stream), std::to_string(s.gaps),
                   fmt::format("{:.3f}", us(s.idle_ns())),
                   fmt::format("{:.3f}", us(s.host_bound_ns)),
                   fmt::format("{:.3f}", us(s.other_stream_ns)),
                   fmt::format("{:.3f}", us(s.other_ns))});
      }
      break;
    case TraceView::launch:
      csv.row({"rank", "delay_from_us", "delay_to_us", "count"});
      for (const RankAnalysis& a : ranks)
        for (const DelayBin& b : a.launch.histogram)
          csv.row({std::to_string(a.rank), fmt::format("{:.3f}", us(b.lower_ns)),
                   fmt::format("{:.3f}", us(b.upper_ns)), std::to_string(b.count)});
      break;
  }
  return csv.text();
}

nlohmann::json trace_diff_json(const TraceDiff& diff) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OperatorTimeChange& c : diff.operators)
    ops.push_back({{"operator", c.name},
                   {"before_us", us(c.before_ns)},
                   {"after_us", us(c.after_ns)},
                   {"change_us", us(c.change_ns())},
                   {"before_kernels", c.before_kernels},
                   {"after_kernels", c.after_kernels}});
  return {{"before_wall_us", us(diff.before_wall_ns)},
          {"after_wall_us", us(diff.after_wall_ns)},
          {"before_gpu_us", us(diff.before_gpu_ns)},
          {"after_gpu_us", us(diff.after_gpu_ns)},
          {"operators", ops}};
}

std::string trace_diff_csv(const TraceDiff& diff) {
  CsvRows csv;
  csv.row({"operator", "before_us", "after_us", "change_us", "before_kernels", "after_kernels"});
  for (const OperatorTimeChange& c : diff.operators)
    csv.row({c.name, fmt::format("{:.3f}", us(c.before_ns)), fmt::format("{:.3f}", us(c.after_ns)),
             fmt::format("{:+.3f}", us(c.change_ns())), std::to_string(c.before_kernels),
             std::to_string(c.after_kernels)});
  return csv.text();
}

}  // namespace ts
