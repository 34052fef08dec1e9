#include "trace/NsysNvtxText.hpp"

#include <cctype>
#include <charconv>
#include <optional>

namespace ts {
namespace {

bool is_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Where `, key = ` begins at or after `from` (npos when no such field follows).
size_t next_field(std::string_view text, size_t from) {
  for (size_t comma = text.find(", ", from); comma != std::string_view::npos;
       comma = text.find(", ", comma + 1)) {
    size_t k = comma + 2;
    while (k < text.size() && is_key_char(text[k])) ++k;
    if (k > comma + 2 && text.substr(k, 3) == " = ") return comma;
  }
  return std::string_view::npos;
}

void skip_blanks(std::string_view text, size_t& at) {
  while (at < text.size() && text[at] == ' ') ++at;
}

// A bracketed list at `at`, skipped whole (for a nested list, a tensor list's argument).
bool skip_list(std::string_view text, size_t& at) {
  int depth = 0;
  for (; at < text.size(); ++at) {
    if (text[at] == '[') ++depth;
    if (text[at] == ']' && --depth == 0) {
      ++at;
      return true;
    }
  }
  return false;
}

// `[[768], [32, 768], []]` from `at`; none when it is not a list of lists.
std::optional<std::vector<std::vector<int64_t>>> read_sizes(std::string_view text, size_t at) {
  std::vector<std::vector<int64_t>> out;
  if (at >= text.size() || text[at] != '[') return std::nullopt;
  ++at;
  skip_blanks(text, at);
  if (at < text.size() && text[at] == ']') return out;
  while (at < text.size()) {
    skip_blanks(text, at);
    if (at >= text.size() || text[at] != '[') return std::nullopt;
    std::vector<int64_t> shape;
    const size_t open = at++;
    skip_blanks(text, at);
    bool flat = true;
    while (at < text.size() && text[at] != ']') {
      if (text[at] == '[') {  // a list of tensors: its shapes are not one argument's
        flat = false;
        at = open;
        if (!skip_list(text, at)) return std::nullopt;
        break;
      }
      int64_t size = 0;
      const auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), size);
      if (ec != std::errc()) return std::nullopt;
      shape.push_back(size);
      at = static_cast<size_t>(end - text.data());
      skip_blanks(text, at);
      if (at < text.size() && text[at] == ',') ++at;
      skip_blanks(text, at);
    }
    if (flat) {
      if (at >= text.size()) return std::nullopt;
      ++at;  // the shape's `]`
    }
    out.push_back(flat ? shape : std::vector<int64_t>{});
    skip_blanks(text, at);
    if (at < text.size() && text[at] == ',') {
      ++at;
      continue;
    }
    if (at < text.size() && text[at] == ']') return out;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

NvtxOperatorText parse_nvtx_operator_text(std::string_view text) {
  NvtxOperatorText out;
  const size_t first = next_field(text, 0);
  out.name = std::string(text.substr(0, first));
  for (size_t field = first; field != std::string_view::npos; field = next_field(text, field + 1)) {
    constexpr std::string_view kSizes = ", sizes = ";
    if (text.substr(field, kSizes.size()) != kSizes) continue;
    if (auto sizes = read_sizes(text, field + kSizes.size())) {
      out.input_shapes = std::move(*sizes);
      out.has_shapes = true;
    }
    break;
  }
  return out;
}

}  // namespace ts
