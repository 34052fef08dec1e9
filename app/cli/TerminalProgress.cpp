#include "TerminalProgress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <string>

namespace ts::cli {
namespace {

// Carriage return, then "erase to the end of the line" (ECMA-48 EL): the next text starts on a
// blank line whatever the previous one was.
constexpr std::string_view kRestartLine = "\r\033[K";
constexpr size_t kBarWidth = 30;

}  // namespace

TerminalProgress::TerminalProgress() : TerminalProgress(std::cerr, isatty(STDERR_FILENO) != 0) {}

TerminalProgress::TerminalProgress(std::ostream& out, bool terminal)
    : out_(out), terminal_(terminal) {}

TerminalProgress::~TerminalProgress() { clear(); }

void TerminalProgress::show(std::string_view text) {
  if (!terminal_) return;
  out_ << kRestartLine << text << std::flush;
  shown_ = true;
}

void TerminalProgress::show_bar(size_t done, size_t total, std::string_view text) {
  if (!terminal_ || total == 0) return;
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
