#include "views/CorrelationView.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QToolTip>
#include <QVBoxLayout>

#include "common/QuantityFormat.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace ts::views {

CorrelationView::CorrelationView(QWidget* parent)
    : QWidget(parent),
      device_(new QComboBox),
      run_(new QComboBox),
      overlay_(new QComboBox),
      grouping_(new QComboBox),
      message_(new QLabel),
      plot_(new QCustomPlot) {
  auto* layout = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  device_->setObjectName("device");
  run_->setObjectName("run");
  overlay_->setObjectName("overlay");
  bar->addWidget(new QLabel(tr("Device:")));
  bar->addWidget(device_);
  bar->addWidget(new QLabel(tr("Run:")));
  bar->addWidget(run_, 1);
  bar->addWidget(new QLabel(tr("Compare with:")));
  bar->addWidget(overlay_, 1);
  bar->addWidget(new QLabel(tr("Colour by:")));
  grouping_->setObjectName("grouping");
  grouping_->addItems({"class", "suite", "mapping", "size"});
  grouping_->setToolTip(
      tr("operator class, suite, implementation and mapping, or FLOP terciles "
         "(as `correlate --by`)"));
  bar->addWidget(grouping_);
  layout->addLayout(bar);
  message_->setObjectName("message");
  message_->setWordWrap(true);
  layout->addWidget(message_);
  layout->addWidget(plot_, 1);
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setMinimumSize(320, 240);
  plot_->setMouseTracking(true);
  connect(plot_, &QCustomPlot::mouseMove, this, &CorrelationView::hover);
  connect(plot_, &QCustomPlot::mousePress, this, &CorrelationView::press);
  connect(device_, &QComboBox::activated, this, &CorrelationView::deviceChosen);
  connect(run_, &QComboBox::activated, this, &CorrelationView::runChosen);
  connect(overlay_, &QComboBox::activated, this,
          [this](int index) { Q_EMIT overlayChosen(index - 1); });
  connect(grouping_, &QComboBox::textActivated, this, &CorrelationView::groupingChosen);
  setDevices({}, -1);
  setRuns({}, -1);
  fill_correlation_plot(*plot_, data_, palette());
}

void CorrelationView::setDevices(const QStringList& devices, int current) {
  const QSignalBlocker block(device_);
  device_->clear();
  device_->addItems(devices);
  device_->setCurrentIndex(current);
  device_->setEnabled(devices.size() > 1);
}

void CorrelationView::setRuns(const QStringList& runs, int current,
                              const QStringList& overlay_runs) {
  const QSignalBlocker a(run_), b(overlay_);
  run_->clear();
  run_->addItems(runs);
  run_->setCurrentIndex(current);
  run_->setEnabled(runs.size() > 1);
  const QStringList& others = overlay_runs.isEmpty() ? runs : overlay_runs;
  const int overlay = overlay_->currentIndex();
  const bool same = overlay_->count() == others.size() + 1;
  overlay_->clear();
  overlay_->addItem(tr("none"));
  overlay_->addItems(others);
  overlay_->setCurrentIndex(same && overlay > 0 ? overlay : 0);
  overlay_->setEnabled(others.size() > 1);
}

QString CorrelationView::grouping() const { return grouping_->currentText(); }

void CorrelationView::setMessage(const QString& text) {
  message_->setText(text);
  message_->setVisible(!text.isEmpty());
}

void CorrelationView::setData(CorrelationPlotData data) {
  data_ = std::move(data);
  highlight_ = nullptr;
  selected_ = -1;
  contents_ = fill_correlation_plot(*plot_, data_, palette());
}

void CorrelationView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) {
    // Dark mode switched while the plot is open: redraw in the new colours.
    const int selected = selected_;
    contents_ = fill_correlation_plot(*plot_, data_, palette());
    highlight_ = nullptr;
    selected_ = -1;
    selectPoint(selected);
  }
  QWidget::changeEvent(event);
}

QPointF CorrelationView::pointPosition(int index) const {
  if (index < 0 || static_cast<size_t>(index) >= data_.points.size()) return {};
  const auto& p = data_.points[static_cast<size_t>(index)];
  return {plot_->xAxis->coordToPixel(p.measured_s * 1e6),
          plot_->yAxis->coordToPixel(p.predicted_s * 1e6)};
}

int CorrelationView::pointAt(const QPointF& pixel, double radius) const {
  int best = -1;
  double best_d2 = radius * radius;
  for (const auto& series : contents_.series) {
    if (series.overlay) continue;
    for (size_t i : series.points) {
      const QPointF q = pointPosition(static_cast<int>(i));
      const double dx = q.x() - pixel.x(), dy = q.y() - pixel.y();
      if (dx * dx + dy * dy <= best_d2) {
        best_d2 = dx * dx + dy * dy;
        best = static_cast<int>(i);
      }
    }
  }
  return best;
}

void CorrelationView::hover(QMouseEvent* event) {
  const int index = pointAt(event->position());
  if (index < 0) {
    QToolTip::hideText();
    return;
  }
  const auto& p = data_.points[static_cast<size_t>(index)];
  QToolTip::showText(
      event->globalPosition().toPoint(),
      tr("%1\n%2\npredicted %3, measured %4 (%5 %)")
          .arg(p.label, p.group, QString::fromStdString(format_quantity(p.predicted_s, "s")),
               QString::fromStdString(format_quantity(p.measured_s, "s")))
          .arg((p.predicted_s / p.measured_s - 1) * 100, 0, 'f', 1),
      plot_);
}

void CorrelationView::press(QMouseEvent* event) {
  const int index = pointAt(event->position());
  if (index < 0) return;
  selectPoint(index);
  Q_EMIT pointSelected(index);
}

void CorrelationView::selectPoint(int index) {
  if (index < 0 || static_cast<size_t>(index) >= data_.points.size()) {
    if (highlight_) highlight_->data()->clear();
    selected_ = -1;
    plot_->replot(QCustomPlot::rpQueuedReplot);
    return;
  }
  if (!highlight_) {
    highlight_ = plot_->addGraph();
    highlight_->removeFromLegend();
    highlight_->setLineStyle(QCPGraph::lsNone);
    highlight_->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                                QPen(palette().color(QPalette::Highlight), 2.5),
                                                Qt::NoBrush, 16));
  }
  const auto& p = data_.points[static_cast<size_t>(index)];
  highlight_->setData(QVector<double>{p.measured_s * 1e6}, QVector<double>{p.predicted_s * 1e6});
  selected_ = index;
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

bool CorrelationView::selectOperator(const QString& name) {
  for (size_t i = 0; i < data_.points.size(); ++i)
    if (data_.points[i].label == name || data_.points[i].label.startsWith(name + " ")) {
      selectPoint(static_cast<int>(i));
      return true;
    }
  return false;
}

}  // namespace ts::views
