#include "common/AtomicFile.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/InputError.hpp"

namespace ts {

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  auto fail = [&](const std::string& what) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw InputError(SourceLocation{path, 0, 0}, what);
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
    out << text;
    out.close();
    if (!out) fail(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) fail(fmt::format("cannot rename '{}' to '{}': {}", tmp, path, ec.message()));
}

}  // namespace ts
