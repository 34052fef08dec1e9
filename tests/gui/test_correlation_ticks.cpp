// The correlation plot's log axes (issue 22): every decade labelled, in one notation (a time
// with its SI-prefixed unit, never "100" beside "10^3"), with minor ticks between decades.
#include <QApplication>
#include <QPalette>

#include "GuiTestSupport.hpp"
#include "views/CorrelationPlot.hpp"
#include "views/DecadeTicker.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace {

struct AxisTicks {
  QStringList labels;  // of the major ticks inside the axis range
  int minor = 0;       // minor ticks inside it
};

// The ticks the axis draws: its ticker on its range (the ticker also returns one tick beyond
// each end, which the axis does not draw).
AxisTicks ticks_of(QCPAxis* axis) {
  QVector<double> ticks, subs;
  QVector<QString> labels;
  axis->ticker()->generate(axis->range(), QLocale::c(), 'g', 3, ticks, &subs, &labels);
  const double lo = axis->range().lower * (1 - 1e-9), hi = axis->range().upper * (1 + 1e-9);
  AxisTicks out;
  for (int i = 0; i < ticks.size(); ++i)
    if (ticks[i] >= lo && ticks[i] <= hi) out.labels << labels[i];
  for (double s : subs)
    if (s >= lo && s <= hi) ++out.minor;
  return out;
}

}  // namespace

TEST_CASE("correlation axes label every decade of 4 decades of data in one notation",
          "[gui][correlation]") {
  // Points from 2 us to 20 ms, 4 decades: the axes run from 1 us (2 / 1.1 rounded down to a
  // decade) to 100 ms (20 ms x 1.1 rounded up), 5 decades with 6 labels and 8 minor ticks in
  // each decade (2, 3, ..., 9): 40.
  ts::views::CorrelationPlotData data;
  for (double s : {2e-6, 3e-5, 4e-4, 5e-3, 2e-2})
    data.points.push_back({s * 1.2, s, "op", "matmul"});
  QCustomPlot plot;
  plot.resize(800, 600);
  ts::views::fill_correlation_plot(plot, data, QApplication::palette());
  for (QCPAxis* axis : {plot.xAxis, plot.yAxis}) {
    INFO(axis->label().toStdString());
    CHECK(axis->range().lower == Approx(1.0));
    CHECK(axis->range().upper == Approx(1e5));
    const AxisTicks t = ticks_of(axis);
    CHECK(t.labels == QStringList{"1 us", "10 us", "100 us", "1 ms", "10 ms", "100 ms"});
    CHECK(t.minor == 40);
  }
  CHECK(plot.xAxis->label() == "measured latency");
}

TEST_CASE("3 decades of correlation data show at least 4 labelled ticks", "[gui][correlation]") {
  // 3 us to 3 ms: the axis runs from 1 us to 10 ms, labelled at each of its 5 decades.
  ts::views::CorrelationPlotData data;
  for (double s : {3e-6, 3e-3}) data.points.push_back({s, s, "op", "matmul"});
  QCustomPlot plot;
  ts::views::fill_correlation_plot(plot, data, QApplication::palette());
  CHECK(ticks_of(plot.xAxis).labels == QStringList{"1 us", "10 us", "100 us", "1 ms", "10 ms"});
}

TEST_CASE("decade labels drop trailing zeros but keep significant digits", "[gui][correlation]") {
  const ts::views::DecadeTicker ticker(1e-6, "s");
  CHECK(ticker.labelOf(1) == "1 us");
  CHECK(ticker.labelOf(1000) == "1 ms");
  CHECK(ticker.labelOf(2.5) == "2.5 us");
  CHECK(ticker.labelOf(1.05) == "1.05 us");
  CHECK(ticker.labelOf(0.1) == "100 ns");
  // Within one decade the range still reaches two labelled decades.
  const QCPRange r = ts::views::decade_range(2, 5);
  CHECK(r.lower == Approx(1));
  CHECK(r.upper == Approx(10));
}
