#pragma once
// Reading a whole file that a person names, bounded: a pipe or a device (/dev/zero) has no size
// to check first, and a file of gigabytes given by mistake must be refused before it is held.
// The YAML and JSON inputs (common/YamlSource, limit in common/WorkLimits) and the trace and
// measurement tables (trace/TraceInputLimits) read through here, each with its own limit.
#include <cstdint>
#include <string>
#include <string_view>

namespace ts {

// A limit as messages write it: "1 GiB", "64 MiB", "1000 bytes".
std::string byte_limit_text(uint64_t bytes);

// The file's whole text, read in pieces up to `limit` bytes and one past it. Throws InputError
// at the file (line 0) when it cannot be opened, is a folder, or is longer than `limit`;
// `expected` says what the file should be ("a CSV table"), `documented_in` the section of
// docs/formats.md that lists the limit ("Sizes").
std::string read_bounded_text(const std::string& path, uint64_t limit, std::string_view expected,
                              std::string_view documented_in);

}  // namespace ts
