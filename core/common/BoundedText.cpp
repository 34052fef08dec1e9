#include "common/BoundedText.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/InputError.hpp"

namespace ts {

std::string byte_limit_text(uint64_t bytes) {
  if (bytes >= (uint64_t{1} << 30) && bytes % (uint64_t{1} << 30) == 0)
    return fmt::format("{} GiB", bytes >> 30);
  if (bytes >= (uint64_t{1} << 20) && bytes % (uint64_t{1} << 20) == 0)
    return fmt::format("{} MiB", bytes >> 20);
  return fmt::format("{} bytes", bytes);
}

std::string read_bounded_text(const std::string& path, uint64_t limit, std::string_view expected,
                              std::string_view documented_in) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(SourceLocation{path, 0, 0}, fmt::format("is a folder; expected {}", expected));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLocation{path, 0, 0}, "cannot open the file for reading");
  // A regular file says its size: one past the limit is refused before anything is read, and
  // the text is reserved once. A pipe or a device says nothing: room for the limit and one byte
  // is reserved (address space only, until written), so that the text is never copied while it
  // grows and the most it holds is the limit.
  const bool regular = std::filesystem::is_regular_file(path, ec);
  const uintmax_t size = regular ? std::filesystem::file_size(path, ec) : 0;
  if (regular && !ec && size > limit)
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("is longer than {} ({} bytes); expected {} of at most that "
                                 "(docs/formats.md, \"{}\")",
                                 byte_limit_text(limit), size, expected, documented_in));
  std::string text;
  text.reserve(static_cast<size_t>(regular && !ec ? size + 1 : limit + 1));
  char piece[1 << 16];
  while (in && text.size() <= limit) {
    in.read(piece, static_cast<std::streamsize>(
                       std::min<uint64_t>(sizeof piece, limit + 1 - text.size())));
    text.append(piece, static_cast<size_t>(in.gcount()));
  }
  if (in.bad())
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("cannot read the file past byte {}", text.size()));
  if (text.size() > limit)
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("is longer than {}; expected {} of at most that (docs/formats.md, "
                                 "\"{}\")",
                                 byte_limit_text(limit), expected, documented_in));
  return text;
}

}  // namespace ts
