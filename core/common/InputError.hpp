#pragma once
// An error in a file a person wrote. Every loader reports through this type so
// that the CLI can print `file:line:col: message` and exit with status 2.
#include <stdexcept>
#include <string>

namespace ts {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
};

class InputError : public std::runtime_error {
 public:
  InputError(SourceLocation where, const std::string& message);
  const SourceLocation& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLocation where_;
  std::string message_;
};

std::string format_location(const SourceLocation& where);

}  // namespace ts
