#include "common/AtomicFile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>

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
    // The text is formed first and written with POSIX calls: a stream's failure bit says that a
    // write failed but not why, and errno read after close() or later calls may hold 0
    // ("Success") instead of the cause (a full disk, no permission). Each call's errno is read
    // at once.
    std::ostringstream text;
    write(text);  // an exception here leaves no file at all
    const std::string bytes = std::move(text).str();
    const auto cause = [&](const char* step) {
      const int error = errno;
      return fmt::format("cannot write '{}' ({}): {}", tmp, step, std::strerror(error));
    };
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) fail(cause("open"));
    for (size_t done = 0; done < bytes.size();) {
      const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n == 0) errno = ENOSPC;  // a regular file accepts no bytes only when it is full
        const std::string message = cause("write");
        ::close(fd);
        fail(message);
      }
      done += static_cast<size_t>(n);
    }
    // A file system may accept the bytes and report a full disk only at close (NFS, quotas).
    if (::close(fd) != 0) fail(cause("close"));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) fail(fmt::format("cannot rename '{}' to '{}': {}", tmp, path, ec.message()));
}

void write_file_atomically(const std::string& path, const std::string& text) {
  write_file_atomically(path, [&](std::ostream& out) { out << text; });
}

}  // namespace ts
