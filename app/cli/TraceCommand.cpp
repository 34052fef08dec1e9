// `tilescope trace ...`: loads the traces (with progress, cancellable with Ctrl-C), runs the
// analyses of core (trace/TraceAnalysis, trace/TraceDiff) and prints them as text, JSON or CSV.
#include "TraceCommand.hpp"

#include <fmt/format.h>

#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "StopOnInterrupt.hpp"
#include "TerminalProgress.hpp"
#include "common/InputError.hpp"
#include "common/QuantityFormat.hpp"
#include "trace/HostCallCosts.hpp"
#include "trace/TraceAnalysis.hpp"
#include "trace/TraceImport.hpp"
#include "trace/TraceLoad.hpp"

namespace ts::cli {
namespace {

std::string time_text(int64_t ns) { return format_quantity(static_cast<double>(ns) * 1e-9, "s"); }

std::string percent(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f} %",
                                 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                   : "-";
}

Trace load(const std::vector<std::string>& paths) {
  StopOnInterrupt stop;
  TerminalProgress progress("trace");
  Trace trace = load_trace(paths, [&](double fraction) {
    progress.show_bar(static_cast<size_t>(fraction * 1000), 1000, "read");
    return !StopOnInterrupt::requested();
  });
  progress.clear();
  return trace;
}

std::string window_text(const RankAnalysis& a) {
  return a.window.step >= 0 ? fmt::format("ProfilerStep#{}", a.window.step)
                            : fmt::format("whole trace ({} step{})", a.iterations, a.iterations == 1 ? "" : "s");
}

void print_breakdown(const RankAnalysis& a) {
  const TemporalBreakdown& t = a.temporal;
  std::cout << fmt::format("  {:<14} {:>10}  {:>7}\n", "wall", time_text(t.wall_ns()), "100 %");
  const std::pair<const char*, int64_t> parts[] = {{"compute", t.compute_ns},
                                                   {"communication", t.communication_ns},
                                                   {"memory", t.memory_ns},
                                                   {"idle", t.idle_ns}};
  for (const auto& [name, ns] : parts)
    std::cout << fmt::format("  {:<14} {:>10}  {:>7}\n", name, time_text(ns),
                             percent(ns, t.wall_ns()));
}

void print_kernels(const RankAnalysis& a, size_t top) {
  const KernelBreakdown& k = a.kernels;
  std::cout << fmt::format(
      "  GPU time {} in {} kinds of work: compute {}, communication {}, "
      "memory {}\n",
      time_text(k.total_ns()), k.kernels.size(), time_text(k.class_ns[0]), time_text(k.class_ns[1]),
      time_text(k.class_ns[2]));
  std::cout << fmt::format("  {:>10}  {:>7}  {:>7}  {:<13}  {}\n", "time", "share", "count",
                           "class", "kernel");
  for (size_t i = 0; i < k.kernels.size() && i < top; ++i) {
    const KernelTime& t = k.kernels[i];
    std::cout << fmt::format("  {:>10}  {:>7}  {:>7}  {:<13}  {}\n", time_text(t.total_ns),
                             percent(t.total_ns, k.total_ns()), t.count, to_string(t.time_class),
                             t.name);
  }
  std::cout << "  by launching operator:\n";
  for (size_t i = 0; i < k.operators.size() && i < top; ++i)
    std::cout << fmt::format("  {:>10}  {:>7}  {:>7}  {}\n", time_text(k.operators[i].total_ns),
                             percent(k.operators[i].total_ns, k.total_ns()), k.operators[i].kernels,
                             k.operators[i].name);
}

void print_overlap(const RankAnalysis& a) {
  const CommunicationOverlap& o = a.overlap;
  if (o.communication_ns == 0) {
    std::cout << "  no communication\n";
    return;
  }
  std::cout << fmt::format("  communication {}, of which {} under compute: overlap {}\n",
                           time_text(o.communication_ns), time_text(o.overlapped_ns),
                           percent(o.overlapped_ns, o.communication_ns));
}

void print_idle(const RankAnalysis& a) {
  const IdleBreakdown& i = a.idle;
  std::cout << fmt::format(
      "  device idle {}: host-bound {} ({}), other {} ({})\n", time_text(i.device_idle_ns()),
      time_text(i.device_host_bound_ns), percent(i.device_host_bound_ns, i.device_idle_ns()),
      time_text(i.device_other_ns), percent(i.device_other_ns, i.device_idle_ns()));
  std::cout << fmt::format("  {:>8}  {:>6}  {:>10}  {:>10}  {:>13}  {:>10}\n", "stream", "gaps",
                           "idle", "host-bound", "other stream", "other");
  for (const StreamIdle& s : i.streams)
    std::cout << fmt::format("  {:>8}  {:>6}  {:>10}  {:>10}  {:>13}  {:>10}\n", s.stream, s.gaps,
                             time_text(s.idle_ns()), time_text(s.host_bound_ns),
                             time_text(s.other_stream_ns), time_text(s.other_ns));
}

void print_launch(const RankAnalysis& a) {
  const LaunchStatistics& l = a.launch;
  if (l.launched == 0) {
    std::cout << fmt::format("  no GPU work with a launch in the trace ({} without)\n",
                             l.unlaunched);
    return;
  }
  std::cout << fmt::format(
      "  {} GPU activities tied to a launch ({} not); launch-to-start delay: p50 {}, p90 {}, p99 {}, max {}\n",
      l.launched, l.unlaunched, time_text(l.delay_p50_ns), time_text(l.delay_p90_ns),
      time_text(l.delay_p99_ns), time_text(l.delay_max_ns));
  std::cout << fmt::format(
      "  {} kernels ran shorter than their launch call ({} of GPU time); "
      "queue length: max {}, mean {:.1f}\n",
      l.shorter_than_launch, time_text(l.shorter_than_launch_ns), l.max_queue, l.mean_queue);
  for (const DelayBin& b : l.histogram)
    std::cout << fmt::format("  {:>9} - {:<9} {:>7}\n", time_text(b.lower_ns),
                             time_text(b.upper_ns), b.count);
}

int print_analysis(const TraceOptions& o, TraceView view) {
  const Trace trace = load(o.traces);
  std::vector<RankAnalysis> ranks;
  try {
    ranks = analyse_trace(trace, o.step);
  } catch (const std::out_of_range& e) {
    throw InputError(SourceLocation{"--step", 0, 0}, e.what());
  }
  if (o.format == "json") {
    std::cout << trace_analysis_json(ranks, view, o.top).dump(2) << "\n";
    return 0;
  }
  if (o.format == "csv") {
    std::cout << trace_analysis_csv(ranks, view, o.top);
    return 0;
  }
  for (const RankAnalysis& a : ranks) {
    std::cout << fmt::format("rank {}  {}{}  {}, wall {}\n", a.rank, a.file,
                             a.device_name.empty() ? "" : "  (" + a.device_name + ")",
                             window_text(a), time_text(a.window.wall_ns()));
    switch (view) {
      case TraceView::summary:
        print_breakdown(a);
        print_overlap(a);
        print_idle(a);
        print_launch(a);
        print_kernels(a, std::min<size_t>(o.top, 5));
        for (const std::string& note : a.notes) std::cout << "  note: " << note << "\n";
        break;
      case TraceView::breakdown:
        print_breakdown(a);
        print_kernels(a, o.top);
        break;
      case TraceView::overlap:
        print_overlap(a);
        break;
      case TraceView::idle:
        print_idle(a);
        break;
      case TraceView::launch:
        print_launch(a);
        break;
    }
  }
  return 0;
}

// The host's cost per call by kind (trace/HostCallCosts), and the same as a cluster file's
// `host:` section, so that the simulator prices the host as the profile measured it.
int print_host_costs(const TraceOptions& o) {
  const Trace trace = load(o.traces);
  std::vector<HostCallCosts> ranks;
  try {
    for (const RankTrace& r : trace.ranks) ranks.push_back(host_call_costs(r, o.step));
  } catch (const std::out_of_range& e) {
    throw InputError(SourceLocation{"--step", 0, 0}, e.what());
  }
  auto us = [](int64_t ns) { return fmt::format("{:.1f}us", static_cast<double>(ns) * 1e-3); };
  if (o.format == "json") {
    nlohmann::json doc = nlohmann::json::array();
    for (const HostCallCosts& c : ranks) {
      nlohmann::json kinds = nlohmann::json::object(), host = nlohmann::json::object();
      for (size_t k = 0; k < c.kinds.size(); ++k) {
        const HostCallKindCost& kc = c.kinds[k];
        const std::string name(kProfiledHostCallKinds[k]);
        // A kind without a call has no time: null, not 0.
        const auto figure = [&](int64_t ns) { return kc.calls > 0 ? nlohmann::json(ns) : nullptr; };
        kinds[name] = {{"calls", kc.calls},
                       {"p10_ns", figure(kc.p10_ns)},
                       {"median_ns", figure(kc.median_ns)},
                       {"p90_ns", figure(kc.p90_ns)}};
        if (kc.calls > 0) host[name] = us(kc.median_ns);
      }
      doc.push_back({{"rank", c.rank},
                     {"step", c.step},
                     {"kinds", kinds},
                     {"launch_calls", c.launch_calls},
                     {"launch_median_ns", c.launch_calls > 0 ? nlohmann::json(c.launch_median_ns)
                                                             : nlohmann::json(nullptr)},
                     {"host", host}});
    }
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  if (o.format == "csv") {
    std::cout << "rank,kind,calls,p10_ns,median_ns,p90_ns\n";
    for (const HostCallCosts& c : ranks)
      for (size_t k = 0; k < c.kinds.size(); ++k) {
        const HostCallKindCost& kc = c.kinds[k];
        if (kc.calls == 0)
          std::cout << fmt::format("{},{},0,n/a,n/a,n/a\n", c.rank, kProfiledHostCallKinds[k]);
        else
          std::cout << fmt::format("{},{},{},{},{},{}\n", c.rank, kProfiledHostCallKinds[k],
                                   kc.calls, kc.p10_ns, kc.median_ns, kc.p90_ns);
      }
    return 0;
  }
  for (size_t i = 0; i < ranks.size(); ++i) {
    const HostCallCosts& c = ranks[i];
    std::cout << fmt::format("rank {}  {}  {}\n", c.rank, trace.ranks[i].file,
                             c.step >= 0 ? fmt::format("ProfilerStep#{}", c.step) : "whole trace");
    std::cout << fmt::format("  host time per call, its launch calls left out\n");
    std::cout << fmt::format("  {:<14} {:>7} {:>10} {:>10} {:>10}\n", "kind", "calls", "p10",
                             "median", "p90");
    std::string host;
    for (size_t k = 0; k < c.kinds.size(); ++k) {
      const HostCallKindCost& kc = c.kinds[k];
      if (kc.calls == 0) continue;
      std::cout << fmt::format("  {:<14} {:>7} {:>10} {:>10} {:>10}\n", kProfiledHostCallKinds[k],
                               kc.calls, time_text(kc.p10_ns), time_text(kc.median_ns),
                               time_text(kc.p90_ns));
      host += fmt::format("{}{}: {}", host.empty() ? "" : ", ", kProfiledHostCallKinds[k],
                          us(kc.median_ns));
    }
    if (host.empty()) {
      std::cout << "  no framework call in the trace (no cpu_op events)\n";
      continue;
    }
    std::cout << fmt::format(
        "  {} launch calls, median {} (the device graph's launch_overhead prices them)\n",
        c.launch_calls, c.launch_calls > 0 ? time_text(c.launch_median_ns) : "n/a");
    std::cout << "  for a cluster file (docs/formats.md, \"host\"; python_module is not in a "
                 "profile):\n";
    std::cout << fmt::format("  host: {{{}}}\n", host);
  }
  return 0;
}

int print_diff(const TraceOptions& o) {
  if (o.traces.size() != 2)
    throw InputError(SourceLocation{"trace diff", 0, 0},
                     fmt::format("{} traces given; expected two: BEFORE AFTER", o.traces.size()));
  const Trace before = load({o.traces[0]});
  const Trace after = load({o.traces[1]});
  TraceDiff diff;
  try {
    diff = diff_traces(before, after, o.step);
  } catch (const std::out_of_range& e) {
    throw InputError(SourceLocation{"--step", 0, 0}, e.what());
  }
  if (o.format == "json") {
    std::cout << trace_diff_json(diff).dump(2) << "\n";
    return 0;
  }
  if (o.format == "csv") {
    std::cout << trace_diff_csv(diff);
    return 0;
  }
  auto signed_time = [](int64_t ns) { return (ns > 0 ? "+" : "") + time_text(ns); };
  std::cout << fmt::format("before: {}   after: {}\n", o.traces[0], o.traces[1]);
  std::cout << fmt::format("wall {} -> {} ({}), GPU time {} -> {} ({}), summed over ranks\n",
                           time_text(diff.before_wall_ns), time_text(diff.after_wall_ns),
                           signed_time(diff.after_wall_ns - diff.before_wall_ns),
                           time_text(diff.before_gpu_ns), time_text(diff.after_gpu_ns),
                           signed_time(diff.after_gpu_ns - diff.before_gpu_ns));
  std::cout << fmt::format("{:>10}  {:>10}  {:>11}  {:>8}  {}\n", "before", "after", "change",
                           "change %", "operator");
  size_t shown = 0;
  for (const OperatorTimeChange& c : diff.operators) {
    if (shown++ >= o.top) break;
    const std::string pct =
        c.before_ns > 0 ? fmt::format("{:+.1f} %", 100.0 * static_cast<double>(c.change_ns()) /
                                                       static_cast<double>(c.before_ns))
                        : "new";
    std::cout << fmt::format("{:>10}  {:>10}  {:>11}  {:>8}  {}\n", time_text(c.before_ns),
                             time_text(c.after_ns), signed_time(c.change_ns()), pct, c.name);
  }
  if (diff.operators.size() > o.top)
    std::cout << fmt::format("({} more operators; --top N lists more)\n",
                             diff.operators.size() - o.top);
  return 0;
}

}  // namespace

int run_trace(const TraceOptions& o) {
  try {
    if (o.view == "diff") return print_diff(o);
    if (o.view == "host") return print_host_costs(o);
    const TraceView view = o.view == "breakdown" ? TraceView::breakdown
                           : o.view == "overlap" ? TraceView::overlap
                           : o.view == "idle"    ? TraceView::idle
                           : o.view == "launch"  ? TraceView::launch
                                                 : TraceView::summary;
    return print_analysis(o, view);
  } catch (const TraceImportCancelled&) {
    std::cerr << "trace: cancelled\n";
    return 130;
  }
}

}  // namespace ts::cli
