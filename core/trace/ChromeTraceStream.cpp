#include "trace/ChromeTraceStream.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "trace/TraceInputLimits.hpp"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ts {
namespace {

// 8 MiB of text per read, parsed in batches of about 1 MiB of whole events: large enough that
// reading and simdjson's first stage run at memory speed, small enough to stay in the caches
// between the scan and the parse. The buffer grows only for an event longer than it.
constexpr size_t kChunkBytes = size_t{8} << 20;
constexpr size_t kBatchBytes = size_t{1} << 20;

// What the scanner looks at outside strings; every other byte is skipped.
enum Byte : uint8_t { kPlain, kQuote, kOpen, kClose };
constexpr std::array<uint8_t, 256> byte_kinds() {
  std::array<uint8_t, 256> kinds{};
  kinds['"'] = kQuote;
  kinds['{'] = kinds['['] = kOpen;
  kinds['}'] = kinds[']'] = kClose;
  return kinds;
}
constexpr std::array<uint8_t, 256> kByteKinds = byte_kinds();

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

uint64_t count_newlines(const char* text, size_t size) {
  uint64_t count = 0;
  size_t i = 0;
#ifdef __SSE2__
  // per byte lane, minus the matches (each -1), summed every 255 blocks before a lane overflows
  const __m128i newline = _mm_set1_epi8('\n');
  while (i + 16 <= size) {
    __m128i lanes = _mm_setzero_si128();
    for (int n = 0; n < 255 && i + 16 <= size; ++n, i += 16)
      lanes = _mm_sub_epi8(
          lanes,
          _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(text + i)), newline));
    const __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
    count += static_cast<uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < size; ++i) count += text[i] == '\n';
  return count;
}

// What carries from one 64-byte block to the next.
struct BlockState {
  uint64_t escaped = 0;    // the first byte of the next block is escaped by a backslash
  uint64_t in_string = 0;  // all ones when the block ended inside a string
};

// One bit per byte of `block` equal to `c` ((byte | 0x20) == c with `fold`: '{' and '[' alike).
uint64_t byte_mask(const char* block, char c, bool fold) {
#ifdef __SSE2__
  const __m128i wanted = _mm_set1_epi8(c);
  const __m128i lower = _mm_set1_epi8(fold ? 0x20 : 0);
  uint64_t mask = 0;
  for (int i = 0; i < 4; ++i) {
    const __m128i bytes =
        _mm_or_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * i)), lower);
    mask |= static_cast<uint64_t>(
                static_cast<uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(bytes, wanted))))
            << (16 * i);
  }
  return mask;
#else
  uint64_t mask = 0;
  for (int i = 0; i < 64; ++i)
    if ((fold ? (block[i] | 0x20) : block[i]) == c) mask |= uint64_t{1} << i;
  return mask;
#endif
}

// The bytes escaped by a backslash (simdjson's branchless escape scanner: odd runs of
// backslashes escape the byte after them, even runs do not).
uint64_t escaped_bytes(uint64_t backslash, uint64_t& carried) {
  backslash &= ~carried;
  const uint64_t follows_escape = backslash << 1 | carried;
  constexpr uint64_t kEvenBits = 0x5555555555555555ULL;
  const uint64_t odd_starts = backslash & ~kEvenBits & ~follows_escape;
  uint64_t even_starts = 0;
  carried = __builtin_add_overflow(odd_starts, backslash, &even_starts) ? 1 : 0;
  return (kEvenBits ^ (even_starts << 1)) & follows_escape;
}

uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// The brackets ({ } [ ]) of a 64-byte block that are outside strings.
uint64_t structural_brackets(const char* block, BlockState& state) {
  const uint64_t quotes =
      byte_mask(block, '"', false) & ~escaped_bytes(byte_mask(block, '\\', false), state.escaped);
  const uint64_t strings = prefix_xor(quotes) ^ state.in_string;
  state.in_string = static_cast<uint64_t>(static_cast<int64_t>(strings) >> 63);
  return (byte_mask(block, '{', true) | byte_mask(block, '}', true)) & ~strings;
}

}  // namespace

