#pragma once
// A Chrome trace (`{"traceEvents": [...], ...}`, or the bare array form `[...]`), plain or gzip,
// read as a stream of events with simdjson's On-Demand API: the text is read in chunks into one
// buffer, a byte scanner finds where each event ends (strings skipped with memchr), and the
// complete events of a chunk are parsed together as one document, in place. So memory is the
// buffer (a few MB, or the largest event) plus what the visitor keeps, never the file; and the
// parse runs at simdjson's speed. Kineto traces (KinetoTrace) are read through it.
#include <simdjson.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/InputError.hpp"
#include "trace/TraceFileInput.hpp"

namespace ts {

class ChromeTraceVisitor {
 public:
  virtual ~ChromeTraceVisitor() = default;
  // One element of traceEvents (an object, in a valid trace; anything else is the visitor's to
  // skip), in file order. `offset` is where it starts in the text, for messages.
  virtual void event(simdjson::ondemand::value event, uint64_t offset) = 0;
  // A key of the root object other than traceEvents: `wants` says whether its value is to be
  // parsed and given to `root_value` (others are skipped without being kept).
  virtual bool wants(std::string_view key) const = 0;
  virtual void root_value(std::string_view key, simdjson::ondemand::value value) = 0;
};

class ChromeTraceStream {
 public:
  // Throws InputError when the file cannot be opened.
  explicit ChromeTraceStream(const std::string& path);
  ~ChromeTraceStream();
  ChromeTraceStream(const ChromeTraceStream&) = delete;
  ChromeTraceStream& operator=(const ChromeTraceStream&) = delete;

  // Reads the whole trace. `progress` is told the fraction of the file read after each batch of
  // events (it throws to stop). Throws InputError where the JSON breaks (a truncated file: at the
  // byte offset it ends), where `traceEvents` is not an array, at a value longer than
  // kChromeTraceValueByteLimit and past kChromeTraceTextByteLimit bytes of text
  // (trace/TraceInputLimits.hpp), and rethrows what the visitor and `progress` throw.
  void read(ChromeTraceVisitor& visitor, const std::function<void(double)>& progress = {});

  // Line and column (1-based) of a text offset within the current buffer or before it (then the
  // start of the buffer's first line is as precise as it gets).
  SourceLocation where(uint64_t text_offset) const;
  const std::string& path() const { return input_.path(); }
  [[noreturn]] void fail(uint64_t text_offset, const std::string& message) const;
  // After read(): the trace is the JSON Array Format and ends without its closing ']' (which
  // the format allows), after its last complete event.
  bool array_unclosed() const { return array_unclosed_; }

 private:
  class Scanner;
  bool fill(size_t keep_from);  // keeps [keep_from, filled) and reads more; false at the end
  void parse_batch(ChromeTraceVisitor& visitor, size_t begin, size_t end);
  uint64_t offset_of(size_t index) const { return buffer_offset_ + index; }

  TraceFileInput input_;
  std::unique_ptr<char[]> buffer_;
  size_t capacity_ = 0;  // of text, without the byte before and the padding after
  // The text is at buffer_[1 .. 1 + filled_): buffer_[0] is free so that a batch of events can
  // be wrapped in brackets in place (its first event's separator, or this byte, becomes '[').
  size_t filled_ = 0;
  bool at_end_ = false;
  bool array_unclosed_ = false;
  uint64_t buffer_offset_ = 0;    // text offset of buffer_[1]
  uint64_t lines_before_ = 0;     // newlines before buffer_[1]
  uint64_t last_line_start_ = 0;  // text offset after the last of them
  simdjson::ondemand::parser parser_;
  // where()'s last answer: the lines counted in the buffer up to `scanned` bytes.
  struct WhereCache {
    uint64_t buffer_offset = 0, lines_before = 0;
    size_t scanned = 0;
    uint64_t line = 0, line_start = 0;
  };
  mutable WhereCache where_cache_;
  // The two bytes around the batch being parsed, brackets while it is (parse_batch).
  struct Patch {
    size_t index = 0;
    char original = 0;
    bool active = false;
  };
  Patch patches_[2];
};

}  // namespace ts
