// The sweep figures (views/SweepPlots) drawn headless from hand-made points: what the Pareto
// scatter and the sensitivity bars hold. Figures worked in the comments.
#include <QApplication>
#include <cmath>
#include <limits>

#include "GuiTestSupport.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/SweepPlots.hpp"

namespace {

ts::SweepPointRecord point(double cost_bytes, double total_s) {
  ts::SweepPointRecord p;
  p.parameters_json = "{}";
  p.cost = cost_bytes;
  p.total_s = total_s;
  return p;
}

}  // namespace

TEST_CASE("the Pareto figure draws every point and joins the front", "[gui][sweep]") {
  // (MiB, us): (1, 10) (2, 5) (2, 8) (4, 6) (4, inf). The front: (1, 10) then (2, 5); (2, 8)
  // and (4, 6) are beaten by (2, 5), and the infinite point (no valid mapping) is left out.
  const double mib = 1024.0 * 1024;
  std::vector<ts::SweepPointRecord> points{point(1 * mib, 10e-6), point(2 * mib, 5e-6),
                                           point(2 * mib, 8e-6), point(4 * mib, 6e-6),
                                           point(4 * mib, std::numeric_limits<double>::infinity())};
  ts::views::SweepParetoData data;
  data.title = "hand-made";
  data.cost_label = "memory (MiB)";
  data.cost_unit = mib;
  data.points = points;
  data.front = ts::pareto_front(points);
  QCustomPlot plot;
  const auto contents = ts::views::fill_pareto_plot(plot, data, QApplication::palette());
  CHECK(contents.left_out == 1);
  REQUIRE(contents.points->data()->size() == 4);
  REQUIRE(contents.front->data()->size() == 2);
  CHECK(contents.front->data()->at(0)->key == Approx(1));
  CHECK(contents.front->data()->at(0)->value == Approx(10));
  CHECK(contents.front->data()->at(1)->key == Approx(2));
  CHECK(contents.front->data()->at(1)->value == Approx(5));
  // Filled again (a page showing another sweep), nothing of the first drawing stays.
  data.points.resize(1);
  data.front = ts::pareto_front(data.points);
  const auto again = ts::views::fill_pareto_plot(plot, data, QApplication::palette());
  CHECK(plot.graphCount() == 2);
  CHECK(again.points->data()->size() == 1);
  CHECK(!plot.toPixmap(400, 300).isNull());
}

TEST_CASE("the sensitivity figure ranks the parameters by the size of their bar", "[gui][sweep]") {
  // Elasticities a -0.2, b +0.9, c unknown: bars b (+0.9) then a (-0.2); c has no bar.
  const ts::SweepSensitivity total{"total", {-0.2, 0.9, std::nullopt}};
  QCustomPlot plot;
  const auto contents = ts::views::fill_sensitivity_plot(plot, "total", {"a", "b", "c"}, total,
                                                         QApplication::palette());
  CHECK(contents.order == std::vector<std::string>{"b", "a"});
  CHECK(contents.unknown == 1);
  REQUIRE(contents.bars->data()->size() == 2);
  CHECK(contents.bars->data()->at(0)->value == Approx(0.9));
  CHECK(contents.bars->data()->at(1)->value == Approx(-0.2));
  CHECK(plot.plottableCount() == 1);
}
