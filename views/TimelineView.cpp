#include "views/TimelineView.hpp"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "common/QuantityFormat.hpp"
#include "views/MicroBatchRange.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TimelinePlot.hpp"

namespace ts::views {

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent),
      summary_(new QLabel),
      controls_(new QWidget),
      stage_(new QSpinBox),
      micro_batch_(new QSpinBox),
      zoom_micro_batch_(new QPushButton(tr("Zoom to micro-batch"))),
      whole_(new QPushButton(tr("Whole iteration"))),
      unfold_links_(new QCheckBox(tr("Show every link track"))),
      plot_(new QCustomPlot),
      relayout_timer_(new QTimer(this)) {
  auto* layout = new QVBoxLayout(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  auto* controls = new QHBoxLayout(controls_);
  controls->setContentsMargins(0, 0, 0, 0);
  controls->addWidget(new QLabel(tr("Stage")));
  controls->addWidget(stage_);
  controls->addWidget(new QLabel(tr("micro-batch")));
  controls->addWidget(micro_batch_);
  controls->addWidget(zoom_micro_batch_);
  controls->addWidget(whole_);
  controls->addWidget(unfold_links_);
  controls->addStretch(1);
  zoom_micro_batch_->setToolTip(
      tr("Show the micro-batch's forward and backward on the stage (every chunk when the "
         "schedule is interleaved). Double-clicking a bar does it for that bar's."));
  unfold_links_->setToolTip(
      tr("Link tracks with no transfer a pixel wide at this zoom fold into one row; this keeps "
         "a row for each."));
  layout->addWidget(controls_);
  layout->addWidget(plot_, 1);
  plot_->setMinimumSize(320, 200);
  plot_->setMouseTracking(true);
  relayout_timer_->setSingleShot(true);
  relayout_timer_->setInterval(0);
  connect(relayout_timer_, &QTimer::timeout, this, &TimelineView::relayout);
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, [this] {
    if (!filling_) relayout_timer_->start();
  });
  connect(plot_, &QCustomPlot::mouseMove, this, &TimelineView::hover);
  connect(plot_, &QCustomPlot::mousePress, this, &TimelineView::press);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, &TimelineView::doubleClick);
  connect(zoom_micro_batch_, &QPushButton::clicked, this,
          [this] { zoomToMicroBatch(stage_->value(), micro_batch_->value()); });
  connect(whole_, &QPushButton::clicked, this, &TimelineView::showWholeIteration);
  connect(unfold_links_, &QCheckBox::toggled, this, &TimelineView::relayout);
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
  // Micro-batches are named by a simulation's stages; an imported trace has none.
  const int stages = stage_count(timeline_), micro_batches = micro_batch_count(timeline_);
  const bool pipeline = stages > 0 && micro_batches > 0;
  for (QWidget* w : std::initializer_list<QWidget*>{stage_, micro_batch_, zoom_micro_batch_})
    w->setEnabled(pipeline);
  stage_->setRange(0, std::max(stages - 1, 0));
  micro_batch_->setRange(0, std::max(micro_batches - 1, 0));
  controls_->setVisible(!timeline_.tracks.empty());
  showWholeIteration();
}

double TimelineView::pixelsPerSecond() const {
  const int width = plot_->axisRect()->width() > 100 ? plot_->axisRect()->width()
                                                     : std::max(plot_->width(), 800) * 4 / 5;
  return width / std::max(plot_->xAxis->range().size(), 1e-12);
}

void TimelineView::showWholeIteration() {
  // As fill_timeline_plot frames the iteration; the rows for that range, then one fill.
  filling_ = true;
  plot_->xAxis->setRange(0, timeline_whole_range_s(timeline_));
  filling_ = false;
  const QCPRange range = plot_->xAxis->range();
  rows_ = timeline_rows(timeline_, range.lower, range.upper, pixelsPerSecond(),
                        unfold_links_->isChecked());
  refill();
  label_timeline_spans(*plot_, timeline_, rows_);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void TimelineView::refill() {
  const QCPRange range = plot_->xAxis->range();
  filling_ = true;
  fill_timeline_plot(*plot_, timeline_, rows_, palette());
  plot_->xAxis->setRange(range);
  filling_ = false;
}

void TimelineView::relayout() {
  relayout_timer_->stop();
  const QCPRange range = plot_->xAxis->range();
  std::vector<TimelineRow> rows = timeline_rows(timeline_, range.lower, range.upper,
                                                pixelsPerSecond(), unfold_links_->isChecked());
  const auto same = [](const TimelineRow& a, const TimelineRow& b) {
    return a.track == b.track && a.folded == b.folded;
  };
  const bool changed = !std::equal(rows.begin(), rows.end(), rows_.begin(), rows_.end(), same);
  rows_ = std::move(rows);
  if (changed) refill();
  label_timeline_spans(*plot_, timeline_, rows_);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool TimelineView::zoomToMicroBatch(int stage, int micro_batch) {
  const std::optional<TimeRange> range = micro_batch_range(timeline_, stage, micro_batch);
  if (!range) return false;
  stage_->setValue(stage);
  micro_batch_->setValue(micro_batch);
  plot_->xAxis->setRange(range->from_s, range->to_s);
  relayout();
  return true;
}

void TimelineView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) {
    refill();
    relayout();
  }
  QWidget::changeEvent(event);
}

void TimelineView::hover(QMouseEvent* event) {
  const double t = plot_->xAxis->pixelToCoord(event->position().x());
  const int row = row_at(rows_, plot_->yAxis->pixelToCoord(event->position().y()));
  if (row < 0) {
    QToolTip::hideText();
    return;
  }
  const TimelineRow& r = rows_[static_cast<size_t>(row)];
  if (r.track < 0) {
    QToolTip::showText(event->globalPosition().toPoint(),
                       tr("%1 link tracks have no transfer a pixel wide at this zoom: zoom in, "
                          "or click to show them.")
                           .arg(r.folded),
                       plot_);
    return;
  }
  const TimelineTrack& track = timeline_.tracks[static_cast<size_t>(r.track)];
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

void TimelineView::press(QMouseEvent* event) {
  const int row = row_at(rows_, plot_->yAxis->pixelToCoord(event->position().y()));
  if (row >= 0 && rows_[static_cast<size_t>(row)].track < 0) unfold_links_->setChecked(true);
}

void TimelineView::doubleClick(QMouseEvent* event) {
  const int row = row_at(rows_, plot_->yAxis->pixelToCoord(event->position().y()));
  if (row < 0 || rows_[static_cast<size_t>(row)].track < 0) return;
  const TimelineTrack& track =
      timeline_.tracks[static_cast<size_t>(rows_[static_cast<size_t>(row)].track)];
  const double t = plot_->xAxis->pixelToCoord(event->position().x());
  const int stage = track_stage(track.name);
  for (const TimelineSpan& s : track.spans)
    if (t >= s.start_s && t <= s.start_s + s.duration_s && stage >= 0) {
      const int micro_batch = span_micro_batch(s.label);
      if (micro_batch >= 0) zoomToMicroBatch(stage, micro_batch);
      return;
    }
}

}  // namespace ts::views
