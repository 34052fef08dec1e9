#pragma once
// A trace file read in chunks of text, plain or gzip-compressed (zlib reads both through
// gzread, with large buffers: a plain file is copied straight into the caller's buffer), so that
// a trace of several GB is read in a bounded buffer. ChromeTraceStream keeps the buffer and knows
// lines and columns; this only reads and counts bytes.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/InputError.hpp"

struct gzFile_s;  // zlib's file, kept out of this header

namespace ts {

class TraceFileInput {
 public:
  // Throws InputError when the file cannot be opened or is not a regular file (a pipe, a
  // device such as /dev/zero: no size, and maybe no end).
  explicit TraceFileInput(const std::string& path);
  ~TraceFileInput();
  TraceFileInput(const TraceFileInput&) = delete;
  TraceFileInput& operator=(const TraceFileInput&) = delete;

  const std::string& path() const { return path_; }
  // Reads up to `size` bytes of uncompressed text into `into`; returns how many, 0 at the end.
  // Throws InputError on a read error or a gzip stream cut short, at `where` (the caller knows
  // the line it has reached).
  size_t read(char* into, size_t size, const SourceLocation& where);
  // Bytes of text read so far, and of the file on disk (for progress against its size).
  uint64_t text_read() const { return text_read_; }
  uint64_t file_offset() const;
  uint64_t file_size() const { return file_size_; }

 private:
  std::string path_;
  gzFile_s* file_ = nullptr;
  uint64_t file_size_ = 0;
  uint64_t text_read_ = 0;
};

// The first `limit` bytes of text of a trace (gzip read through), for sniffing its kind.
std::string trace_head(const std::string& path, size_t limit);

}  // namespace ts
