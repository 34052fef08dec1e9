#include "views/SweepPlots.hpp"

#include <algorithm>
#include <cmath>

#include "arch/ArchitectureParameterPath.hpp"
#include "sweep/StrategyGrid.hpp"
#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace ts::views {
namespace {

// Okabe-Ito blue and vermillion: the front stands out from the cloud for colour-blind readers.
const QColor kFront(213, 94, 0);
const QColor kBars(0, 114, 178);

void reset(QCustomPlot& plot, const QString& title, const QPalette& palette) {
  plot.clearGraphs();
  plot.clearPlottables();
  plot.clearItems();
  if (plot.plotLayout()->rowCount() > 1) {
    plot.plotLayout()->removeAt(0);
    plot.plotLayout()->simplify();
  }
  plot.plotLayout()->insertRow(0);
  plot.plotLayout()->addElement(0, 0, new QCPTextElement(&plot, title, QFont("sans", 11)));
  plot.xAxis->setScaleType(QCPAxis::stLinear);
  plot.yAxis->setScaleType(QCPAxis::stLinear);
  plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  plot.yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  apply_plot_palette(plot, palette);
}

bool drawable(const SweepPointRecord& p, const SweepCost& cost) {
  return std::isfinite(p.total_s) && p.total_s > 0 && sweep_cost_value(p, cost).has_value();
}

}  // namespace

SweepParetoData sweep_pareto_data(const SweepDigest& digest, const QString& title) {
  SweepParetoData data;
  data.title = title;
  data.cost_label = digest.strategy_grid ? "peak memory per GPU (GiB)" : "memory (MiB)";
  data.cost_unit = digest.strategy_grid ? 1024.0 * 1024 * 1024 : 1024.0 * 1024;
  data.points = digest.points;
  data.front = digest.front;
  return data;
}

SweepParetoData sweep_pareto_data(const SweepDigest& digest, const QString& title,
                                  SweepFigure figure) {
  return sweep_pareto_data(digest, title, SweepCost{figure, {}});
}

SweepParetoData sweep_pareto_data(const SweepDigest& digest, const QString& title,
                                  const SweepCost& cost) {
  if (cost.figure == SweepFigure::cost) return sweep_pareto_data(digest, title);
  SweepParetoData data;
  data.title = title;
  data.cost = cost;
  data.points = digest.points;
  switch (cost.figure) {
    case SweepFigure::energy:
      data.cost_label = "suite energy (uJ)";
      data.cost_unit = 1e-6;  // J per uJ
      data.front = digest.energy_front;
      break;
    case SweepFigure::area:
      data.cost_label = "graph area (mm^2)";
      data.cost_unit = 1e-6;  // m^2 per mm^2
      data.front = digest.area_front;
      break;
    case SweepFigure::edp:
      data.cost_label = "EDP (uJ us)";
      data.cost_unit = 1e-12;  // J s per uJ us
      data.front = pareto_front(digest.points, cost);
      break;
    default: {
      // A parameter in the unit people read it in.
      const std::string unit = parameter_unit(cost.path);
      const std::pair<const char*, std::pair<const char*, double>> units[] = {
          {"B", {"KiB", 1024.0}}, {"B/s", {"GB/s", 1e9}}, {"Hz", {"GHz", 1e9}},
          {"s", {"us", 1e-6}},    {"W", {"W", 1.0}},      {"cycles", {"cycles", 1.0}}};
      data.cost_label = QString::fromStdString(cost.path);
      for (const auto& [si, shown] : units)
        if (unit == si) {
          data.cost_label += QString(" (%1)").arg(shown.first);
          data.cost_unit = shown.second;
        }
      data.front = pareto_front(digest.points, cost);
      break;
    }
  }
  if (digest.strategy_grid) {
    // Points out of memory are on no front of a grid.
    std::vector<SweepPointRecord> fitting;
    for (const SweepPointRecord& p : digest.points)
      if (!strategy_point_out_of_memory(p)) fitting.push_back(p);
    data.front = pareto_front(fitting, cost);
  }
  return data;
}

