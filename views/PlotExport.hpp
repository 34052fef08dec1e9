#pragma once
// Every plot saves as PNG, SVG or PDF, from its right-click menu: one implementation for the
// correlation, timeline and comparison plots of the GUI (and for any plot a report draws).
#include <QString>

class QCustomPlot;

namespace ts::views {

enum class PlotFormat { png, svg, pdf };

// The format a file name asks for by its suffix (case-insensitive); png when it names none.
PlotFormat plot_format_of(const QString& path);

// Writes the plot as drawn now, at its on-screen size in logical pixels (PNG: twice that in
// pixels, for a sharp picture on a high-density screen or a slide; SVG and PDF are vectors).
// Returns false, with why in `error`, when the file cannot be written.
bool save_plot(QCustomPlot& plot, const QString& path, QString* error = nullptr);

// Gives the plot a context menu "Export as PNG… / SVG… / PDF…" that asks for a file name
// (starting from `base_name`, e.g. "correlation") and saves it. Returns nothing: errors are
// shown in a message box, as the user is there.
void install_plot_export(QCustomPlot* plot, const QString& base_name);

}  // namespace ts::views
