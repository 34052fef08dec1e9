#include "common/AtomicFile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "common/InputError.hpp"

namespace ts {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& path, const std::string& what, int error) {
  throw InputError(SourceLocation{path, 0, 0},
                   error ? fmt::format("{}: {}", what, std::strerror(error)) : what);
}

unsigned next_suffix() {
  static std::atomic<unsigned> counter{0};
  return counter++;
}

// A written but not yet renamed temporary; removed unless released.
class Temporary {
 public:
  Temporary(std::string target, const std::string& text) : target_(std::move(target)) {
    // Unique beside the target (same file system, so the rename is atomic); O_EXCL never
    // reuses a name, and mode 0666 less the umask is what a plain create gives.
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; ++attempt) {
      path_ = fmt::format("{}.tmp-{}-{}", target_, ::getpid(), next_suffix());
      fd = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
      const int error = errno;
      path_.clear();
      fail(target_, "cannot write (creating a temporary beside it)", error);
    }
    const char* p = text.data();
    size_t left = text.size();
    while (left > 0) {
      const ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : EIO;
        ::close(fd);
        remove();
        fail(target_,
             fmt::format("cannot write ({} of {} bytes written)", text.size() - left, text.size()),
             error);
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    // fsync: a file system may report a full disk only when the data is placed.
    if (::fsync(fd) != 0) {
      const int error = errno;
      ::close(fd);
      remove();
      fail(target_, "cannot write (flushing to disk)", error);
    }
    if (::close(fd) != 0) {
      const int error = errno;
      remove();
      fail(target_, "cannot write (closing)", error);
    }
  }
  ~Temporary() { remove(); }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  Temporary(Temporary&& other) noexcept
      : target_(std::move(other.target_)), path_(std::move(other.path_)) {
    other.path_.clear();
  }

  void rename_into_place() {
    std::error_code ec;
    if (fs::is_directory(target_, ec)) fail(target_, "cannot write: it is a folder", 0);
    fs::rename(path_, target_, ec);
    if (ec)
      fail(target_, fmt::format("cannot write (renaming '{}' over it): {}", path_, ec.message()),
           0);
    path_.clear();
  }

 private:
  void remove() {
    if (path_.empty()) return;
    ::unlink(path_.c_str());
    path_.clear();
  }
  std::string target_;
  std::string path_;
};

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  Temporary(path, text).rename_into_place();
}

void write_file_atomically(const std::string& path,
                           const std::function<void(std::ostream&)>& write) {
  std::ostringstream out;
  write(out);
  write_file_atomically(path, std::move(out).str());
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string>>& files) {
  // Two names that one file name stands for (operators `a/b` and `a_b` both saved as `a_b`):
  // the second would replace the first in silence. Refused before anything is written.
  std::map<std::string, size_t> seen;
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string key = std::filesystem::absolute(files[i].first).lexically_normal().string();
    if (!seen.emplace(key, i).second)
      throw InputError({files[i].first, 0, 0},
                       "two of the outputs are this one file (outputs " +
                           std::to_string(seen[key] + 1) + " and " + std::to_string(i + 1) +
                           " of " + std::to_string(files.size()) +
                           "); expected a distinct file for each: rename one of them");
  }
  std::vector<Temporary> written;
  written.reserve(files.size());
  for (const auto& [path, text] : files) written.emplace_back(path, text);
  for (Temporary& t : written) t.rename_into_place();
}

std::string safe_file_name(const std::string& name) {
  std::string out;
  for (unsigned char ch : name) {
    const bool plain = std::isalnum(ch) || ch == '.' || ch == '_' || ch == '+' || ch == '-';
    out += plain && ch < 0x80 ? static_cast<char>(ch) : '_';
  }
  const size_t first = out.find_first_not_of('.');
  out = first == std::string::npos ? std::string() : out.substr(first);
  return out.empty() ? "_" : out;
}

}  // namespace ts
