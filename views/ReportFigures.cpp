#include "views/ReportFigures.hpp"

#include <QApplication>
#include <QBuffer>
#include <QPainter>
#include <QSvgGenerator>
#include <algorithm>
#include <cmath>
#include <map>

#include "views/ArchitectureScene.hpp"
#include "views/CorrelationPlot.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/ReportHtmlParts.hpp"
#include "views/SweepPlots.hpp"
#include "views/TimelinePlot.hpp"

namespace ts::views {
namespace {

// Pixels of the figures as the HTML shows them; the PNGs have twice as many for sharp print.
constexpr int kPlotWidth = 760, kPlotHeight = 560;
constexpr double kRasterScale = 2.0;

QByteArray png_of(const QImage& image) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return bytes;
}

// Draws through a callback into an SVG of the given size (points = pixels at 96 dpi).
template <typename Draw>
QByteArray svg_of(int width, int height, const QString& title, Draw&& draw) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  QSvgGenerator generator;
  generator.setOutputDevice(&buffer);
  generator.setSize(QSize(width, height));
  generator.setViewBox(QRect(0, 0, width, height));
  generator.setTitle(title);
  generator.setDescription(QStringLiteral("drawn by tilescope report"));
  draw(generator);
  return bytes;
}

}  // namespace

ReportFigure plot_report_figure(QCustomPlot& plot, const QString& name, const QString& caption,
                                int width, int height) {
  plot.resize(width, height);
  ReportFigure f;
  f.name = name;
  f.caption = caption;
  f.image = plot.toPixmap(width, height, kRasterScale).toImage();
  f.png = png_of(f.image);
  f.svg = svg_of(width, height, caption, [&](QSvgGenerator& generator) {
    QCPPainter painter;
    painter.begin(&generator);
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    plot.toPainter(&painter, width, height);
    painter.end();
  });
  return f;
}

QPalette report_palette() {
  QPalette p = QApplication::palette();
  p.setColor(QPalette::Base, Qt::white);
  p.setColor(QPalette::Window, Qt::white);
  p.setColor(QPalette::Text, Qt::black);
  p.setColor(QPalette::WindowText, Qt::black);
  return p;
}

namespace {

std::vector<CorrelationPlotPoint> plot_points(const std::vector<ComparedPoint>& points) {
  // Colours follow `correlate --by class`, so that the legend's figures are the table's.
  std::vector<double> thresholds;
  const std::vector<std::string> labels =
      group_labels(points, Grouping{GroupBy::op_class, {}}, &thresholds);
  std::vector<CorrelationPlotPoint> out;
  for (size_t i = 0; i < points.size(); ++i)
    out.push_back({points[i].predicted_s, points[i].measured_s,
                   QString::fromStdString(points[i].op_name + " " + points[i].shape),
                   QString::fromStdString(labels[i])});
  return out;
}

ReportFigure correlation_figure(const std::vector<CorrelationPlotPoint>& points,
                                const QString& title, const QString& name, const QString& caption,
                                const std::vector<CorrelationPlotPoint>& overlay = {},
                                const QString& overlay_title = {}) {
  QCustomPlot plot;
  CorrelationPlotData data;
  data.title = title;
  data.points = points;
  data.overlay = overlay;
  data.overlay_title = overlay_title;
  fill_correlation_plot(plot, data, report_palette());
  return plot_report_figure(plot, name, caption, kPlotWidth, kPlotHeight);
}

// File names keep to letters, digits and dashes, whatever the class is called.
QString slug(const std::string& text) {
  QString out;
  for (QChar c : QString::fromStdString(text))
    out += c.isLetterOrNumber() ? c.toLower() : QChar('-');
  return out;
}

}  // namespace

QString class_figure_name(const std::string& group) { return "correlation-" + slug(group); }

const ReportFigure* ReportFigures::find(const QString& name) const {
  for (const ReportFigure& f : figures)
    if (f.name == name) return &f;
  return nullptr;
}

