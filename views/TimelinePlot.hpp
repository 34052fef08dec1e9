#pragma once
// A simulated iteration as a Gantt chart: one row per device stream or link, one bar per task,
// coloured by the kind of work; time in seconds along x. Fills a QCustomPlot from plain values,
// so that the GUI's timeline page and headless reports draw the same figure.
#include <QColor>
#include <QPalette>
#include <string>
#include <vector>

#include "training/SimulationTimeline.hpp"
#include "views/TimelineRows.hpp"

class QCustomPlot;

namespace ts::views {

// Clears `plot` and draws the timeline over the whole iteration, in the rows timeline_rows
// gives at that scale (link tracks with nothing a pixel wide folded into one row). Zoom and drag
// act on the time axis only.
void fill_timeline_plot(QCustomPlot& plot, const SimulationTimeline& timeline,
                        const QPalette& palette);
// The same in the given rows (the timeline page lays them out again as it zooms).
void fill_timeline_plot(QCustomPlot& plot, const SimulationTimeline& timeline,
                        const std::vector<TimelineRow>& rows, const QPalette& palette);

// Writes each span's label inside its bar where the bar, in the current time range, is wide
// enough for it (at most `max_labels`, the first in time), and removes the labels an earlier
// call wrote. Returns how many it wrote.
int label_timeline_spans(QCustomPlot& plot, const SimulationTimeline& timeline,
                         const std::vector<TimelineRow>& rows, int max_labels = 400);

// The end of the time axis when the whole iteration shows: past the last bar, so that the legend
// (at the right, half-way down) sits beside the bars rather than over them.
double timeline_whole_range_s(const SimulationTimeline& timeline);

// The colour of a kind of work (span_category, trace_span_category): Okabe-Ito hues, which stay
// apart for the common colour-vision deficiencies.
QColor timeline_category_colour(const std::string& category);

}  // namespace ts::views
