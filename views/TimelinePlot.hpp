#pragma once
// A simulated iteration as a Gantt chart: one row per device stream or link, one bar per task,
// coloured by the kind of work; time in seconds along x. Fills a QCustomPlot from plain values,
// so that the GUI's timeline page and headless reports draw the same figure.
#include <QPalette>

#include "training/SimulationTimeline.hpp"

class QCustomPlot;

namespace ts::views {

// Clears `plot` and draws the timeline. Zoom and drag act on the time axis only.
void fill_timeline_plot(QCustomPlot& plot, const SimulationTimeline& timeline,
                        const QPalette& palette);

}  // namespace ts::views
