#pragma once
// One CSV field as RFC 4180 writes it: as is, or quoted with its quotes doubled when it holds a
// comma, a quote or a line break. Shared by every CSV output (predict, compare, db).
#include <initializer_list>
#include <string>

namespace ts {

std::string csv_field(const std::string& text);

// A CSV document built a row at a time, each field through csv_field.
class CsvRows {
 public:
  void row(std::initializer_list<std::string> fields) {
    bool first = true;
    for (const std::string& f : fields) {
      if (!first) text_ += ',';
      text_ += csv_field(f);
      first = false;
    }
    text_ += '\n';
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

}  // namespace ts
