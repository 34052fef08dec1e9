#pragma once
// One line of progress on stderr, redrawn in place, for the commands that work for seconds
// (predict, measure, correlate, fit). Only on a terminal: when stderr is a pipe or a CI log it
// writes nothing at all, so that logs hold results and errors, not carriage returns and escape
// codes. The line is cleared when the work ends, so the results print on a clean line.
#include <cstddef>
#include <ostream>
#include <string_view>

namespace ts::cli {

class TerminalProgress {
 public:
  // On stderr, drawn only when it is a terminal.
  TerminalProgress();
  // On `out`, drawn only when `terminal` says so (tests).
  TerminalProgress(std::ostream& out, bool terminal);
  ~TerminalProgress();
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  bool on_terminal() const { return terminal_; }
  // Replaces the line with `text`.
  void show(std::string_view text);
  // "[#######-------] 12/40 repetitions  gemm_1024": a bar `done / total` wide, then `text`.
  void show_bar(size_t done, size_t total, std::string_view text);
  // Erases the line; a no-op when nothing is shown.
  void clear();

 private:
  std::ostream& out_;
  bool terminal_;
  bool shown_ = false;
};

}  // namespace ts::cli
