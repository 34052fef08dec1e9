#pragma once
// A trace file read in chunks, plain or gzip-compressed (zlib reads both through gzread), as a
// character iterator that nlohmann::json's SAX parser consumes: the file is never held whole,
// so a trace of several GB parses in a fixed buffer. It knows where it is (bytes, line and
// column of the uncompressed text) so that a parse error can say where the file broke.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "common/InputError.hpp"

struct gzFile_s;  // zlib's file, kept out of this header

namespace ts {

class TraceFileInput {
 public:
  // Throws InputError when the file cannot be opened.
  explicit TraceFileInput(const std::string& path);
  ~TraceFileInput();
  TraceFileInput(const TraceFileInput&) = delete;
  TraceFileInput& operator=(const TraceFileInput&) = delete;

  const std::string& path() const { return path_; }
  // Bytes of uncompressed text consumed so far, and of the file on disk read so far (for
  // progress against the file's size).
  uint64_t text_offset() const { return chunk_offset_ + position_; }
  uint64_t file_offset() const;
  uint64_t file_size() const { return file_size_; }
  // Line and column (1-based) of the uncompressed text at `text_offset` (at most the bytes read
  // so far): counts the current chunk's newlines, so it is for messages, not per character.
  SourceLocation where(uint64_t text_offset) const;

  // The iterator nlohmann's input adapter reads: `*it` is the current character, `++it` moves
  // on, and it equals the end iterator once the file is exhausted.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;
    Iterator() = default;
    explicit Iterator(TraceFileInput* input) : input_(input) {}
    reference operator*() const { return input_->buffer_[input_->position_]; }
    Iterator& operator++() {
      if (++input_->position_ == input_->filled_) input_->refill();
      return *this;
    }
    bool operator==(const Iterator& other) const { return at_end() == other.at_end(); }
    bool operator!=(const Iterator& other) const { return !(*this == other); }

   private:
    bool at_end() const { return input_ == nullptr || input_->exhausted(); }
    TraceFileInput* input_ = nullptr;
  };
  Iterator begin();
  Iterator end() { return Iterator(); }

 private:
  bool exhausted() const { return position_ >= filled_; }
  void refill();  // throws InputError on a read error (a damaged gzip stream)

  std::string path_;
  gzFile_s* file_ = nullptr;
  uint64_t file_size_ = 0;
  std::vector<char> buffer_;
  size_t filled_ = 0;
  size_t position_ = 0;
  uint64_t chunk_offset_ = 0;        // text offset of buffer_[0]
  uint64_t lines_before_chunk_ = 0;  // newlines before buffer_[0]
  uint64_t last_line_start_ = 0;     // text offset after the last newline before buffer_[0]
  bool started_ = false;
};

}  // namespace ts