// The byte-level walk of the root and of traceEvents. Only the structure is checked here
// (brackets, separators, where strings end); simdjson checks the rest of each batch. All
// positions are indices into the text of the buffer; fill() moves them when it keeps a tail.
class ChromeTraceStream::Scanner {
 public:
  Scanner(ChromeTraceStream& stream, ChromeTraceVisitor& visitor,
          const std::function<void(double)>& progress)
      : s_(stream), visitor_(visitor), progress_(progress) {}

  void run() {
    skip_space();
    const int c = peek();
    if (c == '[') {
      // The JSON Array Format: the events alone. Its closing ']' may be missing (the format
      // allows it, for a process that stopped while writing its trace): the stream says so.
      ++pos_;
      events(true);
    } else if (c == '{') {
      ++pos_;
      root_object();
    } else {
      fail_here(c < 0 ? "the file is empty" : "it does not start with '{' or '['",
                "a Chrome trace (a JSON object with traceEvents, or an array of events)");
    }
    skip_space();
    if (peek() >= 0) fail_here("text follows the end of the trace's JSON", "nothing after it");
  }

 private:
  char* text() const { return s_.buffer_.get() + 1; }

  // The byte at pos_, reading more when the buffer is used up; -1 at the end of the file.
  int peek() {
    while (pos_ >= s_.filled_)
      if (!refill()) return -1;
    return static_cast<unsigned char>(text()[pos_]);
  }

  // Keeps the value being scanned (from value_begin_) and reads more; the batch's events are
  // parsed first, so nothing before that value is needed again.
  bool refill() {
    flush();
    const size_t keep = value_begin_ != kNone ? value_begin_ : pos_;
    if (!s_.fill(keep)) return false;
    pos_ -= keep;
    if (value_begin_ != kNone) value_begin_ -= keep;
    return true;
  }

  void skip_space() {
    for (int c = peek(); c >= 0 && is_space(static_cast<char>(c)); c = peek()) ++pos_;
  }

  // pos_ is just past an opening quote: moves it past the closing one.
  void skip_string() {
    for (;;) {
      if (pos_ >= s_.filled_ && peek() < 0) truncated();
      const char* from = text() + pos_;
      const auto* quote = static_cast<const char*>(std::memchr(from, '"', s_.filled_ - pos_));
      if (!quote) {
        pos_ = s_.filled_;
        continue;
      }
      pos_ = static_cast<size_t>(quote - text());
      // escaped when an odd run of backslashes precedes it (the run ends at the opening quote at
      // the latest, which is still in the buffer: value_begin_ is at or before it)
      size_t backslashes = 0;
      for (size_t at = pos_; at > 0 && text()[at - 1] == '\\'; --at) ++backslashes;
      ++pos_;
      if (backslashes % 2 == 0) return;
    }
  }

  // Moves pos_ past the value starting at pos_ (value_begin_, whose text is kept).
  void skip_value() {
    const int first = peek();
    if (first == '"') {
      ++pos_;
      skip_string();
      return;
    }
    if (first == '{' || first == '[') {
      // One tight pass over the value; if the buffer ends inside it, read more and pass over
      // it again from its start (values are small against the buffer, so that is rare).
      for (;;) {
        const size_t end = container_end(pos_);
        if (end != kNone) {
          pos_ = end;
          return;
        }
        pos_ = s_.filled_;
        if (peek() < 0) truncated();
        pos_ = value_begin_;
      }
    }
    // a number or a literal: up to the next separator
    for (int c = peek(); c >= 0; c = peek()) {
      if (c == ',' || c == ']' || c == '}' || c == ':' || is_space(static_cast<char>(c))) return;
      if (c == '"' || c == '{' || c == '[')
        fail_here(fmt::format("'{}' inside a number or literal", static_cast<char>(c)),
                  "a JSON value");
      ++pos_;
    }
  }