ReportFigures render_report_figures(const ReportContent& c) {
  ReportFigures out;
  if (c.has_run()) {
    const std::vector<CorrelationPlotPoint> all = plot_points(c.run.input->points);
    const QString source = QString::fromStdString(c.title);
    out.figures.push_back(correlation_figure(
        all, source, "correlation",
        "Predicted against measured, every compared measurement, coloured by operator class; the "
        "line is y = x, the band ±10 %."));

    // One scatter per operator class, in the table's order.
    std::map<QString, std::vector<CorrelationPlotPoint>> by_class;
    for (const CorrelationPlotPoint& p : all) by_class[p.group].push_back(p);
    for (const GroupStats& g : c.correlation.groups) {
      const QString group = QString::fromStdString(g.group);
      out.figures.push_back(correlation_figure(
          by_class[group], QString("%1: %2").arg(source, group), class_figure_name(g.group),
          QString("Predicted against measured, %1 operators.").arg(group)));
    }
  }

  if (c.graph) {
    ArchitectureScene scene;
    scene.setPalette(report_palette());
    scene.setGraph(*c.graph);
    scene.setBottlenecks(c.bottlenecks);
    ReportFigure f;
    f.name = "architecture";
    f.caption =
        QString(
            "The architecture graph %1 (%2); outlined in red: what bounds some "
            "compared operator.")
            .arg(QString::fromStdString(c.graph->name), QString::fromStdString(c.graph_file));
    f.image = scene.toImage(kRasterScale);
    f.png = png_of(f.image);
    const QRectF rect = scene.sceneRect();
    const int w = static_cast<int>(std::ceil(rect.width())),
              h = static_cast<int>(std::ceil(rect.height()));
    f.svg = svg_of(w, h, f.caption, [&](QSvgGenerator& generator) {
      QPainter painter(&generator);
      painter.fillRect(QRectF(0, 0, w, h), Qt::white);
      painter.setRenderHint(QPainter::Antialiasing);
      scene.render(&painter, QRectF(0, 0, w, h), rect);
    });
    out.figures.push_back(std::move(f));
  }

  if (c.simulation) {
    QCustomPlot plot;
    fill_timeline_plot(plot, *c.simulation, report_palette());
    // A row per track, 22 px where they fit; the memory strip under the chart (a third as high
    // again) when the file has counters. At most as tall as a PDF page holds at the plot's width,
    // so that the report prints it whole on one page with its labels at their size: a taller
    // iteration's rows are drawn closer together.
    const int rows = static_cast<int>(c.simulation->tracks.size());
    const bool memory = !c.simulation->counters.empty();
    const int tallest_chart = memory ? kMaxPdfPlotHeight * 100 / 135 : kMaxPdfPlotHeight;
    const int chart = std::clamp(140 + 22 * rows, 320, tallest_chart);
    const int height = memory ? chart + chart * 35 / 100 : chart;
    out.figures.push_back(plot_report_figure(
        plot, "timeline",
        QString("The simulated iteration (%1): one row per device stream and link, one bar per "
                "task%2.")
            .arg(QString::fromStdString(c.simulation_file))
            .arg(memory ? QString("; under it, the memory of each pipeline stage's GPU over the "
                                  "iteration (model state, and activations from each forward "
                                  "to its backward)")
                        : QString()),
        kMaxPdfPlotWidth, height));
  }

  if (c.sweep) {
    const SweepDigest& d = *c.sweep;
    const QString file = QString::fromStdString(c.sweep_file);
    // The first figure against the digest's Pareto cost (energy where every point has it, else
    // area, else the memory proxy); the other figures every point has, beside it.
    const QString title = QString("%1: %2 points").arg(file).arg(d.points.size());
    QCustomPlot pareto;
    fill_pareto_plot(pareto, sweep_pareto_data(d, title, d.cost), report_palette());
    const auto caption = [&](SweepFigure figure) {
      switch (figure) {
        case SweepFigure::energy:
          return QString(
              "Suite time against suite energy (the sum over the operators of their "
              "energy, once each), every point; joined: the Pareto front.");
        case SweepFigure::area:
          return QString(
              "Suite time against the graph's area (area x instances summed over the "
              "nodes), every point; joined: the Pareto front.");
        default:
          return d.strategy_grid
                     ? QString(
                           "Iteration time against peak memory per GPU, every point of the "
                           "grid; joined: the Pareto front of the points that fit.")
                     : QString(
                           "Suite time against the memory the graph provides, every point; "
                           "joined: the Pareto front.");
      }
    };
    out.figures.push_back(plot_report_figure(pareto, "sweep-pareto", caption(d.cost.figure),
                                             kPlotWidth, kPlotHeight));
    const std::pair<bool, SweepFigure> fronts[] = {{d.energy_known, SweepFigure::energy},
                                                   {d.area_known, SweepFigure::area}};
    for (const auto& [known, figure] : fronts) {
      if (!known || figure == d.cost.figure) continue;
      QCustomPlot plot;
      fill_pareto_plot(plot, sweep_pareto_data(d, title, figure), report_palette());
      out.figures.push_back(plot_report_figure(
          plot, figure == SweepFigure::energy ? "sweep-energy-pareto" : "sweep-area-pareto",
          caption(figure), kPlotWidth, kPlotHeight));
    }
    if (!d.sensitivities.empty()) {
      QCustomPlot bars;
      fill_sensitivity_plot(bars, "sensitivity of the total", d.paths, d.sensitivities.front(),
                            report_palette());
      out.figures.push_back(plot_report_figure(
          bars, "sweep-sensitivity",
          "Sensitivity of the total time to each varied parameter (d ln time / d ln parameter), "
          "largest first.",
          kPlotWidth, 420));
    }
  }

  if (c.comparison) {
    const std::vector<CorrelationPlotPoint> before = plot_points(c.before->input->points);
    const QString before_title =
        QString::fromStdString(c.before->db + " run " + std::to_string(c.before->info.id));
    out.figures.push_back(correlation_figure(before, before_title, "diff-before",
                                             "Before: predicted against measured."));
    out.figures.push_back(correlation_figure(
        plot_points(c.run.input->points), QString::fromStdString(c.title), "diff-after",
        "After: predicted against measured; hollow circles are the points before.", before,
        QString("before (%1)").arg(before_title)));
  }
  return out;
}

}  // namespace ts::views
