#include "views/TimelineView.hpp"

#include <QLabel>
#include <QToolTip>
#include <QVBoxLayout>

#include "common/QuantityFormat.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TimelinePlot.hpp"

namespace ts::views {

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), summary_(new QLabel), plot_(new QCustomPlot) {
  auto* layout = new QVBoxLayout(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  layout->addWidget(plot_, 1);
  plot_->setMinimumSize(320, 200);
  plot_->setMouseTracking(true);
  connect(plot_, &QCustomPlot::mouseMove, this, &TimelineView::hover);
  setTimeline({});
}

QString TimelineView::summaryText() const { return summary_->text(); }

void TimelineView::setTimeline(SimulationTimeline timeline) {
  timeline_ = std::move(timeline);
  if (timeline_.tracks.empty()) {
    summary_->setText(tr(
        "No simulation open and no trace imported. Run `tilescope simulate ... --out sim.json` and "
        "open sim.json (File > Open, or drop it here), or import a profiler's trace "
        "(File > Import trace, or drop it here) to see its kernels."));
  } else {
    QStringList lines;
    lines << QString::fromStdString(timeline_.title);
    QStringList summary;
    for (const auto& s : timeline_.summary) summary << QString::fromStdString(s);
    lines << summary.join(", ");
    QStringList parts;
    for (const auto& [what, seconds] : timeline_.breakdown)
      parts << QString("%1 %2").arg(QString::fromStdString(what),
                                    QString::fromStdString(format_quantity(seconds, "s")));
    if (!parts.isEmpty())
      lines << tr("where the time goes (one pipeline device): ") + parts.join(", ");
    summary_->setText(lines.join('\n'));
  }
  // An empty chart would only draw an axis from 0 to 1 ns: the message above says what to open.
  plot_->setVisible(!timeline_.tracks.empty());
  fill_timeline_plot(*plot_, timeline_, palette());
}

void TimelineView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) fill_timeline_plot(*plot_, timeline_, palette());
  QWidget::changeEvent(event);
}

void TimelineView::hover(QMouseEvent* event) {
  const double t = plot_->xAxis->pixelToCoord(event->position().x());
  const int rows = static_cast<int>(timeline_.tracks.size());
  const int row =
      rows - 1 - static_cast<int>(std::lround(plot_->yAxis->pixelToCoord(event->position().y())));
  if (row < 0 || row >= rows) {
    QToolTip::hideText();
    return;
  }
  const TimelineTrack& track = timeline_.tracks[static_cast<size_t>(row)];
  for (const TimelineSpan& s : track.spans)
    if (t >= s.start_s && t <= s.start_s + s.duration_s) {
      QToolTip::showText(
          event->globalPosition().toPoint(),
          tr("%1 on %2\nstart %3, duration %4")
              .arg(QString::fromStdString(s.label), QString::fromStdString(track.name),
                   QString::fromStdString(format_quantity(s.start_s, "s")),
                   QString::fromStdString(format_quantity(s.duration_s, "s"))),
          plot_);
      return;
    }
  QToolTip::hideText();
}

}  // namespace ts::views