  // The end (one past its closing bracket) of the array or object at `from`, or kNone if the
  // buffer ends first: 64 bytes at a time, as simdjson's first stage finds structure (a mask per
  // character class, escapes and strings resolved with carries and a prefix xor), so that
  // finding where each event ends costs a small part of parsing it.
  size_t container_end(size_t from) const {
    const char* t = text();
    const size_t end = s_.filled_;
    BlockState state;
    int depth = 0;
    for (size_t at = from; at < end; at += 64) {
      char tail[64];
      const char* block = t + at;
      if (end - at < 64) {  // the last bytes: padded with spaces, which are nothing
        std::memset(tail, ' ', sizeof tail);
        std::memcpy(tail, block, end - at);
        block = tail;
      }
      uint64_t brackets = structural_brackets(block, state);
      for (; brackets; brackets &= brackets - 1) {
        const int bit = __builtin_ctzll(brackets);
        if ((block[bit] | 0x20) == '{') {
          ++depth;
        } else if (--depth == 0) {
          return at + static_cast<size_t>(bit) + 1;
        }
      }
    }
    return kNone;
  }

  void root_object() {
    for (bool first = true;; first = false) {
      skip_space();
      int c = peek();
      if (c == '}' && first) {
        ++pos_;
        return;
      }
      if (c != '"') expected(c, first ? "a key or '}'" : "a key");
      value_begin_ = pos_;
      ++pos_;
      skip_string();
      const std::string key(text() + value_begin_ + 1, pos_ - value_begin_ - 2);
      value_begin_ = kNone;
      skip_space();
      if (peek() != ':') expected(peek(), "':' after the key");
      ++pos_;
      skip_space();
      if (key == "traceEvents") {
        // The events are an array: anything else would read as a trace without events.
        const int first = peek();
        if (first != '[') {
          if (first < 0) truncated();
          fail_here(fmt::format("`traceEvents` is {}", value_kind(first)),
                    "`traceEvents` to be an array of events ('[')");
        }
        ++pos_;
        events(false);
      } else {
        if (peek() < 0) truncated();
        value_begin_ = pos_;
        skip_value();
        if (visitor_.wants(key)) root_value(key, value_begin_, pos_);
        value_begin_ = kNone;
      }
      skip_space();
      c = peek();
      if (c == '}') {
        ++pos_;
        return;
      }
      if (c != ',') expected(c, "',' or '}' after a value of the trace's object");
      ++pos_;
    }
  }

  void root_value(const std::string& key, size_t begin, size_t end) {
    // wrapped in an array: a scalar at the root of an On-Demand document is not a value
    simdjson::padded_string text(end - begin + 2);
    text.data()[0] = '[';
    std::memcpy(text.data() + 1, this->text() + begin, end - begin);
    text.data()[end - begin + 1] = ']';
    const uint64_t offset = s_.offset_of(begin);
    try {
      simdjson::ondemand::parser parser;
      simdjson::ondemand::document doc = parser.iterate(text);
      for (simdjson::ondemand::value value : doc.get_array()) {
        visitor_.root_value(key, value);
        break;
      }
    } catch (const simdjson::simdjson_error& e) {
      s_.fail(offset, fmt::format("the value of `{}` is not what a Chrome trace has there ({})",
                                  key, e.what()));
    }
  }

  // What a JSON value starting with `c` is, for a message.
  static std::string value_kind(int c) {
    switch (c) {
      case '{':
        return "an object";
      case '"':
        return "text";
      case 't':
      case 'f':
        return "a boolean";
      case 'n':
        return "null";
      default:
        return (c == '-' || (c >= '0' && c <= '9')) ? "a number"
                                                    : fmt::format("'{}'", static_cast<char>(c));
    }
  }

  // The events of an array, up to its ']'. `root_array`: the array is the whole trace (the JSON
  // Array Format), whose ']' may be missing after the last complete event.
  void events(bool root_array) {
    bool separator_due = false;
    for (;;) {
      skip_space();
      const int c = peek();
      if (c < 0 && root_array) {
        flush();
        s_.array_unclosed_ = true;
        return;
      }
      if (c < 0) truncated();
      if (c == ']') {
        ++pos_;
        flush();
        return;
      }
      if (separator_due) {
        if (c != ',') expected(c, "',' or ']' after an event");
        ++pos_;
        separator_due = false;
        continue;
      }
      if (c == ',' || c == '}' || c == ':') expected(c, "an event");
      value_begin_ = pos_;
      skip_value();  // a refill on the way parses the batch and moves value_begin_
      if (batch_begin_ == kNone) batch_begin_ = value_begin_;
      batch_end_ = pos_;
      value_begin_ = kNone;
      separator_due = true;
      if (batch_end_ - batch_begin_ >= kBatchBytes) flush();
    }
  }

