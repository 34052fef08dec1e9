#pragma once
// A workload on two or more architecture graphs as bars: one group per operator (top to bottom
// in the workload's order), one bar per graph. Fills a QCustomPlot from the core's
// ArchitectureComparison, so that a report (`report --compare`) and the GUI draw the same figure.
#include <QPalette>
#include <QString>

#include "report/ArchitectureComparison.hpp"

class QCustomPlot;

namespace ts::views {

enum class ComparisonBarsKind {
  // Each operator's time on each graph (log axis, µs), the bar labelled with the time and what
  // bounds it there.
  time,
  // Each operator's speed-up over the first graph, one bar per other graph (a line at 1x).
  speedup,
};

// Clears `plot` and draws the bars; `title` above them. Returns the height in pixels at which
// every operator's label stays readable (the caller sizes the plot).
int fill_comparison_bars(QCustomPlot& plot, const ArchitectureComparison& comparison,
                         ComparisonBarsKind kind, const QString& title, const QPalette& palette);

}  // namespace ts::views
