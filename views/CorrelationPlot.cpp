#include "views/CorrelationPlot.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "correlate/FigureText.hpp"
#include "correlate/Statistics.hpp"
#include "views/DecadeTicker.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace ts::views {
namespace {

// Colour-blind-safe (Okabe-Ito) hues, readable on light and dark backgrounds.
QColor group_colour(size_t index) {
  static const QColor colours[] = {QColor(0, 114, 178),   QColor(230, 159, 0),  QColor(0, 158, 115),
                                   QColor(204, 121, 167), QColor(86, 180, 233), QColor(213, 94, 0),
                                   QColor(240, 228, 66)};
  return colours[index % (sizeof(colours) / sizeof(colours[0]))];
}

bool usable(const CorrelationPlotPoint& p) {
  return std::isfinite(p.predicted_s) && std::isfinite(p.measured_s) && p.predicted_s > 0 &&
         p.measured_s > 0;
}

QString stats_text(const AgreementStats& s) {
  // MAPE as "12.3 %": the caption's spacing, with FigureText's "n/a" for a figure with no value.
  const std::string mape = s.mape ? figure_text(*s.mape * 100, 1) + " %" : figure_text({}, 1);
  return QString("r = %1, Spearman = %2, MAPE = %3")
      .arg(QString::fromStdString(figure_text(s.pearson, 3)),
           QString::fromStdString(figure_text(s.spearman, 3)), QString::fromStdString(mape));
}

}  // namespace

void apply_plot_palette(QCustomPlot& plot, const QPalette& palette) {
  const QColor text = palette.color(QPalette::Text);
  QColor grid = text;
  grid.setAlpha(40);
  plot.setBackground(palette.color(QPalette::Base));
  // Every axis rect's (a timeline's memory strip has its own), not only the main one's.
  for (QCPAxisRect* rect : plot.axisRects())
    for (QCPAxis* axis : {rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft)}) {
      axis->setBasePen(QPen(text));
      axis->setTickPen(QPen(text));
      axis->setSubTickPen(QPen(text));
      axis->setTickLabelColor(text);
      axis->setLabelColor(text);
      axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
      axis->grid()->setSubGridVisible(true);
      QColor sub = grid;
      sub.setAlpha(18);
      axis->grid()->setSubGridPen(QPen(sub, 1, Qt::DotLine));
    }
  plot.legend->setBrush(palette.color(QPalette::Base));
  plot.legend->setBorderPen(QPen(grid));
  plot.legend->setTextColor(text);
  if (plot.plotLayout()->rowCount() > 1)
    if (auto* title = qobject_cast<QCPTextElement*>(plot.plotLayout()->element(0, 0)))
      title->setTextColor(text);
}

