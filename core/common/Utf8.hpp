#pragma once
// UTF-8 as RFC 3629 defines it: what names must be, since they end up in JSON and SQLite. One
// check for every reader (YAML scalars, CSV fields).
#include <cstddef>
#include <string>

namespace ts {

// Offset of the first byte that does not start a valid UTF-8 sequence (a stray continuation
// byte, a truncated, overlong or surrogate form, a code point above U+10FFFF), or npos.
size_t first_invalid_utf8(const std::string& text);

// "not valid UTF-8 (byte 0xFF at byte 6)", for messages about `text` at `offset`.
std::string utf8_fault(const std::string& text, size_t offset);

}  // namespace ts
