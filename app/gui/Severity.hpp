#pragma once
// How much a message of the workbench matters: the log shows each, an error also goes to the status
// bar (and to stderr with --quit-after-load). Plain ints in the signals (`message(int, ...)`), so
// that pages and tests connect to them without this header.

namespace ts::gui {

enum Severity { kInfo, kWarning, kError };

}  // namespace ts::gui
