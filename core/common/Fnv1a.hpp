#pragma once
// FNV-1a, 64 bit: a small hash that is the same on every platform and every run, so hashes of
// graphs and mappings can key caches and appear in reports.
#include <bit>
#include <cstdint>
#include <string_view>

namespace ts {

class Fnv1a {
 public:
  void add_byte(uint8_t b) {
    state_ ^= b;
    state_ *= 1099511628211ull;
  }
  // Little-endian byte order whatever the host, so the value does not depend on the machine.
  void add_u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) add_byte(static_cast<uint8_t>(v >> (8 * i)));
  }
  void add_i64(int64_t v) { add_u64(static_cast<uint64_t>(v)); }
  // -0.0 and 0.0 hash alike: they mean the same quantity.
  void add_double(double v) { add_u64(std::bit_cast<uint64_t>(v == 0 ? 0.0 : v)); }
  // Length first, so that ("ab", "c") and ("a", "bc") differ.
  void add_string(std::string_view s) {
    add_u64(s.size());
    for (char c : s) add_byte(static_cast<uint8_t>(c));
  }
  uint64_t value() const { return state_; }

 private:
  uint64_t state_ = 14695981039346656037ull;
};

inline uint64_t fnv1a(std::string_view text) {
  Fnv1a h;
  for (char c : text) h.add_byte(static_cast<uint8_t>(c));
  return h.value();
}

}  // namespace ts