SweepParetoContents fill_pareto_plot(QCustomPlot& plot, const SweepParetoData& data,
                                     const QPalette& palette) {
  reset(plot, data.title, palette);
  SweepParetoContents out;
  QColor cloud = palette.color(QPalette::Text);
  cloud.setAlpha(90);
  QVector<double> x, y;
  std::vector<std::pair<double, double>> all;
  for (const SweepPointRecord& p : data.points) {
    if (!drawable(p, data.cost)) {
      ++out.left_out;
      continue;
    }
    all.emplace_back(*sweep_cost_value(p, data.cost) / data.cost_unit, p.total_s * 1e6);
  }
  std::sort(all.begin(), all.end());  // sorted keys: QCustomPlot's precondition for lookups
  for (const auto& [cost, us] : all) {
    x << cost;
    y << us;
  }
  out.points = plot.addGraph();
  out.points->setData(x, y, true);
  out.points->setLineStyle(QCPGraph::lsNone);
  out.points->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, cloud, 5));
  out.points->setPen(QPen(cloud));
  out.points->setName(QString("points (%1)").arg(all.size()));

  QVector<double> fx, fy;
  for (const SweepPointRecord& p : data.front) {  // pareto_front orders them by rising figure
    fx << *sweep_cost_value(p, data.cost) / data.cost_unit;
    fy << p.total_s * 1e6;
  }
  out.front = plot.addGraph();
  out.front->setData(fx, fy, true);
  out.front->setLineStyle(QCPGraph::lsStepLeft);
  out.front->setPen(QPen(kFront, 1.5));
  out.front->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, kFront, kFront, 7));
  out.front->setName(QString("Pareto front (%1)").arg(data.front.size()));

  plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot.yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  plot.xAxis->setLabel(data.cost_label);
  plot.yAxis->setLabel("time (us)");
  plot.rescaleAxes();
  // A margin so that the extreme points are not cut by the frame (times are positive: log).
  plot.xAxis->scaleRange(1.1, plot.xAxis->range().center());
  // One value at every point (an area the sweep does not move): a range around it.
  if (!(plot.xAxis->range().size() > 0) && !all.empty()) {
    const double at = all.front().first, half = at != 0 ? std::abs(at) * 0.05 : 1.0;
    plot.xAxis->setRange(at - half, at + half);
  }
  plot.yAxis->setRange(plot.yAxis->range().lower / 1.2, plot.yAxis->range().upper * 1.2);
  plot.legend->setVisible(true);
  plot.setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  return out;
}

SweepSensitivityContents fill_sensitivity_plot(QCustomPlot& plot, const QString& title,
                                               const std::vector<std::string>& paths,
                                               const SweepSensitivity& subject,
                                               const QPalette& palette) {
  reset(plot, title, palette);
  SweepSensitivityContents out;
  QVector<double> keys, values;
  QVector<QString> labels;
  for (const RankedSensitivity& r : rank_sensitivities(paths, subject)) {
    if (!r.elasticity) {
      ++out.unknown;
      continue;
    }
    keys << static_cast<double>(keys.size() + 1);
    values << *r.elasticity;
    labels << QString::fromStdString(r.path);
    out.order.push_back(r.path);
  }
  out.bars = new QCPBars(plot.xAxis, plot.yAxis);
  out.bars->setData(keys, values, true);
  out.bars->setBrush(kBars);
  out.bars->setPen(QPen(kBars.darker(130)));
  out.bars->setWidth(0.6);
  out.bars->setName(QString::fromStdString(subject.subject));
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  ticker->setTicks(keys, labels);
  plot.xAxis->setTicker(ticker);
  plot.xAxis->setTickLabelRotation(keys.size() > 3 ? 30 : 0);
  plot.xAxis->setRange(0.4, keys.size() + 0.6);
  plot.yAxis->setLabel("d ln time / d ln parameter");
  double lo = 0, hi = 0;
  for (double v : values) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const double pad = std::max(0.1, 0.15 * (hi - lo));
  plot.yAxis->setRange(lo - pad, hi + pad);
  const QColor text = palette.color(QPalette::Text);
  auto* zero = new QCPItemStraightLine(&plot);
  zero->point1->setCoords(0, 0);
  zero->point2->setCoords(1, 0);
  zero->setPen(QPen(text, 1));
  for (int i = 0; i < keys.size(); ++i) {
    auto* label = new QCPItemText(&plot);
    label->position->setCoords(keys[i], values[i]);
    label->setPositionAlignment(values[i] < 0 ? (Qt::AlignHCenter | Qt::AlignTop)
                                              : (Qt::AlignHCenter | Qt::AlignBottom));
    label->setText(QString::fromStdString(elasticity_text(values[i])));
    label->setColor(text);
  }
  plot.legend->setVisible(false);
  return out;
}

}  // namespace ts::views
