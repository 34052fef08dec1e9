#pragma once
// A workload on two or more architecture graphs as bars: one group per operator (top to bottom
// in the workload's order), or per node for energy, one bar per graph. Fills a QCustomPlot from
// core's ArchitectureComparison (the value `tilescope compare` prints): the one builder of this
// figure, so that the GUI's Compare page and the report (`report --compare`) draw the same bars.
#include <QColor>
#include <QPalette>
#include <QString>
#include <vector>

#include "report/ArchitectureComparison.hpp"

class QCustomPlot;
class QCPBars;

namespace ts::views {

enum class ComparisonBarsKind {
  // Each operator's time on each graph (log axis, us), the bar labelled with the time and what
  // bounds it there.
  time,
  // Each operator's speed-up over the first graph, one bar per other graph (a line at 1x).
  speedup,
  // The workload's energy per node on each graph (log axis, uJ): one group per node of any
  // graph, a graph whose energy is unknown drawing none (workload_energy_by_node).
  energy,
};

struct ComparisonBarsContents {
  // One per graph, in the comparison's order; the first graph's is null in the speed-up kind
  // (it is the reference). Each series' key of operator i is (operators - i): the first on top.
  std::vector<QCPBars*> bars;
  size_t left_out = 0;      // values without a finite, positive value (failed predictions)
  int readable_height = 0;  // pixels at which every operator's label stays readable
};

// The colour of the g-th graph's bars (Okabe-Ito, as the other plots): the Compare page's table
// uses the same so that a graph reads the same everywhere.
QColor comparison_graph_colour(size_t graph);

// Clears `plot` (an earlier fill's bars, labels, title and legend row included) and draws the
// bars in the palette's colours, `title` above them.
ComparisonBarsContents fill_comparison_bars(QCustomPlot& plot,
                                            const ArchitectureComparison& comparison,
                                            ComparisonBarsKind kind, const QString& title,
                                            const QPalette& palette);

}  // namespace ts::views
