#include "views/ComparisonPlot.hpp"

#include <algorithm>
#include <cmath>

#include "common/QuantityFormat.hpp"
#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace ts::views {

QColor comparison_graph_colour(size_t graph) {
  static const QColor colours[] = {QColor(0, 114, 178),   QColor(230, 159, 0),  QColor(0, 158, 115),
                                   QColor(204, 121, 167), QColor(86, 180, 233), QColor(213, 94, 0)};
  return colours[graph % (sizeof(colours) / sizeof(colours[0]))];
}

ComparisonPlotContents fill_comparison_plot(QCustomPlot& plot,
                                            const ArchitectureComparison& comparison,
                                            const QPalette& palette) {
  plot.clearGraphs();
  plot.clearItems();
  plot.clearPlottables();
  if (plot.plotLayout()->rowCount() > 1) {
    plot.plotLayout()->removeAt(0);
    plot.plotLayout()->simplify();
  }
  // The previous fill's group is empty now (its bars went with the plottables).
  for (QCPBarsGroup* old : plot.findChildren<QCPBarsGroup*>(Qt::FindDirectChildrenOnly)) delete old;
  ComparisonPlotContents out;
  const size_t graphs = comparison.graphs.size();
  const size_t operators = comparison.operators.size();
  // Bars of one operator side by side: each graph's bar is 0.8 / graphs wide, centred on the
  // operator's tick (QCPBarsGroup spaces them).
  auto* group = new QCPBarsGroup(&plot);
  group->setSpacingType(QCPBarsGroup::stAbsolute);
  group->setSpacing(1);
  const double width = 0.8 / static_cast<double>(std::max<size_t>(graphs, 1));
  double highest_us = 0;
  for (size_t g = 0; g < graphs; ++g) {
    auto* bars = new QCPBars(plot.xAxis, plot.yAxis);
    bars->setWidth(width);
    bars->setBarsGroup(group);
    const QColor colour = comparison_graph_colour(g);
    bars->setBrush(colour);
    bars->setPen(QPen(colour.darker(130)));
    QVector<double> keys, values;
    for (size_t o = 0; o < operators; ++o) {
      const double us = comparison.operators[o].on_graph[g].time_us();
      if (!std::isfinite(us)) {
        ++out.left_out;
        continue;
      }
      keys << static_cast<double>(o);
      values << us;
      highest_us = std::max(highest_us, us);
    }
    bars->setData(keys, values, true);
    const ComparedGraph& cg = comparison.graphs[g];
    const TimeOnGraph& total = comparison.total[g];
    QString name = QString("%1: %2, total %3")
                       .arg(QString::fromStdString(cg.label), QString::fromStdString(cg.name),
                            QString::fromStdString(format_quantity(total.time_us() * 1e-6, "s")));
    if (g > 0)
      name += QString(" (%1x over %2)")
                  .arg(QString::fromStdString(format_quantity(total.speedup, "")),
                       QString::fromStdString(comparison.graphs.front().label));
    bars->setName(name);
    out.bars.push_back(bars);
  }

  QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
  for (size_t o = 0; o < operators; ++o)
    names->addTick(static_cast<double>(o), QString::fromStdString(comparison.operators[o].name));
  plot.xAxis->setTicker(names);
  plot.xAxis->setSubTicks(false);
  plot.xAxis->setTickLength(0, 4);
  // Slanted so that the names end under their bars: slanted the other way, the last names run
  // past the plot's right edge, where QCustomPlot drops them.
  plot.xAxis->setTickLabelRotation(operators > 8 ? -40 : 0);
  plot.xAxis->grid()->setVisible(false);
  plot.xAxis->setRange(-0.6, static_cast<double>(operators) - 0.4);
  plot.xAxis->setLabel({});
  plot.yAxis->setScaleType(QCPAxis::stLinear);
  plot.yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot.yAxis->setLabel(QString::fromUtf8("time per operator (\u00b5s)"));
  // Headroom above the highest bar for the legend, a line per graph.
  plot.yAxis->setRange(0, std::max(highest_us, 1e-3) * (1.1 + 0.12 * static_cast<double>(graphs)));
  plot.setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot.axisRect()->setRangeDrag(Qt::Horizontal);
  plot.axisRect()->setRangeZoom(Qt::Horizontal);
  plot.legend->setVisible(graphs > 0);
  plot.axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
  QString title = QString::fromStdString(comparison.workload);
  if (graphs > 1)
    title += QString(": %1 operators on %2 graphs; time = device time + launch overhead")
                 .arg(operators)
                 .arg(graphs);
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, title));
  apply_plot_palette(plot, palette);
  plot.replot(QCustomPlot::rpQueuedReplot);
  return out;
}

}  // namespace ts::views
