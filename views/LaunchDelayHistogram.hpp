#pragma once
// How long GPU work waited between its launch call and its start, as core's launch statistics
// count it (trace/LaunchStatistics.hpp: a bin [0, 1 us), then bins doubling up to the largest
// delay): one bar per bin, one series per rank drawn side by side. The one builder of this
// figure, for the GUI's Trace page (the chosen rank) and the report's trace section (every rank).
#include <QPalette>
#include <QString>
#include <vector>

#include "trace/LaunchStatistics.hpp"

class QCustomPlot;
class QCPBars;

namespace ts::views {

struct LaunchDelaySeries {
  QString name;  // "rank 0"
  const LaunchStatistics* launch = nullptr;
};

struct LaunchDelayHistogramContents {
  std::vector<QCPBars*> bars;  // one per series, in order
  size_t bins = 0;             // the union of the series' bins, by lower bound
  int64_t counted = 0;         // GPU activities in the bars, over every series
};

// Bins are the x axis' categories ("1-2 us"), counts the y axis; a series' colour is its
// position's (the Okabe-Ito hues of the comparison bars). Clears `plot` as the other builders.
LaunchDelayHistogramContents fill_launch_delay_histogram(
    QCustomPlot& plot, const std::vector<LaunchDelaySeries>& series, const QString& title,
    const QPalette& palette);

}  // namespace ts::views
