#include "views/BarChartLegend.hpp"

#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace ts::views {

void unframe_bar_chart(QCustomPlot& plot) {
  if (plot.legend->layout() == plot.plotLayout()) {
    plot.plotLayout()->take(plot.legend);
    plot.axisRect()->insetLayout()->addElement(plot.legend, Qt::AlignTop | Qt::AlignRight);
  }
  for (int i = plot.plotLayout()->elementCount() - 1; i >= 0; --i)
    if (qobject_cast<QCPTextElement*>(plot.plotLayout()->elementAt(i)))
      plot.plotLayout()->removeAt(i);
  plot.plotLayout()->simplify();
}

void frame_bar_chart(QCustomPlot& plot, const std::vector<QCPBars*>& bars, const QString& title,
                     const QPalette& palette) {
  plot.legend->clearItems();
  for (QCPBars* b : bars)
    if (b) b->addToLegend();
  plot.legend->setVisible(true);
  plot.axisRect()->insetLayout()->take(plot.legend);
  plot.legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, title));
  plot.plotLayout()->addElement(2, 0, plot.legend);
  plot.plotLayout()->setRowStretchFactor(2, 0.001);
  apply_plot_palette(plot, palette);
  plot.yAxis->grid()->setVisible(false);
  plot.replot(QCustomPlot::rpQueuedReplot);
}

}  // namespace ts::views
