#include "UnknownCommand.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <numeric>

namespace ts::cli {
namespace {

// Levenshtein distance: insertions, deletions and substitutions, one each.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), size_t{0});
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> unknown_command_text(std::string_view word,
                                                const std::vector<std::string>& commands) {
  if (std::find(commands.begin(), commands.end(), word) != commands.end()) return std::nullopt;
  std::string text = fmt::format("tilescope: unknown command '{}' (commands: {})", word,
                                 fmt::join(commands, ", "));
  // Two edits catch a swapped or missing letter ("predcit", "corelate") without offering
  // "fit" for "db"; a short word must be the start of the command ("sim" for "simulate").
  const std::string* nearest = nullptr;
  size_t best = 3;
  for (const std::string& command : commands) {
    const size_t d = edit_distance(word, command);
    const bool starts = word.size() >= 3 && command.starts_with(word);
    if ((starts || (word.size() > 3 && d < best)) && (nearest == nullptr || d < best)) {
      nearest = &command;
      best = d;
    }
  }
  if (nearest) text += fmt::format("; did you mean '{}'?", *nearest);
  return text;
}

}  // namespace ts::cli
