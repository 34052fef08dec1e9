#include "common/NewFileBeside.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "common/InputError.hpp"

namespace ts {

NewFileBeside create_file_beside(const std::string& path, const std::string& what) {
  static std::atomic<unsigned> counter{0};
  NewFileBeside file;
  // O_EXCL never takes a name that is there; the pid and a counter make a clash rare, and one
  // is tried again under the next name.
  for (int attempt = 0; attempt < 100; ++attempt) {
    file.path = fmt::format("{}.new-{}-{}", path, ::getpid(), counter++);
    file.fd = ::open(file.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (file.fd >= 0 || errno != EEXIST) break;
  }
  if (file.fd < 0)
    throw InputError(SourceLocation{path, 0, 0}, fmt::format("{}: {}", what, std::strerror(errno)));
  return file;
}

}  // namespace ts
