#include "common/QuantityFormat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace ts {
namespace {

constexpr int kSignificantFigures = 3;
// Decimal SI prefixes from 1e-15 to 1e18, one per power of 1000.
constexpr std::array<std::string_view, 12> kPrefixes = {"f", "p", "n", "u", "m", "",
                                                        "k", "M", "G", "T", "P", "E"};
constexpr int kUnprefixed = 5;  // index of "" in kPrefixes

std::string joined(std::string_view number, std::string_view prefix, std::string_view unit) {
  // A bare count with no prefix ("123") has nothing to put after the number.
  if (prefix.empty() && unit.empty()) return std::string(number);
  return fmt::format("{} {}{}", number, prefix, unit);
}

}  // namespace

std::string format_quantity(double value, std::string_view unit) {
  if (std::isnan(value)) return "n/a";
  if (std::isinf(value)) return joined(value > 0 ? "inf" : "-inf", "", unit);
  if (value == 0) return joined("0", "", unit);
  // The three significant digits as an integer in [100, 999] and the power of ten of the
  // first: exact text, with no mantissa such as 99.99999 printed as "100.0". Rounding comes
  // before the prefix is chosen: 999.5 rounds to 1000 and is written "1.00 k", not "1000".
  const double magnitude = std::abs(value);
  int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  auto digits_at = [&](int e) {
    return std::llround(magnitude / std::pow(10.0, e - (kSignificantFigures - 1)));
  };
  long long digits = digits_at(exponent);
  if (digits < 100) digits = digits_at(--exponent);  // log10 fell just short of a power of ten
  if (digits >= 1000) {
    digits = (digits + 5) / 10;
    ++exponent;
  }
  const std::string sign = value < 0 ? "-" : "";
  const std::string text = std::to_string(digits);
  const int group = static_cast<int>(std::floor(exponent / 3.0));
  const int prefix = group + kUnprefixed;
  if (prefix < 0 || prefix >= static_cast<int>(kPrefixes.size()))
    return joined(fmt::format("{}{}.{}e{}", sign, text[0], text.substr(1), exponent), "", unit);
  const size_t integer_digits = static_cast<size_t>(exponent - 3 * group + 1);  // 1, 2 or 3
  std::string number = sign + text.substr(0, integer_digits);
  if (integer_digits < text.size()) number += "." + text.substr(integer_digits);
  return joined(number, kPrefixes[static_cast<size_t>(prefix)], unit);
}

std::string format_ratio(double ratio) {
  if (std::isnan(ratio)) return "n/a";
  if (std::isinf(ratio)) return ratio > 0 ? "inf x" : "-inf x";
  if (ratio == 0) return "0x";
  const double magnitude = std::abs(ratio);
  if (magnitude < 1e-3) return fmt::format("{:.2e}x", ratio);
  // Decimals that leave three significant figures, none at and above 100; rounding can carry
  // into the next power of ten (9.996 -> "10.0"), which then takes one decimal fewer.
  int exponent = static_cast<int>(std::floor(std::log10(magnitude)));
  int decimals = std::max(0, kSignificantFigures - 1 - exponent);
  const double scale = std::pow(10.0, decimals);
  if (decimals > 0 && std::round(magnitude * scale) >= std::pow(10.0, kSignificantFigures))
    --decimals;
  return fmt::format("{:.{}f}x", ratio, decimals);
}

std::string format_signed_percent(double fraction, int decimals) {
  if (std::isnan(fraction)) return "n/a";
  const double percent = fraction * 100;
  const double scale = std::pow(10.0, decimals);
  // Rounded first, so that -0.04 % and -0.0 are both +0.0 %.
  const double rounded = std::round(percent * scale) / scale;
  return fmt::format("{:+.{}f}%", rounded == 0 ? 0.0 : rounded, decimals);
}

}  // namespace ts
