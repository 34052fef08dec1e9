#pragma once
// Predicted against measured on log-log axes: one scatter per group (operator class), the
// y = x line and a +-10 % band, r / Spearman / MAPE overall in the title and per group in the
// legend. A function that fills a QCustomPlot from plain values, so that the GUI's correlation
// view and headless reports draw the same figure.
#include <QPalette>
#include <QString>
#include <optional>
#include <vector>

class QCustomPlot;
class QCPGraph;

namespace ts::views {

struct CorrelationPlotPoint {
  double predicted_s = 0;
  double measured_s = 0;
  QString label;  // "ffn_up M=4096 N=3072 K=768", shown on hover
  QString group;  // colour: the operator class
};

struct CorrelationPlotData {
  QString title;  // "host-results.sqlite run 3"
  std::vector<CorrelationPlotPoint> points;
  // A second run drawn in hollow markers for comparison; empty: none.
  QString overlay_title;
  std::vector<CorrelationPlotPoint> overlay;
};

// Which graph holds which points (for hover and click), and what was left out.
struct CorrelationPlotContents {
  struct Series {
    QCPGraph* graph = nullptr;
    std::vector<size_t> points;  // indices into data.points (or data.overlay)
    bool overlay = false;
  };
  std::vector<Series> series;
  size_t left_out =
      0;  // points with a non-positive or non-finite value: a log axis cannot show them
  std::optional<double> pearson, spearman, mape;  // none with fewer points than they need
  size_t count = 0;
};

// Clears `plot` and draws `data` in the palette's colours.
CorrelationPlotContents fill_correlation_plot(QCustomPlot& plot, const CorrelationPlotData& data,
                                              const QPalette& palette);

// Axis, grid and text colours from the palette (call again on QEvent::PaletteChange).
void apply_plot_palette(QCustomPlot& plot, const QPalette& palette);

}  // namespace ts::views