  void flush() {
    if (batch_begin_ == kNone) return;
    const size_t begin = batch_begin_, end = batch_end_;
    batch_begin_ = kNone;
    s_.parse_batch(visitor_, begin, end);
    if (progress_)
      progress_(s_.input_.file_size() ? static_cast<double>(s_.input_.file_offset()) /
                                            static_cast<double>(s_.input_.file_size())
                                      : 0);
  }

  [[noreturn]] void truncated() {
    s_.fail(s_.offset_of(s_.filled_),
            fmt::format("the JSON breaks at byte offset {} (the file ends inside the trace); "
                        "expected a complete Chrome trace (a file cut short?)",
                        s_.offset_of(s_.filled_)));
  }
  [[noreturn]] void expected(int c, const std::string& what) {
    if (c < 0) truncated();
    fail_here(fmt::format("'{}'", static_cast<char>(c)), what);
  }
  [[noreturn]] void fail_here(const std::string& found, const std::string& what) {
    const uint64_t at = s_.offset_of(pos_);
    s_.fail(at,
            fmt::format("the JSON breaks at byte offset {} ({}); expected {}", at, found, what));
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);
  ChromeTraceStream& s_;
  ChromeTraceVisitor& visitor_;
  const std::function<void(double)>& progress_;
  size_t pos_ = 0;
  size_t value_begin_ = kNone;  // the start of the value being scanned, kept on a refill
  size_t batch_begin_ = kNone, batch_end_ = 0;
};

ChromeTraceStream::ChromeTraceStream(const std::string& path)
    : input_(path),
      buffer_(new char[kChunkBytes + 2 + simdjson::SIMDJSON_PADDING]),
      capacity_(kChunkBytes) {}

ChromeTraceStream::~ChromeTraceStream() = default;

void ChromeTraceStream::read(ChromeTraceVisitor& visitor,
                             const std::function<void(double)>& progress) {
  Scanner(*this, visitor, progress).run();
}

bool ChromeTraceStream::fill(size_t keep_from) {
  if (at_end_) return false;
  char* text = buffer_.get() + 1;
  // the lines of the text given up, for where()
  lines_before_ += count_newlines(text, keep_from);
  if (const auto* last = static_cast<const char*>(::memrchr(text, '\n', keep_from)))
    last_line_start_ = buffer_offset_ + static_cast<uint64_t>(last - text) + 1;
  std::memmove(text, text + keep_from, filled_ - keep_from);
  filled_ -= keep_from;
  buffer_offset_ += keep_from;
  if (filled_ == capacity_) {  // one event fills the buffer: make room for the rest of it
    if (capacity_ >= kChromeTraceValueByteLimit)
      fail(buffer_offset_,
           fmt::format("a value longer than {} starts at byte offset {}; expected the events of "
                       "a Chrome trace, each far shorter (docs/formats.md, \"Limits of trace and "
                       "measurement files\")",
                       byte_limit_text(kChromeTraceValueByteLimit), buffer_offset_));
    const size_t grown = capacity_ * 2;
    std::unique_ptr<char[]> larger(new char[grown + 2 + simdjson::SIMDJSON_PADDING]);
    std::memcpy(larger.get(), buffer_.get(), filled_ + 1);
    buffer_ = std::move(larger);
    capacity_ = grown;
    text = buffer_.get() + 1;
  }
  const size_t got = input_.read(text + filled_, capacity_ - filled_, where(offset_of(filled_)));
  if (got == 0) {
    at_end_ = true;
    return false;
  }
  filled_ += got;
  if (input_.text_read() > kChromeTraceTextByteLimit)
    fail(offset_of(filled_ - 1),
         fmt::format("the trace's text is longer than {}; expected a Chrome trace of at most that "
                     "(docs/formats.md, \"Limits of trace and measurement files\")",
                     byte_limit_text(kChromeTraceTextByteLimit)));
  return true;
}

