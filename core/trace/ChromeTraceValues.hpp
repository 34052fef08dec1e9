#pragma once
// Reading the values of a Chrome trace event (simdjson On-Demand) the way every reader of one
// needs: numbers from their raw text (from_chars, no double round trip for integers), strings
// without a copy where they hold no escape, and Chrome's microsecond timestamps as exact integer
// nanoseconds. Shared by the Kineto import (KinetoTrace) and the trace model (KinetoRankTrace).
#include <simdjson.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

namespace ts::chrome_trace {

namespace od = simdjson::ondemand;

// splitmix64's finaliser over a combination: thread and flow keys from (pid, tid, ts).
inline uint64_t mix(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9e3779b97f4a7c15ULL + b;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A number's text, as simdjson leaves it (up to the next structural character).
inline std::string_view number_text(od::value& v) {
  std::string_view t = v.raw_json_token();
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
    t.remove_suffix(1);
  return t;
}

// A string's text without copying it where it has no escapes (names, categories and shapes in
// Kineto never do), else unescaped by simdjson (valid until the next string is unescaped).
inline std::string_view string_of(od::value& v) {
  std::string_view raw = v.raw_json_token();
  while (!raw.empty() && raw.back() != '"') raw.remove_suffix(1);
  if (raw.size() >= 2 && raw.find('\\') == std::string_view::npos)
    return raw.substr(1, raw.size() - 2);
  return v.get_string();
}

inline double number_of(std::string_view t) {
  double value = 0;
  const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (error != std::errc() || end != t.data() + t.size())
    throw simdjson::simdjson_error(simdjson::NUMBER_ERROR);
  return value;
}

inline int64_t integer_of(std::string_view t) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (error == std::errc() && end == t.data() + t.size()) return value;
  const double as_double = number_of(t);  // 7.0, 1e3, or out of int64's range
  if (!(std::fabs(as_double) < 9.2e18))
    throw simdjson::simdjson_error(simdjson::NUMBER_OUT_OF_RANGE);
  return std::llround(as_double);
}

inline int32_t int32_of(int64_t v) {
  if (v < std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max())
    throw simdjson::simdjson_error(simdjson::NUMBER_OUT_OF_RANGE);
  return static_cast<int32_t>(v);
}

// A microsecond figure as integer nanoseconds. Absolute timestamps (microseconds since the
// epoch, ~1.7e15) with three decimals have more digits than a double keeps, so a fractional one
// is read from its text.
inline int64_t microseconds_text_to_ns(std::string_view raw) {
  if (raw.empty() || raw.find_first_of("eE") != std::string_view::npos) {
    const double ns = number_of(raw) * 1000.0;
    if (!(std::fabs(ns) < 9.2e18)) throw simdjson::simdjson_error(simdjson::NUMBER_OUT_OF_RANGE);
    return std::llround(ns);
  }
  const bool negative = raw.front() == '-';
  const size_t dot = raw.find('.');
  int64_t whole = 0;
  const size_t whole_end = dot < raw.size() ? dot : raw.size();
  for (size_t i = negative ? 1 : 0; i < whole_end; ++i) {
    if (raw[i] < '0' || raw[i] > '9') throw simdjson::simdjson_error(simdjson::NUMBER_ERROR);
    if (__builtin_mul_overflow(whole, int64_t{10}, &whole) ||
        __builtin_add_overflow(whole, int64_t{raw[i] - '0'}, &whole))
      throw simdjson::simdjson_error(simdjson::NUMBER_OUT_OF_RANGE);
  }
  int64_t fraction_ns = 0;
  int digits = 0;
  if (dot != std::string_view::npos)
    for (size_t i = dot + 1; i < raw.size() && digits < 3; ++i, ++digits) {
      if (raw[i] < '0' || raw[i] > '9') throw simdjson::simdjson_error(simdjson::NUMBER_ERROR);
      fraction_ns = fraction_ns * 10 + (raw[i] - '0');
    }
  for (; digits < 3; ++digits) fraction_ns *= 10;
  int64_t ns = 0;
  if (__builtin_mul_overflow(whole, int64_t{1000}, &ns) ||
      __builtin_add_overflow(ns, fraction_ns, &ns))
    throw simdjson::simdjson_error(simdjson::NUMBER_OUT_OF_RANGE);
  return negative ? -ns : ns;
}

}  // namespace ts::chrome_trace
