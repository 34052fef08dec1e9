#include "common/InputError.hpp"

#include <string_view>

namespace ts {
namespace {

// An error is one line a person reads: a message that quotes a file's text (a 17 MB file given
// where a YAML map was expected) keeps its start and end, and a line break in it is written
// `\n`, so that a terminal, a log and the GUI's status line each show one line.
constexpr size_t kMaxMessageBytes = 800;

std::string one_line(std::string_view message) {
  std::string out;
  auto append = [&out](std::string_view part) {
    for (const char c : part) {
      if (c == '\n')
        out += "\\n";
      else if (c == '\r')
        out += "\\r";
      else
        out += c;
    }
  };
  if (message.size() <= kMaxMessageBytes) {
    append(message);
    return out;
  }
  // Cut on UTF-8 character boundaries (never inside a multi-byte sequence).
  auto boundary = [&message](size_t at) {
    while (at > 0 && at < message.size() &&
           (static_cast<unsigned char>(message[at]) & 0xC0) == 0x80)
      --at;
    return at;
  };
  const size_t head = boundary(kMaxMessageBytes * 2 / 3);
  const size_t tail = boundary(message.size() - kMaxMessageBytes / 4);
  append(message.substr(0, head));
  out += " ... [" + std::to_string(tail - head) + " bytes elided] ... ";
  append(message.substr(tail));
  return out;
}

}  // namespace

std::string format_location(const SourceLocation& where) {
  std::string text = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) {
    text += ":" + std::to_string(where.line);
    text += ":" + std::to_string(where.column > 0 ? where.column : 1);
  }
  return text;
}

InputError::InputError(SourceLocation where, const std::string& message)
    : std::runtime_error(format_location(where) + ": " + one_line(message)),
      where_(std::move(where)),
      message_(one_line(message)) {}

}  // namespace ts
