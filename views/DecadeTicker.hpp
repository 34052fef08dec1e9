#pragma once
// A log axis ticker that labels every decade (1, 10, 100, ...) in one notation: plain numbers
// with an SI-prefixed unit through format_quantity ("1 us", "10 us", "100 us", "1 ms"), never a
// mix of "100" and "10^3"; the eight values between two decades are minor ticks. The axis holds
// its values in `scale` units of `unit` (the correlation plot keeps microseconds: 1e-6 s).
#include <QString>

#include "views/QCustomPlotInclude.hpp"

namespace ts::views {

class DecadeTicker : public QCPAxisTickerLog {
 public:
  DecadeTicker(double scale, QString unit);

  // The label of an axis value: the quantity in three significant figures with trailing zeros
  // dropped ("1 us", "2.5 ms").
  QString labelOf(double axis_value) const;

 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar format_char,
                       int precision) override;

 private:
  double scale_;
  QString unit_;
};

// [lo, hi] widened to whole decades, so that both ends of a log axis carry a label and a range
// within one decade still shows two.
QCPRange decade_range(double lo, double hi);

}  // namespace ts::views
