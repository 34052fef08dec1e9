#pragma once
// Quantities written in input files: `64KiB`, `192MiB`, `1.6TB/s`, `32B/cycle`, `1.8GHz`, `12us`.
// SI prefixes are decimal (1 GB/s = 1e9 B/s), IEC prefixes binary (1 KiB = 1024 B), everywhere.
#include <optional>
#include <string_view>

namespace ts {

std::optional<double> parse_bytes(std::string_view text);

// Bytes per second or per cycle of a clock: a figure per cycle is resolved once the clock of
// the node it is measured in is known.
struct Bandwidth {
  enum class Per { second, cycle };
  double value = 0;  // bytes
  Per per = Per::second;
  double bytes_per_second(double clock_hz) const {
    return per == Per::cycle ? value * clock_hz : value;
  }
};
std::optional<Bandwidth> parse_bandwidth(std::string_view text);

std::optional<double> parse_frequency_hz(std::string_view text);
std::optional<double> parse_duration_seconds(std::string_view text);

// A datasheet's compute rate, in operations per second: `30.3TFLOP/s`, `242.5TOP/s` (an integer
// rate), `989.5TFLOP/s`. A multiply-accumulate counts as two operations, as datasheets count.
std::optional<double> parse_operations_per_second(std::string_view text);
// Board power: `72W`, `0.7kW`.
std::optional<double> parse_power_watts(std::string_view text);
// Energy: `8pJ`, `1.2nJ`, `0.5uJ`, `3mJ`, `2J`.
std::optional<double> parse_energy_joules(std::string_view text);
// Area, in square metres: `417um^2`, `0.97mm^2`, `1.2cm^2`, `3m^2`.
std::optional<double> parse_area_m2(std::string_view text);

}  // namespace ts
