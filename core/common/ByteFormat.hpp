#pragma once
#include <string>

namespace ts {
// "64 KiB", "1.5 MiB", "512 B": binary prefixes, as capacities are written.
std::string format_bytes(double bytes);
}  // namespace ts
