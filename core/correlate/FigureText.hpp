#pragma once
// How every face writes an agreement figure that may have no value (Statistics.hpp): the number
// with a fixed count of decimals, or "n/a". One spelling, so that the CLI's tables, the report's
// tables and its plot captions agree cell for cell.
#include <optional>
#include <string>

namespace ts {

inline constexpr const char* kNoFigure = "n/a";

// "0.1234" (decimals 4), "n/a" when there is no value.
std::string figure_text(const std::optional<double>& value, int decimals);
// "+0.1234" / "-0.1234", for a change; "n/a" when there is no value.
std::string signed_figure_text(const std::optional<double>& value, int decimals);
// A fraction as a percentage: "12.34%" (decimals 2), "+1.50%" when signed; "n/a".
std::string percent_text(const std::optional<double>& fraction, int decimals,
                         bool with_sign = false);

}  // namespace ts
