// format_quantity: three significant figures and a decimal SI prefix, the one spelling of a
// quantity in the CLI's tables, the GUI and the reports. Every expected text below is worked out
// by hand from the rule: round to three significant figures, then take the prefix that puts the
// mantissa in [1, 1000).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "common/QuantityFormat.hpp"

using namespace ts;

TEST_CASE("quantities: three significant figures with the prefix that fits", "[format]") {
  // 3.96553e12 B/s = 3.96553 TB/s, rounded to 3.97 (the "3.96553 TB/s").
  CHECK(format_quantity(3.96553e12, "B/s") == "3.97 TB/s");
  // 1455.74 per cycle = 1.45574 k, rounded to 1.46 (the "1455.74/cycle").
  CHECK(format_quantity(1455.74, "/cycle") == "1.46 k/cycle");
  // 12.3e-6 s = 12.3 us: two integer digits leave one decimal.
  CHECK(format_quantity(12.3e-6, "s") == "12.3 us");
  // Trailing zeros are significant: 1 s is "1.00 s", 100 s "100 s", 0.25 ms "250 us".
  CHECK(format_quantity(1, "s") == "1.00 s");
  CHECK(format_quantity(100, "s") == "100 s");
  CHECK(format_quantity(0.25e-3, "s") == "250 us");
  // 123456 rounds to 123000 = 123 k; 1234567 to 1230000 = 1.23 M.
  CHECK(format_quantity(123456, "FLOP") == "123 kFLOP");
  CHECK(format_quantity(1234567, "B") == "1.23 MB");
  // A plain count: the number and its prefix alone.
  CHECK(format_quantity(42, "") == "42.0");
  CHECK(format_quantity(4.2e9, "") == "4.20 G");
}

TEST_CASE("quantities: rounding that reaches the next prefix takes it", "[format]") {
  // 999.5 has four significant figures; three of them round up to 1000 = 1.00 k.
  CHECK(format_quantity(999.5, "") == "1.00 k");
  // 999.4 rounds down to 999 and keeps no prefix.
  CHECK(format_quantity(999.4, "") == "999");
  // 999.6e-6 s rounds to 1000e-6 s = 1.00 ms, not "1000 us".
  CHECK(format_quantity(999.6e-6, "s") == "1.00 ms");
  // 9.996 rounds to 10.0 (two integer digits, one decimal), not "10.00".
  CHECK(format_quantity(9.996, "s") == "10.0 s");
}

TEST_CASE("quantities: negatives, zero, tiny and huge values, NaN and infinities", "[format]") {
  CHECK(format_quantity(-12.3e-6, "s") == "-12.3 us");
  CHECK(format_quantity(-999.5, "") == "-1.00 k");
  // Zero has no significant figures to show, and no prefix; -0 is zero.
  CHECK(format_quantity(0.0, "s") == "0 s");
  CHECK(format_quantity(-0.0, "s") == "0 s");
  CHECK(format_quantity(0.0, "") == "0");
  // The smallest prefix, f = 1e-15: 1.5e-15 s is 1.50 fs.
  CHECK(format_quantity(1.5e-15, "s") == "1.50 fs");
  // Below it, the mantissa takes an exponent: 1e-20 s has no prefix.
  CHECK(format_quantity(1e-20, "s") == "1.00e-20 s");
  CHECK(format_quantity(-2.346e-19, "s") == "-2.35e-19 s");
  // The largest, E = 1e18; 1.5e21 B is beyond it.
  CHECK(format_quantity(2e18, "B") == "2.00 EB");
  CHECK(format_quantity(1.5e21, "B") == "1.50e21 B");
  CHECK(format_quantity(std::numeric_limits<double>::quiet_NaN(), "s") == "n/a");
  CHECK(format_quantity(std::numeric_limits<double>::infinity(), "B/s") == "inf B/s");
  CHECK(format_quantity(-std::numeric_limits<double>::infinity(), "s") == "-inf s");
}

TEST_CASE("ratios: three significant figures and an x, never an SI prefix", "[format]") {
  CHECK(format_ratio(0.27341) == "0.273x");
  CHECK(format_ratio(0.994) == "0.994x");
  CHECK(format_ratio(1.0) == "1.00x");
  CHECK(format_ratio(3.6589) == "3.66x");
  CHECK(format_ratio(12.34) == "12.3x");
  CHECK(format_ratio(1234.4) == "1234x");
  CHECK(format_ratio(0.0123) == "0.0123x");
  // Rounding that reaches the next power of ten keeps three figures.
  CHECK(format_ratio(0.99996) == "1.00x");
  CHECK(format_ratio(9.9996) == "10.0x");
  CHECK(format_ratio(0.000123) == "1.23e-04x");
  CHECK(format_ratio(-0.0) == "0x");
  CHECK(format_ratio(std::nan("")) == "n/a");
  CHECK(format_ratio(INFINITY) == "inf x");
  // No prefix letter ever follows the number.
  for (double r = 1e-3; r < 1e5; r *= 1.37) {
    const std::string t = format_ratio(r);
    INFO(t);
    CHECK(t.find_first_of("munkMGT ") == std::string::npos);
  }
}

TEST_CASE("signed percentages: the sign always, and no negative zero", "[format]") {
  CHECK(format_signed_percent(0.0978) == "+9.8%");
  CHECK(format_signed_percent(-0.0249) == "-2.5%");
  CHECK(format_signed_percent(-0.0004) == "+0.0%");
  CHECK(format_signed_percent(-0.0) == "+0.0%");
  CHECK(format_signed_percent(0.0) == "+0.0%");
  CHECK(format_signed_percent(-0.00004, 2) == "+0.00%");
  CHECK(format_signed_percent(-0.12345, 2) == "-12.35%");
  CHECK(format_signed_percent(std::nan("")) == "n/a");
}