void ChromeTraceStream::parse_batch(ChromeTraceVisitor& visitor, size_t begin, size_t end) {
  // The batch's text in brackets, in place: the byte before its first event (a separator, a
  // space, the array's '[' or the free byte) and the one after its last (a separator, a space,
  // the array's ']' or the padding), restored afterwards.
  char* text = buffer_.get() + 1;
  char* const first = text + begin - 1;
  const char saved_before = *first, saved_after = text[end];
  *first = '[';
  text[end] = ']';
  struct Restore {
    char* first;
    char* last;
    char before, after;
    Patch* patches;
    ~Restore() {
      *first = before;
      *last = after;
      patches[0] = patches[1] = Patch{};
    }
  } restore{first, text + end, saved_before, saved_after, patches_};
  // where() counts the newlines these two bytes were while they are brackets.
  patches_[0] = Patch{begin - 1, saved_before, begin > 0};
  patches_[1] = Patch{end, saved_after, true};
  const size_t length = end - begin + 2;
  const size_t room = capacity_ + 2 + simdjson::SIMDJSON_PADDING - static_cast<size_t>(begin);
  const char* where_at = first;
  try {
    simdjson::ondemand::document doc = parser_.iterate(first, length, room);
    for (auto element : doc.get_array()) {
      simdjson::ondemand::value event = element.value();
      if (const auto at = event.current_location(); !at.error()) where_at = at.value_unsafe();
      visitor.event(event, offset_of(static_cast<size_t>(where_at - text)));
    }
  } catch (const simdjson::simdjson_error& e) {
    const uint64_t at =
        offset_of(static_cast<size_t>(std::max<const char*>(where_at, first + 1) - text));
    fail(at, fmt::format("the JSON breaks in the event at byte offset {} ({}); expected a "
                         "complete Chrome trace event",
                         at, e.what()));
  }
}

SourceLocation ChromeTraceStream::where(uint64_t text_offset) const {
  uint64_t line = lines_before_ + 1;
  uint64_t line_start = last_line_start_;
  if (text_offset > buffer_offset_) {
    const char* text = buffer_.get() + 1;
    const auto upto = static_cast<size_t>(
        std::min<uint64_t>(text_offset - buffer_offset_, static_cast<uint64_t>(filled_)));
    // Counted on from the place asked last, when it is in the same buffer and not past this one
    // (a reader asks for the places of its events in file order): each byte is counted once.
    size_t from = 0;
    if (where_cache_.buffer_offset == buffer_offset_ &&
        where_cache_.lines_before == lines_before_ && where_cache_.scanned <= upto &&
        where_cache_.scanned > 0) {
      from = where_cache_.scanned;
      line = where_cache_.line;
      line_start = where_cache_.line_start;
    }
    for (const char* p = text + from;
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(text + upto - p))));
         ++p) {
      ++line;
      line_start = buffer_offset_ + static_cast<uint64_t>(p - text) + 1;
    }
    // The bytes parse_batch has made brackets for a moment were what they were.
    for (const Patch& patch : patches_)
      if (patch.active && patch.original == '\n' && patch.index >= from && patch.index < upto) {
        ++line;
        line_start = std::max(line_start, buffer_offset_ + patch.index + 1);
      }
    where_cache_ = WhereCache{buffer_offset_, lines_before_, upto, line, line_start};
  }
  const uint64_t column = text_offset >= line_start ? text_offset - line_start + 1 : 1;
  // A place past int's range (a file of billions of lines) is named by its byte offset alone.
  constexpr uint64_t kLargest = static_cast<uint64_t>(std::numeric_limits<int>::max());
  return SourceLocation{input_.path(), line <= kLargest ? static_cast<int>(line) : 0,
                        line <= kLargest && column <= kLargest ? static_cast<int>(column) : 0};
}

void ChromeTraceStream::fail(uint64_t text_offset, const std::string& message) const {
  throw InputError(where(text_offset), message);
}

}  // namespace ts