CorrelationPlotContents fill_correlation_plot(QCustomPlot& plot, const CorrelationPlotData& data,
                                              const QPalette& palette) {
  plot.clearGraphs();
  plot.clearItems();
  if (plot.plotLayout()->rowCount() > 1) {
    plot.plotLayout()->removeAt(0);
    plot.plotLayout()->simplify();
  }
  CorrelationPlotContents out;
  const QColor text = palette.color(QPalette::Text);

  // Groups in order of first appearance would shuffle colours between runs: sort by name.
  std::map<QString, std::vector<size_t>> groups;
  std::vector<double> predicted, measured;
  double lo = HUGE_VAL, hi = 0;
  auto extend = [&](const CorrelationPlotPoint& p) {
    lo = std::min({lo, p.predicted_s, p.measured_s});
    hi = std::max({hi, p.predicted_s, p.measured_s});
  };
  for (size_t i = 0; i < data.points.size(); ++i) {
    const auto& p = data.points[i];
    if (!usable(p)) {
      ++out.left_out;
      continue;
    }
    groups[p.group.isEmpty() ? QStringLiteral("all") : p.group].push_back(i);
    predicted.push_back(p.predicted_s);
    measured.push_back(p.measured_s);
    extend(p);
  }
  for (const auto& p : data.overlay)
    if (usable(p)) extend(p);
  const AgreementStats overall = agreement(predicted, measured);
  out.pearson = overall.pearson;
  out.spearman = overall.spearman;
  out.mape = overall.mape;
  out.count = overall.count;
  if (hi <= 0) {  // nothing to draw: a decade around 1 us keeps the axes sensible
    lo = 1e-6;
    hi = 1e-5;
  }
  // Axes hold microseconds (hover and selection read them); they run from decade to decade, so
  // that both ends carry a label and 3 decades of data show at least 4 labelled ticks.
  const QCPRange axis_us = decade_range(lo * 1e6 / 1.1, hi * 1e6 * 1.1);
  const double lo_us = axis_us.lower, hi_us = axis_us.upper;

  // The band and the diagonal first, so that points draw over them.
  auto line = [&](double factor, const QPen& pen) {
    QCPGraph* g = plot.addGraph();
    g->setData(QVector<double>{lo_us, hi_us}, QVector<double>{lo_us * factor, hi_us * factor});
    g->setPen(pen);
    g->removeFromLegend();
    g->setSelectable(QCP::stNone);
    return g;
  };
  QColor band = text;
  band.setAlpha(28);
  QColor band_edge = text;
  band_edge.setAlpha(80);
  QCPGraph* upper = line(1.1, QPen(band_edge, 1, Qt::DashLine));
  QCPGraph* lower = line(1 / 1.1, QPen(band_edge, 1, Qt::DashLine));
  upper->setBrush(band);
  upper->setChannelFillGraph(lower);
  QCPGraph* diagonal = line(1.0, QPen(text, 1.2));
  diagonal->setName("y = x (band: ±10 %)");
  diagonal->addToLegend();

  size_t colour = 0;
  for (const auto& [name, indices] : groups) {
    QCPGraph* g = plot.addGraph();
    QVector<double> x, y;
    std::vector<double> gp, gm;
    for (size_t i : indices) {
      x << data.points[i].measured_s * 1e6;
      y << data.points[i].predicted_s * 1e6;
      gp.push_back(data.points[i].predicted_s);
      gm.push_back(data.points[i].measured_s);
    }
    // Sorted keys are QCustomPlot's precondition for lookups; keep the index order with them.
    std::vector<size_t> order(indices.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
    QVector<double> sx, sy;
    std::vector<size_t> sorted_indices;
    for (size_t k : order) {
      sx << x[static_cast<int>(k)];
      sy << y[static_cast<int>(k)];
      sorted_indices.push_back(indices[k]);
    }
    g->setData(sx, sy, true);
    g->setLineStyle(QCPGraph::lsNone);
    const QColor c = group_colour(colour++);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, c, 6));
    g->setPen(QPen(c));
    const AgreementStats s = agreement(gp, gm);
    g->setName(QString("%1 (n = %2): %3").arg(name).arg(s.count).arg(stats_text(s)));
    out.series.push_back({g, std::move(sorted_indices), false});
  }
  if (!data.overlay.empty()) {
    QCPGraph* g = plot.addGraph();
    QVector<double> x, y;
    std::vector<std::pair<double, size_t>> keyed;
    for (size_t i = 0; i < data.overlay.size(); ++i)
      if (usable(data.overlay[i])) keyed.emplace_back(data.overlay[i].measured_s * 1e6, i);
    std::sort(keyed.begin(), keyed.end());
    std::vector<size_t> indices;
    for (const auto& [key, i] : keyed) {
      x << key;
      y << data.overlay[i].predicted_s * 1e6;
      indices.push_back(i);
    }
    g->setData(x, y, true);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, text, 7));
    g->setName(data.overlay_title.isEmpty() ? QStringLiteral("comparison run")
                                            : data.overlay_title);
    out.series.push_back({g, std::move(indices), true});
  }

  for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
    axis->setScaleType(QCPAxis::stLogarithmic);
    // Every decade labelled as a time with its unit ("1 us", "10 us", "1 ms"), minor ticks
    // between: one notation, never "100" beside "10^3".
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new DecadeTicker(1e-6, "s")));
    axis->setRange(lo_us, hi_us);
  }
  // Room on the right for the last decade's label: QCustomPlot drops a tick label that the
  // widget's border would cut, and the axes end on a labelled decade.
  plot.axisRect()->setMinimumMargins(QMargins(0, 0, 36, 0));
  plot.xAxis->setLabel("measured latency");
  plot.yAxis->setLabel("predicted latency");
  plot.legend->setVisible(true);
  plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);

  QString heading = data.title.isEmpty() ? QStringLiteral("predicted vs measured") : data.title;
  heading += QString("\n%1 points: %2").arg(out.count).arg(stats_text(overall));
  if (out.left_out > 0)
    heading += QString(" (%1 left out: not positive or prediction failed)").arg(out.left_out);
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, heading));
  apply_plot_palette(plot, palette);
  plot.replot(QCustomPlot::rpQueuedReplot);
  return out;
}

}  // namespace ts::views
