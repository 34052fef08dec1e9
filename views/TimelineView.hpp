#pragma once
// The timeline page: the summary of a simulated iteration (time, throughput, MFU, where the time
// goes) above its Gantt chart; hovering a bar names the task and its times. As the time axis
// zooms, link tracks with nothing a pixel wide fold into one row (a click unfolds them) and bars
// wide enough carry their labels; "zoom to micro-batch" shows one micro-batch's forward and
// backward on one stage (double-clicking a bar does it for that bar's).
#include <QWidget>
#include <vector>

#include "training/SimulationTimeline.hpp"
#include "views/TimelineRows.hpp"

class QCheckBox;
class QLabel;
class QCustomPlot;
class QMouseEvent;
class QPushButton;
class QSpinBox;
class QTimer;

namespace ts::views {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void setTimeline(SimulationTimeline timeline);
  const SimulationTimeline& timeline() const { return timeline_; }
  QCustomPlot* plot() const { return plot_; }
  QString summaryText() const;
  // The rows drawn now, top to bottom.
  const std::vector<TimelineRow>& rows() const { return rows_; }
  QCheckBox* unfoldLinksToggle() const { return unfold_links_; }
  QSpinBox* stageBox() const { return stage_; }
  QSpinBox* microBatchBox() const { return micro_batch_; }
  // Sets the time axis to that micro-batch's work on that stage; false when the timeline has
  // none (then nothing changes).
  bool zoomToMicroBatch(int stage, int micro_batch);
  void showWholeIteration();
  // Lays the rows and labels out for the current time range now (zooming does it on the next
  // turn of the event loop, once for a burst of wheel steps).
  void relayout();

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void hover(QMouseEvent* event);
  void press(QMouseEvent* event);
  void doubleClick(QMouseEvent* event);
  void refill();
  double pixelsPerSecond() const;
  QLabel* summary_;
  QWidget* controls_;
  QSpinBox* stage_;
  QSpinBox* micro_batch_;
  QPushButton* zoom_micro_batch_;
  QPushButton* whole_;
  QCheckBox* unfold_links_;
  QCustomPlot* plot_;
  QTimer* relayout_timer_;
  SimulationTimeline timeline_;
  std::vector<TimelineRow> rows_;
  bool filling_ = false;
};

}  // namespace ts::views
