#pragma once
// The frame a horizontal bar chart of views/ ends with: the title above the axis, the legend (the
// bars' series in order) in a row of its own under the axis, where no bar or label can sit under
// it, the palette's colours, no grid across the bars. Shared by the comparison bars and the
// trace's bars per rank, so the two read alike in the GUI and the reports.
#include <QPalette>
#include <QString>
#include <vector>

class QCustomPlot;
class QCPBars;

namespace ts::views {

// Undoes an earlier frame_bar_chart on `plot` before it is filled again: the legend back into the
// axis rect, the title removed.
void unframe_bar_chart(QCustomPlot& plot);

// Null entries of `bars` (a series with nothing to draw) are left out of the legend.
void frame_bar_chart(QCustomPlot& plot, const std::vector<QCPBars*>& bars, const QString& title,
                     const QPalette& palette);

}  // namespace ts::views
