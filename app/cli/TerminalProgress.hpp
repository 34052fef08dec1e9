#pragma once
// Progress on stderr for the commands that work for seconds or minutes (predict, compare,
// measure, correlate, fit, bench model). On a terminal, one line redrawn in place and cleared
// when the work ends, so that the results print on a clean line. Off a terminal (a pipe, a CI
// log) no carriage returns or escape codes: a plain line every few seconds, such as
// `measure: 12/40 done, 1 min 05 s left`, so that a log of a long run shows it is alive and how
// far it got. Quick commands print nothing there: the first line comes after one interval.
#include <chrono>
#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace ts::cli {

// Seconds between progress lines off a terminal: TILESCOPE_PROGRESS_INTERVAL when it is set (a
// number of seconds; 0 turns the lines off), else 5.
double progress_interval_s();

// "12 s", "1 min 05 s", "2 h 03 min": a duration as the progress lines write it.
std::string duration_text(double seconds);

class TerminalProgress {
 public:
  using Clock = std::function<double()>;  // seconds since any fixed point

  // On stderr, drawn in place when it is a terminal; else lines named `task` ("measure") every
  // progress_interval_s().
  explicit TerminalProgress(std::string_view task);
  // On `out` (tests): drawn in place when `terminal` says so, else lines every `interval_s`
  // seconds of `clock` (0: none).
  TerminalProgress(std::ostream& out, bool terminal, std::string_view task = "",
                   double interval_s = 0, Clock clock = {});
  ~TerminalProgress();
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  bool on_terminal() const { return terminal_; }
  // Replaces the line with `text`; off a terminal, `task: text` when an interval has passed.
  void show(std::string_view text);
  // On a terminal, `text` as show() draws it; off a terminal, `task: 12/40 done, 1 min 05 s
  // left` when an interval has passed (the time left from the pace so far).
  void show_count(size_t done, size_t total, std::string_view text);
  // "[#######-------] 12/40 repetitions  gemm_1024": a bar `done / total` wide, then `text`;
  // off a terminal as show_count.
  void show_bar(size_t done, size_t total, std::string_view text);
  // Erases the line; a no-op when nothing is shown (and always off a terminal).
  void clear();

 private:
  // Off a terminal: writes `line` when an interval has passed since the start or the last one.
  void log(const std::string& line);

  std::ostream& out_;
  bool terminal_;
  bool shown_ = false;
  std::string task_;
  double interval_s_;
  Clock clock_;
  double last_line_s_ = 0;
  // The count the time left is estimated from: its total, and when and at what count it began.
  size_t pace_total_ = 0, pace_done_ = 0;
  double pace_start_s_ = 0;
};

}  // namespace ts::cli
