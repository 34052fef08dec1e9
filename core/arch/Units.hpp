#pragma once
// Quantities written in input files: `64KiB`, `192MiB`, `1.6TB/s`, `32B/cycle`, `1.8GHz`, `12us`.
// SI prefixes are decimal (1 GB/s = 1e9 B/s), IEC prefixes binary (1 KiB = 1024 B), everywhere.
#include <optional>
#include <string_view>

namespace ts {

std::optional<double> parse_bytes(std::string_view text);

struct Bandwidth {
  enum class Unit { bytes_per_second, bytes_per_cycle };
  double value = 0;
  Unit unit = Unit::bytes_per_second;
  double bytes_per_second(double clock_hz) const {
    return unit == Unit::bytes_per_cycle ? value * clock_hz : value;
  }
};
std::optional<Bandwidth> parse_bandwidth(std::string_view text);

std::optional<double> parse_frequency_hz(std::string_view text);
std::optional<double> parse_duration_seconds(std::string_view text);

}  // namespace ts
