#include "trace/TraceFileInput.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ts {
namespace {

// 4 MiB: large enough that gzread and the newline count run at memory speed, small against the
// 500 MB a multi-GB import may use in all.
constexpr size_t kChunkBytes = size_t{4} << 20;

}  // namespace

TraceFileInput::TraceFileInput(const std::string& path) : path_(path) {
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path, ec);
  if (ec)
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("cannot read the trace: {}", ec.message()));
  file_ = gzopen(path.c_str(), "rb");
  if (!file_)
    throw InputError(SourceLocation{path, 0, 0},
                     fmt::format("cannot open the trace: {}", std::strerror(errno)));
  gzbuffer(file_, 1u << 20);
  buffer_.resize(kChunkBytes);
}

TraceFileInput::~TraceFileInput() {
  if (file_) gzclose(file_);
}

uint64_t TraceFileInput::file_offset() const {
  const z_off_t at = gzoffset(file_);
  return at < 0 ? 0 : static_cast<uint64_t>(at);
}

TraceFileInput::Iterator TraceFileInput::begin() {
  if (!started_) {
    started_ = true;
    refill();
  }
  return Iterator(this);
}

void TraceFileInput::refill() {
  // Account for the chunk being left: its newlines, and where its last line starts.
  const char* data = buffer_.data();
  for (const char* p = data; (p = static_cast<const char*>(
                                  std::memchr(p, '\n', static_cast<size_t>(data + filled_ - p))));
       ++p) {
    ++lines_before_chunk_;
    last_line_start_ = chunk_offset_ + static_cast<uint64_t>(p - data) + 1;
  }
  chunk_offset_ += filled_;
  position_ = 0;
  filled_ = 0;
  const int got = gzread(file_, buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (got < 0) {
    int code = 0;
    const char* message = gzerror(file_, &code);
    throw InputError(where(chunk_offset_),
                     fmt::format("cannot read the trace past byte {}: {}", chunk_offset_, message));
  }
  filled_ = static_cast<size_t>(got);
  if (got == 0) {
    // gzread reports a gzip stream cut short as the end of the data, with the reason in gzerror.
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    if (code != Z_OK && code != Z_STREAM_END)
      throw InputError(where(chunk_offset_),
                       fmt::format("the compressed trace ends early after {} bytes of text ({}); "
                                   "expected a complete gzip stream",
                                   chunk_offset_, message));
  }
}

SourceLocation TraceFileInput::where(uint64_t text_offset) const {
  uint64_t line = lines_before_chunk_ + 1;
  uint64_t line_start = last_line_start_;
  if (text_offset > chunk_offset_) {
    const size_t upto = static_cast<size_t>(
        std::min<uint64_t>(text_offset - chunk_offset_, static_cast<uint64_t>(filled_)));
    for (size_t i = 0; i < upto; ++i)
      if (buffer_[i] == '\n') {
        ++line;
        line_start = chunk_offset_ + i + 1;
      }
  }
  const uint64_t column = text_offset >= line_start ? text_offset - line_start + 1 : 1;
  return SourceLocation{path_, static_cast<int>(line), static_cast<int>(column)};
}

}  // namespace ts
