#include "common/AtomicFile.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/InputError.hpp"

namespace ts {

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::string tmp = path + ".tmp";
  const auto remove_tmp = [&] {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
  };
  auto fail = [&](const std::string& what) {
    remove_tmp();
    throw InputError(SourceLocation{path, 0, 0}, what);
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) fail(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
    try {
      write(out);
    } catch (...) {
      out.close();
      remove_tmp();
      throw;
    }
    out.close();
    if (!out) fail(fmt::format("cannot write '{}': {}", tmp, std::strerror(errno)));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) fail(fmt::format("cannot rename '{}' to '{}': {}", tmp, path, ec.message()));
}

void write_file_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace ts
