#include "views/TimelinePlot.hpp"

#include <QFontMetricsF>
#include <algorithm>
#include <map>

#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TraceTimeline.hpp"

namespace ts::views {

QColor timeline_category_colour(const std::string& category) {
  // Okabe-Ito hues, as the correlation plot uses. A pipeline's transfers are vermillion, not
  // the sky blue they once were beside the forward passes' blue (issue 22).
  static const std::map<std::string, QColor> colours = {{"forward", QColor(0, 114, 178)},
                                                        {"backward", QColor(230, 159, 0)},
                                                        {"recompute", QColor(204, 121, 167)},
                                                        {"collective", QColor(0, 158, 115)},
                                                        {"pipeline transfer", QColor(213, 94, 0)},
                                                        {"optimizer", QColor(240, 228, 66)},
                                                        {"measured kernel", QColor(95, 75, 180)},
                                                        {"predicted kernel", QColor(86, 180, 233)},
                                                        {"host", QColor(64, 64, 64)}};
  const auto it = colours.find(category);
  return it == colours.end() ? QColor(128, 128, 128) : it->second;
}

double timeline_whole_range_s(const SimulationTimeline& timeline) {
  // A seventh more than the last bar's end: the legend's room at the right, off the bars.
  return std::max(timeline.end_s(), 1e-9) * 1.15;
}

namespace {

std::string category_of(const TimelineSpan& span, const std::string& track) {
  // An imported trace's tracks are coloured as measured or predicted (TraceTimeline).
  std::string category = trace_span_category(track);
  return category.empty() ? span_category(span, track) : category;
}

// Where the rows are laid out when no one says: the plot's axis rect, or a nominal width before
// the plot has been laid out (a report's plot is sized later).
double nominal_pixels(const QCustomPlot& plot) {
  const int w = plot.axisRect() ? plot.axisRect()->width() : 0;
  return w > 100 ? w : std::max(plot.width(), 800) * 0.8;
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
  const double end = timeline_whole_range_s(timeline);
  fill_timeline_plot(plot, timeline,
                     timeline_rows(timeline, 0, end, nominal_pixels(plot) / end, false), palette);
}

void fill_timeline_plot(QCustomPlot& plot, const SimulationTimeline& timeline,
                        const std::vector<TimelineRow>& rows, const QPalette& palette) {
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
  QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
  std::map<std::string, bool> legend;
  for (size_t r = 0; r < rows.size(); ++r) {
    const double y = row_centre(rows, r);
    const double half = row_half_height(rows[r]) * 0.76;
    if (rows[r].track < 0) {
      // The folded link tracks: a faint band with what it stands for (a click unfolds it).
      names->addTick(y, QString::fromStdString(folded_row_label(rows[r].folded)));
      auto* band = new QCPItemRect(&plot);
      band->setObjectName("folded links");
      band->topLeft->setTypeX(QCPItemPosition::ptAxisRectRatio);
      band->bottomRight->setTypeX(QCPItemPosition::ptAxisRectRatio);
      band->topLeft->setCoords(0, y + half);
      band->bottomRight->setCoords(1, y - half);
      QColor shade = palette.color(QPalette::Mid);
      shade.setAlpha(50);
      band->setBrush(shade);
      band->setPen(Qt::NoPen);
      band->setSelectable(false);
      continue;
    }
    const TimelineTrack& track = timeline.tracks[static_cast<size_t>(rows[r].track)];
    names->addTick(y, QString::fromStdString(track.name));
    for (const TimelineSpan& span : track.spans) {
      const std::string category = category_of(span, track.name);
      auto* bar = new QCPItemRect(&plot);
      bar->topLeft->setCoords(span.start_s, y + half);
      bar->bottomRight->setCoords(span.start_s + span.duration_s, y - half);
      const QColor c = timeline_category_colour(category);
      bar->setBrush(c);
      // A faint hairline a shade darker than the fill: it parts bars that touch, and bars
      // narrower than a pixel (0.9 ms all-reduces at an 18 s iteration's scale) show as a light
      // band, neither vanishing under a background-coloured outline nor posing as solid work.
      QColor edge = c.darker(140);
      edge.setAlpha(70);
      bar->setPen(QPen(edge, 0));
      bar->setSelectable(false);
      legend[category] = true;
    }
  }
  // One empty graph per category carries its legend entry.
  for (const auto& [category, present] : legend) {
    QCPGraph* g = plot.addGraph();
    g->setName(QString::fromStdString(category));
    g->setLineStyle(QCPGraph::lsNone);
    const QColor c = timeline_category_colour(category);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, c, c, 9));
  }
  plot.yAxis->setTicker(names);
  plot.yAxis->setSubTicks(false);
  plot.yAxis->setRange(-0.2, rows_height(rows) + 0.2);
  plot.yAxis->grid()->setVisible(false);
  plot.xAxis->setScaleType(QCPAxis::stLinear);
  plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot.xAxis->setLabel("time in the iteration (s)");
  plot.xAxis->setRange(0, timeline_whole_range_s(timeline));
  plot.setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot.axisRect()->setRangeDrag(Qt::Horizontal);
  plot.axisRect()->setRangeZoom(Qt::Horizontal);
  plot.legend->setVisible(!legend.empty());
  plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignVCenter | Qt::AlignRight);
  add_counter_rect(plot, timeline);
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0,
                                new QCPTextElement(&plot, QString::fromStdString(timeline.title)));
  apply_plot_palette(plot, palette);
  label_timeline_spans(plot, timeline, rows);
  plot.replot(QCustomPlot::rpQueuedReplot);
}

