#pragma once
// The timeline page: the summary of a simulated iteration (time, throughput, MFU, where the time
// goes) above its Gantt chart; hovering a bar names the task and its times.
#include <QWidget>

#include "training/SimulationTimeline.hpp"

class QLabel;
class QCustomPlot;
class QMouseEvent;

namespace ts::views {

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  void setTimeline(SimulationTimeline timeline);
  const SimulationTimeline& timeline() const { return timeline_; }
  QCustomPlot* plot() const { return plot_; }
  QString summaryText() const;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void hover(QMouseEvent* event);
  QLabel* summary_;
  QCustomPlot* plot_;
  SimulationTimeline timeline_;
};

}  // namespace ts::views
