#include "views/DecadeTicker.hpp"

#include <QRegularExpression>
#include <cmath>
#include <utility>

#include "common/QuantityFormat.hpp"

namespace ts::views {

DecadeTicker::DecadeTicker(double scale, QString unit) : scale_(scale), unit_(std::move(unit)) {
  setLogBase(10);
  setSubTickCount(8);  // 2, 3, ..., 9 between two decades
  // QCPAxisTickerLog skips decades once the range spans more than the tick count: 30 decades
  // (1e-15 to 1e15) is more than any latency axis spans.
  setTickCount(30);
}

QString DecadeTicker::labelOf(double axis_value) const {
  // "1.00 us" -> "1 us", "10.0 us" -> "10 us", "2.50 ms" -> "2.5 ms": a decade reads as a
  // round number, and every label in the same spelling.
  QString text = QString::fromStdString(format_quantity(axis_value * scale_, unit_.toStdString()));
  static const QRegularExpression trailing_zeros(R"((\.\d*?)0+(?=\D|$))");
  text.replace(trailing_zeros, "\\1");
  static const QRegularExpression bare_point(R"(\.(?=\D|$))");
  text.replace(bare_point, "");
  return text;
}

QString DecadeTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  return labelOf(tick);
}

QCPRange decade_range(double lo, double hi) {
  const double low = std::pow(10.0, std::floor(std::log10(lo) + 1e-9));
  double high = std::pow(10.0, std::ceil(std::log10(hi) - 1e-9));
  if (high <= low) high = low * 10;
  return {low, high};
}

}  // namespace ts::views
