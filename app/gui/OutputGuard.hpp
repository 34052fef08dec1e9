#pragma once
// tilescope-gui's side of the output guard (common/OutputPath.hpp): every file the window writes
// (a saved workspace or graph, an exported table or comparison, the database a trace is imported
// into) is checked first, by core's refuse_outputs_over_inputs, against the files the window has
// open, and refused in one line that the caller shows as it shows its other errors (the log and
// status line, or the export's warning box): a saved table never replaces the results database
// it was read from.
#include <QString>
#include <functional>
#include <string_view>
#include <vector>

#include "common/OutputPath.hpp"

namespace ts::gui {

// The files open now, each named for messages ("the graph", "the results database").
using OpenFiles = std::function<std::vector<NamedPath>()>;

inline constexpr std::string_view kGuiOutputRule =
    "tilescope-gui never writes over a file it has open";

// Throws InputError (`what: 'PATH' is the same file as the graph 'G'; tilescope-gui never
// writes over a file it has open: give what another file`) when `path` is one of `open`.
void refuse_output_over_open_files(const QString& path, const QString& what,
                                   const std::vector<NamedPath>& open);

// The same as one line for the window; empty when `path` may be written.
QString output_over_open_files(const QString& path, const QString& what,
                               const std::vector<NamedPath>& open);

}  // namespace ts::gui
