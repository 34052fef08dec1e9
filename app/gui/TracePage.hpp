#pragma once
// The Trace page: where a trace's time went, per rank (issue 38). One stacked bar per rank
// (compute / communication / memory / idle, views/TraceBreakdownChart), and for the chosen rank
// its overlap of communication with compute, its idle time by cause, its launch statistics and
// launch-delay histogram (views/LaunchDelayHistogram), and its kernel and launching-operator
// tables; over the whole trace or one ProfilerStep. It shows what the workbench's
// TraceAnalysisSession computed off the GUI thread; it computes nothing itself.
#include <QWidget>

class QComboBox;
class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QStackedWidget;
class QTableView;

namespace ts::views {
class KernelTimeTableModel;
class OperatorGpuTimeTableModel;
}  // namespace ts::views

namespace ts::gui {

class TraceAnalysisSession;

class TracePage : public QWidget {
  Q_OBJECT
 public:
  explicit TracePage(TraceAnalysisSession* session, QWidget* parent = nullptr);

  QLabel* emptyState() const { return empty_; }
  QComboBox* stepBox() const { return step_; }
  QComboBox* rankBox() const { return rank_; }
  QCustomPlot* breakdownPlot() const { return breakdown_; }
  QCustomPlot* histogramPlot() const { return histogram_; }
  QTableView* kernelTable() const { return kernel_table_; }
  QTableView* operatorTable() const { return operator_table_; }
  views::KernelTimeTableModel* kernelModel() const { return kernels_; }
  views::OperatorGpuTimeTableModel* operatorModel() const { return operators_; }
  QString figuresText() const;  // the chosen rank's overlap, idle and launch figures
  int currentRank() const;      // into the session's ranks(), -1 when none

  void chooseRank(int index);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void showAnalysis();  // the session's new analysis: every rank's bars, the steps, the rank
  void showRank();      // the chosen rank's figures, tables and histogram
  void drawBreakdown();
  void drawHistogram();

  TraceAnalysisSession* session_;
  QStackedWidget* stack_;
  QLabel* empty_;
  QLabel* header_;
  QComboBox* step_;
  QComboBox* rank_;
  QCustomPlot* breakdown_;
  QCustomPlot* histogram_;
  QLabel* figures_;
  views::KernelTimeTableModel* kernels_;
  views::OperatorGpuTimeTableModel* operators_;
  QTableView* kernel_table_;
  QTableView* operator_table_;
  bool filling_ = false;  // the combo boxes are being refilled: their signals are not choices
};

}  // namespace ts::gui