int label_timeline_spans(QCustomPlot& plot, const SimulationTimeline& timeline,
                         const std::vector<TimelineRow>& rows, int max_labels) {
  for (int i = plot.itemCount() - 1; i >= 0; --i)
    if (plot.item(i)->objectName() == "span label") plot.removeItem(i);
  const QCPRange range = plot.xAxis->range();
  const double pixels_per_s = nominal_pixels(plot) / std::max(range.size(), 1e-12);
  QFont font = plot.font();
  font.setPointSizeF(font.pointSizeF() * 0.85);
  const QFontMetricsF metrics(font);
  int written = 0;
  for (size_t r = 0; r < rows.size() && written < max_labels; ++r) {
    if (rows[r].track < 0) continue;
    const TimelineTrack& track = timeline.tracks[static_cast<size_t>(rows[r].track)];
    const double y = row_centre(rows, r);
    for (const TimelineSpan& span : track.spans) {
      const double start = std::max(span.start_s, range.lower);
      const double end = std::min(span.start_s + span.duration_s, range.upper);
      if (end <= start) continue;
      // The whole label when it fits, else its first words ("B mb3 c1 s0", "B mb3", "B"), with a
      // few pixels to spare: a label never spills out of its bar.
      const double room = (end - start) * pixels_per_s - 6;
      if (room < metrics.averageCharWidth()) continue;
      QString text = QString::fromStdString(span.label);
      while (metrics.horizontalAdvance(text) > room && text.contains(' '))
        text.truncate(text.lastIndexOf(' '));
      if (text.isEmpty() || metrics.horizontalAdvance(text) > room) continue;
      auto* label = new QCPItemText(&plot);
      label->setObjectName("span label");
      label->position->setCoords((start + end) / 2, y);
      label->setText(text);
      label->setFont(font);
      const QColor bar = timeline_category_colour(category_of(span, track.name));
      // Black on light bars, white on dark ones, by luma (Rec. 601).
      const double luma = 0.299 * bar.redF() + 0.587 * bar.greenF() + 0.114 * bar.blueF();
      label->setColor(luma > 0.5 ? Qt::black : Qt::white);
      label->setClipToAxisRect(true);
      label->setSelectable(false);
      if (++written == max_labels) break;
    }
  }
  return written;
}

}  // namespace ts::views
