#include "TerminalProgress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>

namespace ts::cli {
namespace {

// Carriage return, then "erase to the end of the line" (ECMA-48 EL): the next text starts on a
// blank line whatever the previous one was.
constexpr std::string_view kRestartLine = "\r\033[K";
constexpr size_t kBarWidth = 30;
// Often enough that a log shows the run alive, seldom enough that a 2-minute run writes a
// screenful, not a page.
constexpr double kDefaultIntervalS = 5;

double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

double progress_interval_s() {
  const char* text = std::getenv("TILESCOPE_PROGRESS_INTERVAL");
  if (!text || !*text) return kDefaultIntervalS;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  // Anything but a plain non-negative number keeps the default rather than failing a command.
  if (*end != '\0' || !std::isfinite(seconds) || seconds < 0) return kDefaultIntervalS;
  return seconds;
}

std::string duration_text(double seconds) {
  const long long s = std::llround(std::max(seconds, 0.0));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

TerminalProgress::TerminalProgress(std::string_view task)
    : TerminalProgress(std::cerr, isatty(STDERR_FILENO) != 0, task, progress_interval_s()) {}

TerminalProgress::TerminalProgress(std::ostream& out, bool terminal, std::string_view task,
                                   double interval_s, Clock clock)
    : out_(out),
      terminal_(terminal),
      task_(task),
      interval_s_(interval_s),
      clock_(clock ? std::move(clock) : Clock(steady_seconds)) {
  pace_start_s_ = last_line_s_ = clock_();
}

TerminalProgress::~TerminalProgress() { clear(); }

void TerminalProgress::log(const std::string& line) {
  if (interval_s_ <= 0) return;
  const double now = clock_();
  if (now - last_line_s_ < interval_s_) return;
  last_line_s_ = now;
  out_ << (task_.empty() ? line : task_ + ": " + line) << "\n" << std::flush;
}

void TerminalProgress::show(std::string_view text) {
  if (!terminal_) return log(std::string(text));
  out_ << kRestartLine << text << std::flush;
  shown_ = true;
}

void TerminalProgress::show_count(size_t done, size_t total, std::string_view text) {
  if (terminal_) return show(text);
  const double now = clock_();
  // A new count (measure's planning, then its repetitions) starts a new pace.
  if (total != pace_total_ || done < pace_done_) {
    pace_total_ = total;
    pace_done_ = done;
    pace_start_s_ = now;
  }
  if (interval_s_ <= 0 || now - last_line_s_ < interval_s_) return;
  std::string line = fmt::format("{}/{} done", done, total);
  // The pace since this count began, over what is left; nothing to go on before one is done.
  if (done > pace_done_ && done <= total)
    line += fmt::format(
        ", {} left", duration_text((now - pace_start_s_) / static_cast<double>(done - pace_done_) *
                                   static_cast<double>(total - done)));
  log(line);
}

void TerminalProgress::show_bar(size_t done, size_t total, std::string_view text) {
  if (total == 0) return;
  if (!terminal_) return show_count(done, total, text);
  const size_t filled = kBarWidth * std::min(done, total) / total;
  show(fmt::format("[{}{}] {}/{} {}", std::string(filled, '#'),
                   std::string(kBarWidth - filled, '-'), done, total, text));
}

void TerminalProgress::clear() {
  if (!shown_) return;
  out_ << kRestartLine << std::flush;
  shown_ = false;
}

}  // namespace ts::cli
