#include "views/TimelinePlot.hpp"

#include <algorithm>
#include <map>

#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TraceTimeline.hpp"

namespace ts::views {
namespace {

QColor category_colour(const std::string& category) {
  // Okabe-Ito hues, as the correlation plot uses.
  static const std::map<std::string, QColor> colours = {{"forward", QColor(0, 114, 178)},
                                                        {"backward", QColor(230, 159, 0)},
                                                        {"recompute", QColor(204, 121, 167)},
                                                        {"collective", QColor(0, 158, 115)},
                                                        {"pipeline transfer", QColor(86, 180, 233)},
                                                        {"optimizer", QColor(213, 94, 0)},
                                                        {"measured kernel", QColor(95, 75, 180)},
                                                        {"predicted kernel", QColor(240, 228, 66)}};
  const auto it = colours.find(category);
  return it == colours.end() ? QColor(128, 128, 128) : it->second;
}

QColor counter_colour(size_t k) {
  // Okabe-Ito again, in an order that starts apart from the forward bars' blue.
  static const QColor colours[] = {QColor(213, 94, 0),   QColor(0, 158, 115), QColor(204, 121, 167),
                                   QColor(86, 180, 233), QColor(230, 159, 0), QColor(0, 114, 178)};
  return colours[k % (sizeof colours / sizeof colours[0])];
}

// Memory over time (the trace's counters) in a strip under the Gantt chart, on the same time
// axis: it follows the chart's zoom and drag, and its left margin lines up with the chart's.
void add_counter_rect(QCustomPlot& plot, const SimulationTimeline& timeline) {
  if (timeline.counters.empty()) return;
  auto* rect = new QCPAxisRect(&plot);
  plot.plotLayout()->addElement(plot.plotLayout()->rowCount(), 0, rect);
  plot.plotLayout()->setRowStretchFactor(plot.plotLayout()->rowCount() - 1, 0.35);
  QCPMarginGroup* margins = plot.axisRect(0)->marginGroup(QCP::msLeft);
  if (!margins) margins = new QCPMarginGroup(&plot);
  plot.axisRect(0)->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
  QCPAxis* x = rect->axis(QCPAxis::atBottom);
  QCPAxis* y = rect->axis(QCPAxis::atLeft);
  x->setRange(plot.xAxis->range());
  QObject::connect(plot.xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), x,
                   qOverload<const QCPRange&>(&QCPAxis::setRange));
  double peak = 0;
  for (size_t k = 0; k < timeline.counters.size(); ++k) {
    const TimelineCounter& c = timeline.counters[k];
    QCPGraph* g = plot.addGraph(x, y);
    g->setName(QString::fromStdString(c.name));
    g->setLineStyle(QCPGraph::lsStepLeft);
    QVector<double> t, v;
    for (const auto& [time, value] : c.samples) {
      t.push_back(time);
      v.push_back(value);
    }
    g->setData(t, v, true);
    g->setPen(QPen(counter_colour(k), 1.5));
    g->removeFromLegend();
    peak = std::max(peak, c.peak());
  }
  const std::string unit = timeline.counters.front().unit;
  y->setLabel(QString::fromStdString("memory (" + unit + ")"));
  y->setRange(0, std::max(peak, 1e-9) * 1.1);
  x->setLabel("time in the iteration (s)");
  plot.xAxis->setLabel(QString());
}

}  // namespace

void fill_timeline_plot(QCustomPlot& plot, const SimulationTimeline& timeline,
                        const QPalette& palette) {
  plot.clearGraphs();
  plot.clearItems();
  plot.clearPlottables();
  // Back to a fresh plot's layout: an earlier fill's memory rect (last row) and title (first) go.
  while (plot.axisRectCount() > 1)
    plot.plotLayout()->remove(plot.axisRect(plot.axisRectCount() - 1));
  plot.plotLayout()->simplify();
  if (plot.plotLayout()->rowCount() > 1) {
    plot.plotLayout()->removeAt(0);
    plot.plotLayout()->simplify();
  }
  const int rows = static_cast<int>(timeline.tracks.size());
  QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
  std::map<std::string, bool> legend;
  for (int r = 0; r < rows; ++r) {
    const TimelineTrack& track = timeline.tracks[static_cast<size_t>(r)];
    // Row 0 at the top, as people read a Gantt chart.
    const double y = rows - 1 - r;
    names->addTick(y, QString::fromStdString(track.name));
    for (const TimelineSpan& span : track.spans) {
      // An imported trace's tracks are coloured as measured or predicted (TraceTimeline).
      std::string category = trace_span_category(track.name);
      if (category.empty()) category = span_category(span, track.name);
      auto* bar = new QCPItemRect(&plot);
      bar->topLeft->setCoords(span.start_s, y + 0.38);
      bar->bottomRight->setCoords(span.start_s + span.duration_s, y - 0.38);
      const QColor c = category_colour(category);
      bar->setBrush(c);
      bar->setPen(QPen(palette.color(QPalette::Base), 0.5));
      bar->setSelectable(false);
      legend[category] = true;
    }
  }
  // One empty graph per category carries its legend entry.
  for (const auto& [category, present] : legend) {
    QCPGraph* g = plot.addGraph();
    g->setName(QString::fromStdString(category));
    g->setLineStyle(QCPGraph::lsNone);
    const QColor c = category_colour(category);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, c, c, 9));
  }
  plot.yAxis->setTicker(names);
  plot.yAxis->setSubTicks(false);
  plot.yAxis->setRange(-0.7, rows - 0.3);
  plot.yAxis->grid()->setVisible(false);
  plot.xAxis->setScaleType(QCPAxis::stLinear);
  plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot.xAxis->setLabel("time in the iteration (s)");
  plot.xAxis->setRange(0, std::max(timeline.end_s(), 1e-9) * 1.02);
  plot.setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot.axisRect()->setRangeDrag(Qt::Horizontal);
  plot.axisRect()->setRangeZoom(Qt::Horizontal);
  plot.legend->setVisible(!legend.empty());
  plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  add_counter_rect(plot, timeline);
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0,
                                new QCPTextElement(&plot, QString::fromStdString(timeline.title)));
  apply_plot_palette(plot, palette);
  plot.replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ts::views
