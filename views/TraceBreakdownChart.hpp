#pragma once
// Where each rank's GPU time went, as one stacked horizontal bar per rank (rank 0 on top):
// compute, communication, memory and idle, in the times of core's temporal breakdown
// (trace/TraceBreakdown.hpp), so that the four segments of a bar add up to the rank's wall time
// and a straggler's bar is the longer one. The one builder of this figure: the GUI's Trace page
// and the trace section of `tilescope report` draw the same bars, in the same colours.
#include <QColor>
#include <QPalette>
#include <QString>
#include <array>
#include <vector>

#include "trace/TraceAnalysis.hpp"

class QCustomPlot;
class QCPBars;

namespace ts::views {

// The four parts of a temporal breakdown, in the order the bars stack them (left to right).
enum class TraceTimePart { compute, communication, memory, idle };
inline constexpr std::array<TraceTimePart, 4> kTraceTimeParts{
    TraceTimePart::compute, TraceTimePart::communication, TraceTimePart::memory,
    TraceTimePart::idle};

QString trace_time_part_name(TraceTimePart part);  // "compute", "communication", ...
// One colour per part wherever a trace's time is drawn or listed (Okabe-Ito hues; idle grey).
QColor trace_time_part_colour(TraceTimePart part);
int64_t trace_time_part_ns(const TemporalBreakdown& breakdown, TraceTimePart part);

struct TraceBreakdownChartContents {
  std::array<QCPBars*, 4> bars{};  // by TraceTimePart; a bar's key of rank i is (ranks - i)
  int readable_height = 0;         // pixels at which every rank's bar and label stay readable
};

// Clears `plot` (an earlier fill's bars, labels, title and legend row included) and draws the
// ranks' bars in milliseconds, each labelled at its end with its wall time, `title` above them.
TraceBreakdownChartContents fill_trace_breakdown_chart(QCustomPlot& plot,
                                                       const std::vector<RankAnalysis>& ranks,
                                                       const QString& title,
                                                       const QPalette& palette);

// Undoes what a fill of a bar chart added to `plot`'s layout (a title row, the legend moved
// under the axis), so that a plot can be filled again; shared with the launch-delay histogram.
void reset_bar_chart_layout(QCustomPlot& plot);

}  // namespace ts::views
