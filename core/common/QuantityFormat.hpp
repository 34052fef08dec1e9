#pragma once
// How every face writes a physical quantity for people to read: three significant figures and
// a decimal SI prefix ("3.97 TB/s", "1.46 k/cycle", "12.3 us"). One spelling shared by the CLI's
// tables, the GUI's labels and the reports, so that a figure reads the same everywhere. Files
// for programs (CSV, JSON) keep full precision and never go through this.
#include <string>
#include <string_view>

namespace ts {

// `value` in `unit` (an SI unit without prefix: "s", "B/s", "/cycle", "FLOP/s", or "" for a
// plain count), rounded to three significant figures, with the prefix from f (1e-15) to E
// (1e18) that puts the mantissa in [1, 1000): "3.97 TB/s", "1.00 k" (999.5), "-12.3 us",
// "0 s". Outside the prefixes' range the mantissa takes an exponent ("1.00e-20 s"); NaN is
// "n/a" and infinities "inf s", "-inf s". Microseconds are written "us", ASCII, as everywhere
// in tilescope's files and columns.
std::string format_quantity(double value, std::string_view unit);

// A ratio of two like quantities (a speed-up, a slowdown), which has no unit and so no prefix:
// three significant figures and an "x", "0.273x", "1.00x", "12.3x", "1234x" ("273 mx" reads as
// milli-something to anyone who meets it on sight). Below 0.001 the mantissa takes an exponent
// ("1.20e-4x"); NaN is "n/a", infinities "inf x"; a negative zero is written "0x".
std::string format_ratio(double ratio);

// A signed error or change as a percentage, `fraction` x 100 with `decimals` decimals and its
// sign always written ("+9.8%", "-2.5%"); one that rounds to zero is "+0.0%", never "-0.0%"
// (a negative zero reads as a bias that is not there). NaN is "n/a".
std::string format_signed_percent(double fraction, int decimals = 1);

}  // namespace ts
