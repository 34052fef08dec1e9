#pragma once
// What Help > About says, and where Help > Documentation looks: plain functions, so that a test
// reads them without opening a dialog or a browser.
#include <QString>

namespace ts::gui {

// tilescope's version (from the build), Qt's (built against and running), and the versions of
// the libraries that say theirs: QCustomPlot, SQLite, fmt, nlohmann-json, oneTBB, Graphviz.
// Rich text for a QMessageBox.
QString about_text();

// The folder of the Markdown documentation: the installed share/doc/tilescope/docs beside the
// data folder, else the source tree's docs/ that the build's data folder links into, else
// ./docs. Empty when none exists.
QString documentation_folder(const QString& working_dir);

}  // namespace ts::gui
