#include "views/TraceBreakdownChart.hpp"

#include <algorithm>

#include "common/QuantityFormat.hpp"
#include "views/BarChartLegend.hpp"
#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace ts::views {
namespace {

// Pixels per rank's bar and the frame around them (title, axis, legend): a 9 pt label is about
// 12 px high.
constexpr int kRankBarPx = 22, kRankGapPx = 8, kBreakdownFramePx = 130;

// The time axis' unit: the one that keeps the longest bar between 1 and 1000.
struct BreakdownTimeUnit {
  double per_ns;
  const char* name;
};
BreakdownTimeUnit breakdown_time_unit(int64_t longest_ns) {
  if (longest_ns >= 1'000'000'000) return {1e-9, "s"};
  if (longest_ns >= 1'000'000) return {1e-6, "ms"};
  return {1e-3, "us"};
}

QString breakdown_rank_label(const RankAnalysis& a) {
  return QStringLiteral("rank %1").arg(a.rank);
}

}  // namespace

QString trace_time_part_name(TraceTimePart part) {
  switch (part) {
    case TraceTimePart::compute:
      return QStringLiteral("compute");
    case TraceTimePart::communication:
      return QStringLiteral("communication");
    case TraceTimePart::memory:
      return QStringLiteral("memory");
    case TraceTimePart::idle:
      break;
  }
  return QStringLiteral("idle");
}

// Compute blue and communication green as the timeline's forward and collective bars, memory
// orange; idle a grey that reads as "nothing" on a light and on a dark background.
QColor trace_time_part_colour(TraceTimePart part) {
  switch (part) {
    case TraceTimePart::compute:
      return QColor(0, 114, 178);
    case TraceTimePart::communication:
      return QColor(0, 158, 115);
    case TraceTimePart::memory:
      return QColor(230, 159, 0);
    case TraceTimePart::idle:
      break;
  }
  return QColor(160, 160, 160);
}

int64_t trace_time_part_ns(const TemporalBreakdown& t, TraceTimePart part) {
  switch (part) {
    case TraceTimePart::compute:
      return t.compute_ns;
    case TraceTimePart::communication:
      return t.communication_ns;
    case TraceTimePart::memory:
      return t.memory_ns;
    case TraceTimePart::idle:
      break;
  }
  return t.idle_ns;
}

void reset_bar_chart_layout(QCustomPlot& plot) {
  plot.clearPlottables();
  plot.clearItems();
  // An earlier fill's bar groups are empty now (their bars went with the plottables).
  for (QCPBarsGroup* old : plot.findChildren<QCPBarsGroup*>(Qt::FindDirectChildrenOnly)) delete old;
  unframe_bar_chart(plot);
}

TraceBreakdownChartContents fill_trace_breakdown_chart(QCustomPlot& plot,
                                                       const std::vector<RankAnalysis>& ranks,
                                                       const QString& title,
                                                       const QPalette& palette) {
  reset_bar_chart_layout(plot);
  TraceBreakdownChartContents out;
  const size_t n = ranks.size();
  int64_t longest_ns = 0;
  for (const RankAnalysis& a : ranks) longest_ns = std::max(longest_ns, a.temporal.wall_ns());
  const BreakdownTimeUnit unit = breakdown_time_unit(longest_ns);

  // Rank 0 at the top: keys count down.
  QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
  for (size_t i = 0; i < n; ++i)
    names->addTick(static_cast<double>(n - i), breakdown_rank_label(ranks[i]));
  plot.yAxis->setTicker(names);
  plot.yAxis->setSubTicks(false);
  plot.yAxis->setTickLength(0, 4);
  plot.yAxis->setRange(0.4, static_cast<double>(n) + 0.6);
  plot.xAxis->setScaleType(QCPAxis::stLinear);
  plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot.xAxis->setNumberFormat("g");
  plot.xAxis->setLabel(QStringLiteral("GPU time in the window (%1): each instant counted once, as "
                                      "compute, else communication, else memory, else idle")
                           .arg(unit.name));
  // Room on the right for the wall-time labels.
  const double longest = static_cast<double>(longest_ns) * unit.per_ns;
  plot.xAxis->setRange(0, longest > 0 ? longest * 1.22 : 1);

  QCPBars* below = nullptr;
  for (TraceTimePart part : kTraceTimeParts) {
    auto* b = new QCPBars(plot.yAxis, plot.xAxis);
    out.bars[static_cast<size_t>(part)] = b;
    const QColor colour = trace_time_part_colour(part);
    b->setPen(QPen(colour.darker(130)));
    b->setBrush(colour);
    b->setWidth(0.7);
    b->setName(trace_time_part_name(part));
    QVector<double> keys, values;
    for (size_t i = 0; i < n; ++i) {
      keys << static_cast<double>(n - i);
      values << static_cast<double>(trace_time_part_ns(ranks[i].temporal, part)) * unit.per_ns;
    }
    b->setData(keys, values, false);  // the keys count down: not sorted
    if (below) b->moveAbove(below);
    below = b;
  }

  QFont small = plot.font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.85));
  const QColor text = palette.color(QPalette::Text);
  for (size_t i = 0; i < n; ++i) {
    const int64_t wall_ns = ranks[i].temporal.wall_ns();
    auto* item = new QCPItemText(&plot);
    item->setClipToAxisRect(true);
    item->position->setAxes(plot.xAxis, plot.yAxis);
    item->position->setCoords(static_cast<double>(wall_ns) * unit.per_ns,
                              static_cast<double>(n - i));
    item->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    item->setPadding(QMargins(4, 0, 0, 0));
    item->setFont(small);
    item->setColor(text);
    const double idle = wall_ns > 0 ? 100.0 * static_cast<double>(ranks[i].temporal.idle_ns) /
                                          static_cast<double>(wall_ns)
                                    : 0.0;
    item->setText(
        QString::fromStdString(format_quantity(static_cast<double>(wall_ns) * 1e-9, "s")) +
        QStringLiteral(", idle %1 %").arg(idle, 0, 'f', 1));
  }

  frame_bar_chart(plot, {out.bars.begin(), out.bars.end()}, title,
                  palette);  // the legend in the bars' order
  out.readable_height = kBreakdownFramePx + static_cast<int>(n) * (kRankBarPx + kRankGapPx);
  return out;
}

}  // namespace ts::views
