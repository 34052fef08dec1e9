#include "common/InputError.hpp"

namespace ts {

std::string format_location(const SourceLocation& where) {
  std::string text = where.file.empty() ? std::string("<input>") : where.file;
  if (where.line > 0) {
    text += ":" + std::to_string(where.line);
    text += ":" + std::to_string(where.column > 0 ? where.column : 1);
  }
  return text;
}

InputError::InputError(SourceLocation where, const std::string& message)
    : std::runtime_error(format_location(where) + ": " + message),
      where_(std::move(where)),
      message_(message) {}

}  // namespace ts
