#include "views/ComparisonBars.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/QuantityFormat.hpp"
#include "views/BarChartLegend.hpp"
#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace ts::views {
namespace {

// Pixels per bar and between operators: a 9 pt label is about 12 px high.
constexpr int kBarPx = 14, kGapPx = 10, kFramePx = 150;

QString graph_name(const ComparedGraph& g) {
  return QString::fromStdString(g.label + ": " + g.name);
}

// The groups of bars: an operator's times or speed-ups, or a node's energy, per graph, each with
// the label its bar ends in (NaN: no bar).
struct BarRow {
  std::string name;
  std::vector<double> values;
  std::vector<std::string> labels;
};

std::vector<BarRow> bar_rows(const ArchitectureComparison& c, ComparisonBarsKind kind) {
  std::vector<BarRow> rows;
  if (kind == ComparisonBarsKind::energy) {
    // The union of the graphs' nodes, in the order first met.
    std::vector<std::vector<NodeEnergyTotal>> per_graph;
    for (const ComparedGraph& g : c.graphs) per_graph.push_back(workload_energy_by_node(g));
    for (const auto& nodes : per_graph)
      for (const NodeEnergyTotal& n : nodes)
        if (std::none_of(rows.begin(), rows.end(),
                         [&](const BarRow& r) { return r.name == n.name; }))
          rows.push_back({n.name, {}, {}});
    for (BarRow& r : rows)
      for (const auto& nodes : per_graph) {
        auto it = std::find_if(nodes.begin(), nodes.end(),
                               [&](const NodeEnergyTotal& n) { return n.name == r.name; });
        const double v = it == nodes.end() ? std::nan("") : it->energy_j * 1e6;
        r.values.push_back(v);
        r.labels.push_back(nodes.empty()       ? std::string()  // "energy unknown"
                           : it == nodes.end() ? std::string("not on this graph")
                                               : format_quantity(it->energy_j, "J"));
      }
    return rows;
  }
  for (const ComparedOperator& op : c.operators) {
    BarRow r{op.name, {}, {}};
    for (const TimeOnGraph& t : op.on_graph) {
      r.values.push_back(kind == ComparisonBarsKind::time ? t.time_us() : t.speedup);
      r.labels.push_back(kind == ComparisonBarsKind::time
                             ? format_quantity(t.time_us() * 1e-6, "s") + "  " + t.bound_by
                             : format_ratio(t.speedup));
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace

// Colour-blind-safe (Okabe-Ito) hues, as the correlation plot's groups.
QColor comparison_graph_colour(size_t graph) {
  static const QColor colours[] = {QColor(0, 114, 178),   QColor(230, 159, 0),  QColor(0, 158, 115),
                                   QColor(204, 121, 167), QColor(86, 180, 233), QColor(213, 94, 0)};
  return colours[graph % (sizeof(colours) / sizeof(colours[0]))];
}

ComparisonBarsContents fill_comparison_bars(QCustomPlot& plot, const ArchitectureComparison& c,
                                            ComparisonBarsKind kind, const QString& title,
                                            const QPalette& palette) {
  plot.clearPlottables();
  plot.clearItems();
  // The previous fill's group is empty now (its bars went with the plottables).
  for (QCPBarsGroup* old : plot.findChildren<QCPBarsGroup*>(Qt::FindDirectChildrenOnly)) delete old;
  ComparisonBarsContents out;
  unframe_bar_chart(plot);  // an earlier fill's legend row and title
  const QColor text = palette.color(QPalette::Text);
  const std::vector<BarRow> rows = bar_rows(c, kind);
  const size_t ops = rows.size();
  const bool log_axis = kind != ComparisonBarsKind::speedup;
  const size_t first_graph = kind == ComparisonBarsKind::speedup ? 1 : 0;
  const size_t bars = c.graphs.size() > first_graph ? c.graphs.size() - first_graph : 0;

  // The first operator at the top: keys count down.
  QSharedPointer<QCPAxisTickerText> names(new QCPAxisTickerText);
  for (size_t i = 0; i < ops; ++i)
    names->addTick(static_cast<double>(ops - i), QString::fromStdString(rows[i].name));
  plot.yAxis->setTicker(names);
  plot.yAxis->setSubTicks(false);
  plot.yAxis->setTickLength(0, 4);
  plot.yAxis->grid()->setVisible(false);
  plot.yAxis->setRange(0.4, static_cast<double>(ops) + 0.6);

  // The value range first: a log axis for times (operators differ by decades), linear from 0
  // for speed-ups.
  double lo = HUGE_VAL, hi = 0;
  for (const BarRow& row : rows)
    for (size_t g = first_graph; g < c.graphs.size(); ++g) {
      const double v = row.values[g];
      if (!std::isfinite(v) || v <= 0) continue;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  if (hi <= 0) lo = hi = 1;
  double axis_lo = 0, axis_hi = 0;
  if (log_axis) {
    // Room on the right for each bar's label: about a decade past the longest bar.
    axis_lo = lo / 2;
    axis_hi = hi * 12;
    plot.xAxis->setScaleType(QCPAxis::stLogarithmic);
    QSharedPointer<QCPAxisTickerLog> ticker(new QCPAxisTickerLog);
    plot.xAxis->setTicker(ticker);
    // Plain numbers on every decade ("1000", not "10^3" beside "100").
    plot.xAxis->setNumberFormat("g");
    plot.xAxis->setNumberPrecision(6);
    plot.xAxis->setLabel(kind == ComparisonBarsKind::time
                             ? "time per operator (us, log scale): device time + launch overhead"
                             : "energy per node (uJ, log scale): the workload's operators summed");
  } else {
    axis_hi = std::max(hi, 1.0) * 1.35;
    plot.xAxis->setScaleType(QCPAxis::stLinear);
    plot.xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot.xAxis->setNumberFormat("g");
    plot.xAxis->setLabel(QString("speed-up over %1 (time on %1 / time on the graph)")
                             .arg(QString::fromStdString(c.graphs.front().label)));
  }
  plot.xAxis->setRange(axis_lo, axis_hi);

  const double width = 0.8 / static_cast<double>(std::max<size_t>(bars, 1));
  QCPBarsGroup* group = new QCPBarsGroup(&plot);
  group->setSpacing(0);
  // The series are made in the graphs' order (the plot's plottables and the legend list them
  // so), but grouped in the reverse: a group stacks its bars upwards in the order they join it,
  // and the first graph's bar belongs at the top of each operator.
  out.bars.assign(c.graphs.size(), nullptr);
  for (size_t g = first_graph; g < c.graphs.size(); ++g) {
    auto* b = new QCPBars(plot.yAxis, plot.xAxis);
    out.bars[g] = b;
    b->setWidth(width);
    // A log axis has no 0: bars start left of the axis and are clipped at it.
    b->setBaseValue(log_axis ? axis_lo / 10 : 0);
    const QColor colour = comparison_graph_colour(g);
    b->setPen(QPen(colour.darker(130)));
    b->setBrush(colour);
    b->setName(graph_name(c.graphs[g]));
    QVector<double> keys, values;
    for (size_t i = 0; i < ops; ++i) {
      const double v = rows[i].values[g];
      if (!std::isfinite(v) || v <= 0) {
        ++out.left_out;  // no bar; its label says so
        continue;
      }
      keys << static_cast<double>(ops - i);
      values << v;
    }
    // The keys count down: not sorted (QCPBars finds what is in view by binary search).
    b->setData(keys, values, false);
  }
  for (size_t g = c.graphs.size(); g-- > first_graph;) out.bars[g]->setBarsGroup(group);

  // Each bar labelled at its end: the time and its bound, or the speed-up; placed once the bars
  // are grouped (their keys are offset per graph).
  QFont small = plot.font();
  small.setPointSizeF(std::max(7.0, small.pointSizeF() * 0.85));
  for (size_t g = first_graph; g < c.graphs.size(); ++g) {
    for (size_t i = 0; i < ops; ++i) {
      // A group without spacing centres its bars on the key, side by side, the first on top.
      const double key =
          static_cast<double>(ops - i) +
          (static_cast<double>(bars - 1) / 2.0 - static_cast<double>(g - first_graph)) * width;
      const double v = rows[i].values[g];
      const bool drawn = std::isfinite(v) && v > 0;
      const QString label =
          !drawn && kind != ComparisonBarsKind::energy ? QStringLiteral("no prediction")
          : !drawn && rows[i].labels[g].empty()        ? QStringLiteral("energy unknown")
                                                       : QString::fromStdString(rows[i].labels[g]);
      auto* item = new QCPItemText(&plot);
      item->setClipToAxisRect(true);
      item->position->setAxes(plot.xAxis, plot.yAxis);
      item->position->setCoords(drawn ? v : axis_lo, key);
      item->setPositionAlignment(Qt::AlignLeft | Qt::AlignVCenter);
      item->setPadding(QMargins(4, 0, 0, 0));
      item->setFont(small);
      item->setColor(text);
      item->setText(label);
    }
  }
  if (kind == ComparisonBarsKind::speedup) {
    auto* one = new QCPItemStraightLine(&plot);
    one->point1->setCoords(1, 0);
    one->point2->setCoords(1, 1);
    QPen pen(text, 1, Qt::DashLine);
    one->setPen(pen);
  }

  frame_bar_chart(plot, out.bars, title, palette);  // the legend in the bars' order
  out.readable_height =
      kFramePx + static_cast<int>(ops) * (kGapPx + kBarPx * static_cast<int>(bars));
  return out;
}

}  // namespace ts::views
