#include "trace/TraceFileInput.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

namespace ts {

TraceFileInput::TraceFileInput(const std::string& path) : path_(path) {
  std::error_code ec;
  // A trace is a file with a size (progress is measured against it): a pipe or a device
  // (/dev/zero) could stream without end, and is refused before anything is read.
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw InputError(SourceLocation{path, 0, 0},
                     std::filesystem::is_directory(status)
                         ? "is a folder; expected a trace file"
                         : "is not a regular file (a pipe or a device); expected a trace file, "
                           "whose size is known before it is read");
  file_size_ = std::filesystem::file_size(path, ec);
  if (ec)
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("cannot read the trace: {}", ec.message()));
  file_ = gzopen(path.c_str(), "rb");
  if (!file_)
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("cannot open the trace: {}", std::strerror(errno)));
  // zlib's input and output buffers: 1 MiB each keeps inflate at its own speed (measured: 64 KiB
  // costs about a tenth more per byte); a plain file bypasses them once a read asks for more.
  gzbuffer(file_, 1u << 20);
}

TraceFileInput::~TraceFileInput() {
  if (file_) gzclose(file_);
}

uint64_t TraceFileInput::file_offset() const {
  const z_off_t at = gzoffset(file_);
  return at < 0 ? 0 : static_cast<uint64_t>(at);
}

size_t TraceFileInput::read(char* into, size_t size, const SourceLocation& where) {
  size_t total = 0;
  while (total < size) {
    const auto ask = static_cast<unsigned>(std::min<size_t>(size - total, INT_MAX / 2));
    const int got = gzread(file_, into + total, ask);
    if (got < 0) {
      int code = 0;
      const char* message = gzerror(file_, &code);
      throw InputError(where, fmt::format("cannot read the trace past byte {}: {}",
                                          text_read_ + total, message));
    }
    if (got == 0) {
      // gzread reports a gzip stream cut short as the end of the data, with the reason in gzerror.
      int code = Z_OK;
      const char* message = gzerror(file_, &code);
      if (code != Z_OK && code != Z_STREAM_END)
        throw InputError(where, fmt::format("the compressed trace ends early after {} bytes of "
                                            "text ({}); expected a complete gzip stream",
                                            text_read_ + total, message));
      break;
    }
    total += static_cast<size_t>(got);
  }
  text_read_ += total;
  return total;
}

std::string trace_head(const std::string& path, size_t limit) {
  TraceFileInput input(path);
  std::string head(limit, '\0');
  head.resize(input.read(head.data(), limit, SourceLocation{path, 0, 0}));
  return head;
}

}  // namespace ts
