#pragma once
// One workload on two or more architecture graphs as grouped bars: per operator, one bar per
// graph (its time: device time + launch overhead), the graphs' totals and speed-ups in the
// legend. Filled from core's ArchitectureComparison (the value `tilescope compare` prints), so
// that the GUI's Compare page and `report --compare` draw the same figure.
#include <QPalette>
#include <vector>

#include "report/ArchitectureComparison.hpp"

class QCustomPlot;
class QCPBars;

namespace ts::views {

struct ComparisonPlotContents {
  std::vector<QCPBars*> bars;  // one per graph, in the comparison's order
  size_t left_out = 0;         // operator times without a finite value (failed predictions)
};

// The colour of the g-th graph's bars (Okabe-Ito, as the other plots): the table and the report
// use the same so that a graph reads the same everywhere.
QColor comparison_graph_colour(size_t graph);

// Clears `plot` and draws the comparison in the palette's colours: x is the operator (workload
// order, names as tick labels), y the time in microseconds.
ComparisonPlotContents fill_comparison_plot(QCustomPlot& plot,
                                            const ArchitectureComparison& comparison,
                                            const QPalette& palette);

}  // namespace ts::views
