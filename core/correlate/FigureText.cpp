#include "correlate/FigureText.hpp"

#include <fmt/format.h>

namespace ts {

std::string figure_text(const std::optional<double>& value, int decimals) {
  if (!value) return kNoFigure;
  return fmt::format("{:.{}f}", *value, decimals);
}

std::string signed_figure_text(const std::optional<double>& value, int decimals) {
  if (!value) return kNoFigure;
  return fmt::format("{:+.{}f}", *value, decimals);
}

std::string percent_text(const std::optional<double>& fraction, int decimals, bool with_sign) {
  if (!fraction) return kNoFigure;
  return with_sign ? fmt::format("{:+.{}f}%", *fraction * 100, decimals)
                   : fmt::format("{:.{}f}%", *fraction * 100, decimals);
}

}  // namespace ts
