#include "views/ReportTrace.hpp"

#include <fmt/format.h>

#include <QApplication>
#include <algorithm>
#include <filesystem>

#include "common/QuantityFormat.hpp"
#include "views/LaunchDelayHistogram.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/ReportHtmlParts.hpp"
#include "views/TraceBreakdownChart.hpp"

namespace ts::views {
namespace {

// As `tilescope trace` prints them (TraceCommand.cpp): three significant figures.
std::string trace_report_time(int64_t ns) {
  return format_quantity(static_cast<double>(ns) * 1e-9, "s");
}
std::string trace_report_share(int64_t part, int64_t whole) {
  return whole > 0 ? fmt::format("{:.1f} %",
                                 100.0 * static_cast<double>(part) / static_cast<double>(whole))
                   : "-";
}

std::string trace_report_window(const TraceReport& r) {
  return r.step >= 0 ? fmt::format("ProfilerStep#{}", r.step) : "the whole trace";
}

std::string trace_report_files(const TraceReport& r) {
  std::string text;
  for (const std::string& t : r.traces)
    text += (text.empty() ? "" : ", ") + std::filesystem::path(t).filename().string();
  return text;
}

std::vector<std::pair<std::string, std::string>> trace_summary_facts(const TraceReport& r) {
  std::vector<std::pair<std::string, std::string>> facts;
  std::string devices;
  for (const RankAnalysis& a : r.ranks)
    if (!a.device_name.empty() && devices.find(a.device_name) == std::string::npos)
      devices += (devices.empty() ? "" : ", ") + a.device_name;
  facts.push_back({"traces", fmt::format("{} ({} ranks{}{})", trace_report_files(r), r.ranks.size(),
                                         devices.empty() ? "" : ", ", devices)});
  std::string files;
  for (const RankAnalysis& a : r.ranks)
    files += fmt::format("{}rank {} {}", files.empty() ? "" : ", ", a.rank,
                         std::filesystem::path(a.file).filename().string());
  if (!files.empty()) facts.push_back({"files", files});
  facts.push_back({"window", trace_report_window(r)});
  if (r.ranks.empty()) return facts;
  const auto longest = std::max_element(r.ranks.begin(), r.ranks.end(),
                                        [](const RankAnalysis& a, const RankAnalysis& b) {
                                          return a.window.wall_ns() < b.window.wall_ns();
                                        });
  const auto shortest = std::min_element(r.ranks.begin(), r.ranks.end(),
                                         [](const RankAnalysis& a, const RankAnalysis& b) {
                                           return a.window.wall_ns() < b.window.wall_ns();
                                         });
  facts.push_back(
      {"wall time",
       fmt::format("{} (rank {}) to {} (rank {})", trace_report_time(shortest->window.wall_ns()),
                   shortest->rank, trace_report_time(longest->window.wall_ns()), longest->rank)});
  int64_t wall = 0, compute = 0, communication = 0, memory = 0, idle = 0;
  for (const RankAnalysis& a : r.ranks) {
    wall += a.temporal.wall_ns();
    compute += a.temporal.compute_ns;
    communication += a.temporal.communication_ns;
    memory += a.temporal.memory_ns;
    idle += a.temporal.idle_ns;
  }
  facts.push_back(
      {"over all ranks",
       fmt::format("compute {}, communication {}, memory {}, idle {} "
                   "of the wall time",
                   trace_report_share(compute, wall), trace_report_share(communication, wall),
                   trace_report_share(memory, wall), trace_report_share(idle, wall))});
  const auto idlest = std::max_element(r.ranks.begin(), r.ranks.end(),
                                       [](const RankAnalysis& a, const RankAnalysis& b) {
                                         return a.temporal.idle_ns < b.temporal.idle_ns;
                                       });
  facts.push_back({"most idle", fmt::format("rank {}: {} ({} of its wall time)", idlest->rank,
                                            trace_report_time(idlest->temporal.idle_ns),
                                            trace_report_share(idlest->temporal.idle_ns,
                                                               idlest->temporal.wall_ns()))});
  size_t notes = 0;
  for (const RankAnalysis& a : r.ranks) notes += a.notes.size();
  if (notes > 0) facts.push_back({"notes", fmt::format("{} (see Notes)", notes)});
  return facts;
}

void trace_breakdown_table(std::string& h, const TraceReport& r) {
  h += "<table class=\"stats\" id=\"trace-breakdown-table\">\n";
  // No file column: on A4 the times and shares would wrap (the files are in the summary box).
  h += html_row({"rank", "wall", "compute", "communication", "memory", "idle"}, "th");
  for (const RankAnalysis& a : r.ranks) {
    const TemporalBreakdown& t = a.temporal;
    auto part = [&](int64_t ns) {
      return fmt::format("{} ({})", trace_report_time(ns), trace_report_share(ns, t.wall_ns()));
    };
    h += html_row({std::to_string(a.rank), trace_report_time(t.wall_ns()), part(t.compute_ns),
                   part(t.communication_ns), part(t.memory_ns), part(t.idle_ns)});
  }
  h += "</table>\n";
}

void trace_overlap_table(std::string& h, const TraceReport& r) {
  h += "<table class=\"stats\" id=\"trace-overlap-table\">\n";
  h += html_row({"rank", "communication", "under compute", "overlap", "exposed"}, "th");
  for (const RankAnalysis& a : r.ranks) {
    const CommunicationOverlap& o = a.overlap;
    if (o.communication_ns == 0) {
      h += html_row({std::to_string(a.rank), "none", "-", "-", "-"});
      continue;
    }
    h += html_row({std::to_string(a.rank), trace_report_time(o.communication_ns),
                   trace_report_time(o.overlapped_ns),
                   trace_report_share(o.overlapped_ns, o.communication_ns),
                   trace_report_time(o.communication_ns - o.overlapped_ns)});
  }
  h += "</table>\n";
}

void trace_idle_tables(std::string& h, const TraceReport& r) {
  h += "<table class=\"stats\" id=\"trace-idle-table\">\n";
  h += html_row({"rank", "device idle", "host-bound", "other"}, "th");
  for (const RankAnalysis& a : r.ranks) {
    const IdleBreakdown& i = a.idle;
    h += html_row({std::to_string(a.rank), trace_report_time(i.device_idle_ns()),
                   fmt::format("{} ({})", trace_report_time(i.device_host_bound_ns),
                               trace_report_share(i.device_host_bound_ns, i.device_idle_ns())),
                   fmt::format("{} ({})", trace_report_time(i.device_other_ns),
                               trace_report_share(i.device_other_ns, i.device_idle_ns()))});
  }
  h += "</table>\n<p>Per stream: the gaps between a stream's work, by cause.</p>\n";
  h += "<table class=\"stats\" id=\"trace-stream-idle-table\">\n";
  h += html_row({"rank", "stream", "gaps", "idle", "host-bound", "other stream", "other"}, "th");
  for (const RankAnalysis& a : r.ranks)
    for (const StreamIdle& s : a.idle.streams)
      h += html_row({std::to_string(a.rank), std::to_string(s.stream), std::to_string(s.gaps),
                     trace_report_time(s.idle_ns()), trace_report_time(s.host_bound_ns),
                     trace_report_time(s.other_stream_ns), trace_report_time(s.other_ns)});
  h += "</table>\n";
}

void trace_launch_table(std::string& h, const TraceReport& r) {
  h += "<table class=\"stats\" id=\"trace-launch-table\">\n";
  h += html_row({"rank", "launched", "without launch", "p50", "p90", "p99", "max",
                 "shorter than launch", "queue max / mean"},
                "th");
  for (const RankAnalysis& a : r.ranks) {
    const LaunchStatistics& l = a.launch;
    if (l.launched == 0) {
      h += html_row({std::to_string(a.rank), "0", std::to_string(l.unlaunched), "-", "-", "-", "-",
                     "-", "-"});
      continue;
    }
    h += html_row(
        {std::to_string(a.rank), std::to_string(l.launched), std::to_string(l.unlaunched),
         trace_report_time(l.delay_p50_ns), trace_report_time(l.delay_p90_ns),
         trace_report_time(l.delay_p99_ns), trace_report_time(l.delay_max_ns),
         fmt::format("{} ({})", l.shorter_than_launch, trace_report_time(l.shorter_than_launch_ns)),
         fmt::format("{} / {:.1f}", l.max_queue, l.mean_queue)});
  }
  h += "</table>\n";
}

void trace_kernel_tables(std::string& h, const TraceReport& r) {
  for (const RankAnalysis& a : r.ranks) {
    const KernelBreakdown& k = a.kernels;
    h += fmt::format("<h3 id=\"trace-kernels-rank-{0}\">Rank {0}</h3>\n", a.rank);
    h += fmt::format(
        "<p>GPU time {} in {} kinds of work: compute {}, communication {}, memory {} (summed "
        "durations, so work that overlaps counts twice). The {} longest:</p>\n",
        trace_report_time(k.total_ns()), k.kernels.size(), trace_report_time(k.class_ns[0]),
        trace_report_time(k.class_ns[1]), trace_report_time(k.class_ns[2]),
        std::min(r.top_kernels, k.kernels.size()));
    h += "<table class=\"ops\">\n";
    h += html_row({"kernel", "class", "count", "total", "trace_report_share"}, "th");
    for (size_t i = 0; i < k.kernels.size() && i < r.top_kernels; ++i) {
      const KernelTime& t = k.kernels[i];
      h += html_row({t.name, std::string(to_string(t.time_class)), std::to_string(t.count),
                     trace_report_time(t.total_ns), trace_report_share(t.total_ns, k.total_ns())});
    }
    h += "</table>\n<table class=\"ops\">\n";
    h += html_row({"launching operator", "GPU activities", "total", "trace_report_share"}, "th");
    for (size_t i = 0; i < k.operators.size() && i < r.top_kernels; ++i) {
      const OperatorGpuTime& o = k.operators[i];
      h += html_row({o.name, std::to_string(o.kernels), trace_report_time(o.total_ns),
                     trace_report_share(o.total_ns, k.total_ns())});
    }
    h += "</table>\n";
  }
}

// The step on another chip: measured, predicted here, predicted there, there by ratio, the
// modelled operators and what was carried over, then the operators longest first.
void trace_elsewhere_tables(std::string& h, const TraceStepPrediction& p, size_t top) {
  auto t = [](double ns) { return format_quantity(ns * 1e-9, "s"); };
  h += "<table class=\"stats\" id=\"trace-elsewhere-table\">\n";
  h += html_row({"", "measured", "predicted here (" + p.here + ")",
                 "predicted there (" + p.there + ")", "there by ratio"},
                "th");
  h += html_row({"step time", t(p.wall_ns), t(p.predicted_here_wall_ns()),
                 t(p.predicted_there_wall_ns()), t(p.there_by_ratio_wall_ns())});
  h += html_row({"modelled operators", t(p.modelled_ns), t(p.here_ns), t(p.there_ns),
                 t(p.there_by_ratio_ns)});
  h += html_row({"carried over", t(p.carried_ns()), "as measured", "as measured", "as measured"});
  h += "</table>\n";
  h += "<table class=\"ops\" id=\"trace-elsewhere-operators\">\n";
  h += html_row({"operator", "shape", "class", "runs", "measured", "here", "there"}, "th");
  size_t shown = 0;
  for (const StepOperatorPrediction& o : p.operators) {
    if (shown++ == top) break;
    h += html_row({o.name, o.shape, o.op_class, std::to_string(o.runs), t(o.measured_ns),
                   o.here_ns ? t(*o.here_ns) : "-", o.there_ns ? t(*o.there_ns) : "-"});
  }
  h += "</table>\n";
}

std::string trace_data_block(const TraceReport& r) {
  nlohmann::json data = trace_analysis_json(r.ranks, TraceView::summary, r.top_kernels);
  if (r.elsewhere)
    data = {{"ranks", data}, {"on_another_chip", trace_step_prediction_json(*r.elsewhere)}};
  std::string text = data.dump(1);
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");  // "</" would end the script element early
  return "<script type=\"application/json\" id=\"tilescope-trace-data\">\n" + text +
         "\n</script>\n";
}

std::string trace_report_title(const TraceReport& r) {
  return fmt::format("tilescope trace report: {}, {}", trace_report_files(r),
                     trace_report_window(r));
}

}  // namespace

ReportFigures render_trace_figures(const TraceReport& r) {
  ReportFigures out;
  const QPalette palette = report_palette();
  // Wide enough for the labels, narrow enough that A4 shrinks the fonts by at most 7/9.
  const int width = kMaxPdfPlotWidth - 43;
  {
    QCustomPlot plot;
    const QString title =
        QString::fromStdString("Where each rank's GPU time went: " + trace_report_window(r));
    const int height = std::clamp(
        fill_trace_breakdown_chart(plot, r.ranks, title, palette).readable_height, 240, 1400);
    out.figures.push_back(plot_report_figure(
        plot, "trace-breakdown",
        "Each rank's wall time as compute, communication (not under compute), memory (under "
        "neither) and idle: every instant counted once, so a bar is the rank's wall time.",
        width, height));
  }
  {
    QCustomPlot plot;
    std::vector<LaunchDelaySeries> series;
    for (const RankAnalysis& a : r.ranks)
      series.push_back({QStringLiteral("rank %1").arg(a.rank), &a.launch});
    fill_launch_delay_histogram(
        plot, series, QString::fromStdString("Launch-to-start delay: " + trace_report_window(r)),
        palette);
    out.figures.push_back(plot_report_figure(
        plot, "trace-launch-delays",
        "How long GPU work waited from the start of its launch call to its own start, per rank: "
        "short delays with idle time mean the host could not launch fast enough.",
        width, 420));
  }
  return out;
}

std::string trace_report_html(const TraceReport& r, const ReportFigures& figures,
                              ReportFormat format) {
  const ReportFigurePlacer placer(figures, format);
  const std::string title = trace_report_title(r);
  std::string h = report_head(title) + "<body>\n";
  h += "<h1>" + html_escape(title) + "</h1>\n";
  h += fmt::format("<p>Made by {} at {} with <code>{}</code>.</p>\n", html_escape(r.tool_version),
                   html_escape(r.generated_at), html_escape(r.command_line));
  h += summary_box(trace_summary_facts(r));
  bool notes = false;
  for (const RankAnalysis& a : r.ranks) notes = notes || !a.notes.empty();
  std::vector<ReportSection> sections{{"trace-breakdown", "Where the time went"},
                                      {"trace-overlap", "Communication overlap"},
                                      {"trace-idle", "Idle time by cause"},
                                      {"trace-launch", "Launch statistics"},
                                      {"trace-kernels", "Kernels and operators"}};
  if (r.elsewhere) sections.push_back({"trace-elsewhere", "This step on another chip"});
  if (notes) sections.push_back({"trace-notes", "Notes"});
  h += table_of_contents(sections);

  h += "<h2 id=\"trace-breakdown\">Where the time went</h2>\n";
  h += fmt::format(
      "<p>Over {} of each rank (ranks' clocks are their own: every figure is per rank). Each "
      "instant counts once: as compute when any compute kernel ran, else communication when a "
      "collective ran, else memory when a copy or set ran, else idle; the four add up to the "
      "wall time.</p>\n",
      html_escape(trace_report_window(r)));
  h += placer.figure("trace-breakdown");
  trace_breakdown_table(h, r);

  h += "<h2 id=\"trace-overlap\">Communication overlap</h2>\n";
  h += "<p>The union of the collectives' time, how much of it ran while compute ran, and the "
       "rest (exposed: the GPU doing nothing but communicate).</p>\n";
  trace_overlap_table(h, r);

  h += "<h2 id=\"trace-idle\">Idle time by cause</h2>\n";
  h += "<p>Host-bound: the next work had not been launched when the GPU went idle (waiting on "
       "the CPU). Other stream: the next work was queued while another stream of the rank ran. "
       "Other: the rest (a synchronisation, a launch the trace does not show).</p>\n";
  trace_idle_tables(h, r);

  h += "<h2 id=\"trace-launch\">Launch statistics</h2>\n";
  h += placer.figure("trace-launch-delays");
  trace_launch_table(h, r);

  h += "<h2 id=\"trace-kernels\">Kernels and operators</h2>\n";
  trace_kernel_tables(h, r);

  if (r.elsewhere) {
    const TraceStepPrediction& p = *r.elsewhere;
    h += "<h2 id=\"trace-elsewhere\">This step on another chip</h2>\n";
    h += fmt::format(
        "<p>{} of {}{}, measured, then predicted on {} (the chip it ran on) and on {}: each "
        "operator tilescope models (its runs' kernels summed) predicted on both graphs, the rest "
        "of the step ({} of {}: collectives, kernels without a model, idle time, overlap) carried "
        "over as measured. Predicted here is {} from the measured step: the model's error on the "
        "chip the trace came from, which says how far to trust predicted there. There by ratio "
        "applies each operator's there / here to its measured time.</p>\n",
        html_escape(trace_report_window(r)), html_escape(p.file),
        p.device_name.empty() ? "" : " (" + html_escape(p.device_name) + ")", html_escape(p.here),
        html_escape(p.there), html_escape(format_quantity(p.carried_ns() * 1e-9, "s")),
        html_escape(format_quantity(p.wall_ns * 1e-9, "s")),
        p.wall_ns > 0
            ? fmt::format("{:+.1f} %", 100.0 * (p.predicted_here_wall_ns() / p.wall_ns - 1))
            : std::string("-"));
    trace_elsewhere_tables(h, p, r.top_kernels);
    h += "<p>" + html_escape(coverage_text(p.coverage)) + "</p>\n";
    if (!p.notes.empty()) {
      h += "<ul>\n";
      for (const std::string& n : p.notes) h += "<li>" + html_escape(n) + "</li>\n";
      h += "</ul>\n";
    }
  }

  if (notes) {
    h += "<h2 id=\"trace-notes\">Notes</h2>\n<ul>\n";
    for (const RankAnalysis& a : r.ranks)
      for (const std::string& n : a.notes)
        h += "<li>" + html_escape(fmt::format("rank {} ({}): {}", a.rank, a.file, n)) + "</li>\n";
    h += "</ul>\n";
  }
  if (format == ReportFormat::html) h += trace_data_block(r);
  h += "</body>\n</html>\n";
  if (format == ReportFormat::pdf)
    prepare_html_for_pdf(h, {"summary", "stats", "ops"}, {"summary", "stats"});
  return h;
}

void write_trace_report(const TraceReport& r, const ReportFigures& figures,
                        const std::string& out_path) {
  write_report_document([&](ReportFormat format) { return trace_report_html(r, figures, format); },
                        figures, trace_report_title(r), r.tool_version, out_path);
}

}  // namespace ts::views
