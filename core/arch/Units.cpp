#include "arch/Units.hpp"

#include <cctype>
#include <charconv>
#include <string>

namespace ts {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits "1.6TB/s" into 1.6 and "TB/s"; the number must be finite and non-negative.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  text = trim(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  if (!(value >= 0) || value > 1e300) return std::nullopt;
  return std::pair{value, trim(std::string_view(end, text.data() + text.size() - end))};
}

// Multiplier of a prefix: "" 1, "K" 1e3, "Ki" 1024, ...
std::optional<double> prefix_multiplier(std::string_view prefix) {
  struct Entry {
    std::string_view name;
    double factor;
  };
  static constexpr Entry table[] = {
      {"", 1.0},
      {"k", 1e3},
      {"K", 1e3},
      {"M", 1e6},
      {"G", 1e9},
      {"T", 1e12},
      {"P", 1e15},
      {"Ki", 1024.0},
      {"Mi", 1048576.0},
      {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0},
      {"Pi", 1125899906842624.0},
  };
  for (const auto& e : table)
    if (e.name == prefix) return e.factor;
  return std::nullopt;
}

std::optional<double> with_unit(std::string_view text, std::string_view unit) {
  auto parts = split_number(text);
  if (!parts) return std::nullopt;
  auto [value, rest] = *parts;
  if (rest.size() < unit.size() || rest.substr(rest.size() - unit.size()) != unit)
    return std::nullopt;
  auto factor = prefix_multiplier(trim(rest.substr(0, rest.size() - unit.size())));
  if (!factor) return std::nullopt;
  return value * *factor;
}

// "2.5ms" with unit "s": the unit alone, or after one of the `allowed` prefixes of m, u, n, p.
std::optional<double> with_submultiple(std::string_view text, std::string_view unit,
                                       std::string_view allowed) {
  auto parts = split_number(text);
  if (!parts) return std::nullopt;
  auto [value, rest] = *parts;
  if (rest == unit) return value;
  if (rest.size() != unit.size() + 1 || rest.substr(1) != unit ||
      allowed.find(rest.front()) == std::string_view::npos)
    return std::nullopt;
  switch (rest.front()) {
    case 'm':
      return value * 1e-3;
    case 'u':
      return value * 1e-6;
    case 'n':
      return value * 1e-9;
    case 'p':
      return value * 1e-12;
  }
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_bytes(std::string_view text) {
  auto parts = split_number(text);
  if (parts && parts->second.empty()) return parts->first;  // a bare number is bytes
  return with_unit(text, "B");
}

std::optional<Bandwidth> parse_bandwidth(std::string_view text) {
  if (auto v = with_unit(text, "B/cycle")) return Bandwidth{*v, Bandwidth::Per::cycle};
  if (auto v = with_unit(text, "B/s")) return Bandwidth{*v, Bandwidth::Per::second};
  return std::nullopt;
}

std::optional<double> parse_frequency_hz(std::string_view text) { return with_unit(text, "Hz"); }

std::optional<double> parse_duration_seconds(std::string_view text) {
  return with_submultiple(text, "s", "mun");
}

std::optional<double> parse_operations_per_second(std::string_view text) {
  if (auto v = with_unit(text, "FLOP/s")) return v;
  return with_unit(text, "OP/s");
}

std::optional<double> parse_power_watts(std::string_view text) { return with_unit(text, "W"); }

std::optional<double> parse_energy_joules(std::string_view text) {
  return with_submultiple(text, "J", "munp");
}

std::optional<double> parse_area_m2(std::string_view text) {
  auto parts = split_number(text);
  if (!parts) return std::nullopt;
  auto [value, rest] = *parts;
  // A length unit squared: the prefix applies to the length, so 1 um^2 = 1e-12 m^2.
  static constexpr std::pair<std::string_view, double> kUnits[] = {
      {"m^2", 1.0}, {"cm^2", 1e-4}, {"mm^2", 1e-6}, {"um^2", 1e-12}, {"nm^2", 1e-18}};
  for (const auto& [unit, scale] : kUnits)
    if (rest == unit) return value * scale;
  return std::nullopt;
}

}  // namespace ts
