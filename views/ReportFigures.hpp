#pragma once
// The figures of a headless report, drawn by the same builders as the GUI's pages
// (fill_correlation_plot, fill_timeline_plot, ArchitectureScene) and kept as PNG (for the HTML
// and the PDF) and SVG (for --figures). Needs a QApplication, on the offscreen platform when
// there is no display.
#include <QByteArray>
#include <QImage>
#include <QPalette>
#include <QString>
#include <vector>

#include "report/ReportContent.hpp"

class QCustomPlot;

namespace ts::views {

struct ReportFigure {
  QString name;     // file stem and anchor: "correlation", "correlation-matmul", "timeline", ...
  QString caption;  // one line under the figure
  QImage image;
  QByteArray png;
  QByteArray svg;
};

struct ReportFigures {
  std::vector<ReportFigure> figures;
  const ReportFigure* find(const QString& name) const;  // null when not drawn
};

ReportFigures render_report_figures(const ReportContent& content);

// A light palette whatever the desktop's: a report is read on paper and in browsers. Every
// report's figures are drawn in it.
QPalette report_palette();

// A plot as a figure: its PNG at twice `width` x `height`, and its SVG drawn as vectors.
ReportFigure plot_report_figure(QCustomPlot& plot, const QString& name, const QString& caption,
                                int width, int height);

// "correlation-matmul": the scatter of one operator class.
QString class_figure_name(const std::string& group);

}  // namespace ts::views
