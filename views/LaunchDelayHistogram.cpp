#include "views/LaunchDelayHistogram.hpp"

#include <algorithm>
#include <map>

#include "common/QuantityFormat.hpp"
#include "views/ComparisonBars.hpp"
#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TraceBreakdownChart.hpp"

namespace ts::views {
namespace {

QString delay_bin_label(const DelayBin& bin) {
  // Each bin by its lower bound (the bins double, so the next label is its upper bound); the
  // first, from 0, by its upper.
  if (bin.lower_ns == 0)
    return QString::fromStdString("<" +
                                  format_quantity(static_cast<double>(bin.upper_ns) * 1e-9, "s"));
  return QString::fromStdString(format_quantity(static_cast<double>(bin.lower_ns) * 1e-9, "s"));
}

}  // namespace

LaunchDelayHistogramContents fill_launch_delay_histogram(
    QCustomPlot& plot, const std::vector<LaunchDelaySeries>& series, const QString& title,
    const QPalette& palette) {
  reset_bar_chart_layout(plot);
  LaunchDelayHistogramContents out;
  // Every rank's bins start at [0, 1 us) and double: the same lower bound is the same bin.
  std::map<int64_t, DelayBin> bins;
  for (const LaunchDelaySeries& s : series)
    if (s.launch)
      for (const DelayBin& b : s.launch->histogram) bins.emplace(b.lower_ns, b);
  std::map<int64_t, int> index;
  QSharedPointer<QCPAxisTickerText> ticks(new QCPAxisTickerText);
  for (const auto& [lower, bin] : bins) {
    const int i = static_cast<int>(index.size());
    index[lower] = i;
    ticks->addTick(i, delay_bin_label(bin));
  }
  out.bins = bins.size();
  plot.xAxis->setTicker(ticks);
  plot.xAxis->setSubTicks(false);
  plot.xAxis->setTickLength(0, 4);
  // Slanted when there are many bins, so that neighbouring labels do not run into each other.
  plot.xAxis->setTickLabelRotation(bins.size() > 6 ? -45 : 0);
  plot.xAxis->setRange(-0.6, std::max<double>(static_cast<double>(bins.size()) - 0.4, 0.6));
  // Short: the title says what is delayed; on the Trace page the plot is a third of the window.
  plot.xAxis->setLabel(QStringLiteral("delay (each bin from its label to the next)"));
  plot.yAxis->setScaleType(QCPAxis::stLinear);
  plot.yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot.yAxis->setNumberFormat("g");
  plot.yAxis->setLabel(QStringLiteral("GPU activities"));

  double highest = 0;
  const size_t drawn = std::max<size_t>(series.size(), 1);
  QCPBarsGroup* group = series.size() > 1 ? new QCPBarsGroup(&plot) : nullptr;
  if (group) group->setSpacing(0);
  for (size_t s = 0; s < series.size(); ++s) {
    auto* b = new QCPBars(plot.xAxis, plot.yAxis);
    out.bars.push_back(b);
    const QColor colour = series.size() > 1 ? comparison_graph_colour(s)
                                            : trace_time_part_colour(TraceTimePart::compute);
    b->setPen(QPen(colour.darker(130)));
    b->setBrush(colour);
    b->setWidth(0.8 / static_cast<double>(drawn));
    b->setName(series[s].name);
    QVector<double> keys, values;
    if (series[s].launch)
      for (const DelayBin& bin : series[s].launch->histogram) {
        keys << index[bin.lower_ns];
        values << static_cast<double>(bin.count);
        highest = std::max(highest, static_cast<double>(bin.count));
        out.counted += bin.count;
      }
    b->setData(keys, values, true);
    if (group) b->setBarsGroup(group);
  }
  plot.yAxis->setRange(0, highest > 0 ? highest * 1.1 : 1);

  plot.legend->clearItems();
  for (QCPBars* b : out.bars) b->addToLegend();
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, title));
  // One series needs no legend (the title names its rank); several get a row under the axis.
  plot.legend->setVisible(series.size() > 1);
  if (series.size() > 1) {
    plot.axisRect()->insetLayout()->take(plot.legend);
    plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot.plotLayout()->addElement(2, 0, plot.legend);
    plot.plotLayout()->setRowStretchFactor(2, 0.001);
  }
  apply_plot_palette(plot, palette);
  plot.xAxis->grid()->setVisible(false);
  plot.replot(QCustomPlot::rpQueuedReplot);
  return out;
}

}  // namespace ts::views
