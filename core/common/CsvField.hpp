#pragma once
// One CSV field as RFC 4180 writes it: as is, or quoted with its quotes doubled when it holds a
// comma, a quote or a line break. Shared by every CSV output (predict, compare, db).
#include <string>

namespace ts {

std::string csv_field(const std::string& text);

}  // namespace ts
