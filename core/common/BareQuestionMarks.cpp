#include "common/BareQuestionMarks.hpp"

namespace ts {
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool ends_value(char c) { return c == ',' || c == '}' || c == ']' || c == '#'; }

}  // namespace

std::string mark_bare_questions(const std::string& text) {
  std::string out = text;
  char quote = 0;
  size_t line_start = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    char c = out[i];
    if (c == '\n') {
      quote = 0;  // multi-line quoted scalars are rare enough to ignore here
      line_start = i + 1;
      continue;
    }
    if (quote) {
      if (quote == '"' && c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    char prev = i > line_start ? out[i - 1] : ' ';
    if (c == '#' && is_blank(prev)) {
      while (i + 1 < out.size() && out[i + 1] != '\n') ++i;
      continue;
    }
    if ((c == '"' || c == '\'') && (is_blank(prev) || prev == ':' || prev == '[' || prev == '{' ||
                                    prev == ',' || i == line_start)) {
      quote = c;
      continue;
    }
    if (c != '?') continue;
    size_t b = i;
    while (b > line_start && is_blank(out[b - 1])) --b;
    bool after_value_start =
        b > line_start && ((out[b - 1] == ':' && b < i) || out[b - 1] == '[' || out[b - 1] == ',');
    size_t f = i + 1;
    while (f < out.size() && is_blank(out[f])) ++f;
    bool before_value_end =
        f == out.size() || out[f] == '\n' || out[f] == '\r' || ends_value(out[f]);
    if (after_value_start && before_value_end) out[i] = '~';
  }
  return out;
}

}  // namespace ts
