#pragma once
// The correlation page: the plot of CorrelationPlot with the device and run to show and a run to
// compare with (of any device), a tooltip naming the operator under the cursor, and a click that
// selects a point (and announces it, so that the other views can follow).
#include <QWidget>

#include "views/CorrelationPlot.hpp"

class QComboBox;
class QLabel;
class QCustomPlot;
class QCPGraph;
class QMouseEvent;

namespace ts::views {

class CorrelationView : public QWidget {
  Q_OBJECT
 public:
  explicit CorrelationView(QWidget* parent = nullptr);

  void setData(CorrelationPlotData data);
  const CorrelationPlotData& data() const { return data_; }
  const CorrelationPlotContents& contents() const { return contents_; }
  // Devices to choose from ("Intel Xeon (host-cpu)"); `current` is the chosen one.
  void setDevices(const QStringList& devices, int current);
  // Runs of the chosen device ("run 3: host, host-suite"); `current` is the shown one. Runs to
  // compare with: every run, whatever its device; none given: the same as `runs`.
  void setRuns(const QStringList& runs, int current, const QStringList& overlay_runs = {});
  void setMessage(const QString& text);  // shown above the plot (no database, what was left out)
  QString grouping() const;

  QCustomPlot* plot() const { return plot_; }
  int selectedPoint() const { return selected_; }
  void selectPoint(int index);  // -1 clears
  // Selects the first point whose label starts with the operator's name; false when none.
  bool selectOperator(const QString& name);
  // Where a point is drawn, in the plot widget's pixels (for tests and keyboard navigation).
  QPointF pointPosition(int index) const;
  // The point nearest to a pixel position within `radius` pixels, or -1.
  int pointAt(const QPointF& pixel, double radius = 10) const;

 Q_SIGNALS:
  void pointSelected(int index);  // into data().points
  void deviceChosen(int index);   // into the list given to setDevices
  void runChosen(int index);      // into the list given to setRuns
  void overlayChosen(int index);  // into setRuns' overlay_runs; -1: no comparison
  // "class", "suite", "mapping" or "size" (the forms of `correlate --by`).
  void groupingChosen(const QString& grouping);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void hover(QMouseEvent* event);
  void press(QMouseEvent* event);
  QComboBox* device_;
  QComboBox* run_;
  QComboBox* overlay_;
  QComboBox* grouping_;
  QLabel* message_;
  QCustomPlot* plot_;
  QCPGraph* highlight_ = nullptr;
  CorrelationPlotData data_;
  CorrelationPlotContents contents_;
  int selected_ = -1;
};

}  // namespace ts::views
