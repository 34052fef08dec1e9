#include "common/ByteFormat.hpp"

#include <fmt/format.h>

namespace ts {

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  if (u == 0 || bytes == static_cast<double>(static_cast<long long>(bytes)))
    return fmt::format("{:.0f} {}", bytes, units[u]);
  return fmt::format("{:.3g} {}", bytes, units[u]);
}

}  // namespace ts
