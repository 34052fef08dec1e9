#pragma once
// The Compare page: the open graph beside the graphs the user adds (Add graph…, Add profile), on
// the open workload: the totals on top, bars per operator, the table of `tilescope compare` (time
// per graph, speed-up, bound per graph and where it moved) with the totals. Edits of the open
// graph move it live (ComparisonRunner). Until a second graph is added, a message says what to
// do.
#include <QWidget>

#include "OutputGuard.hpp"
#include "views/ComparisonBars.hpp"

class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTableView;
class QComboBox;
class QCustomPlot;

namespace ts::views {
class ComparisonTableModel;
}

namespace ts::gui {

class WhatIfSession;
class ComparisonRunner;

class ComparePage : public QWidget {
  Q_OBJECT
 public:
  explicit ComparePage(WhatIfSession* session, QWidget* parent = nullptr);

  ComparisonRunner* runner() const { return runner_; }
  QCustomPlot* plot() const { return plot_; }
  // What the last fill of the plot drew: the bar series per graph.
  const views::ComparisonBarsContents& bars() const { return bars_; }
  QTableView* table() const { return table_; }
  // The totals row of the table, alone, above the bars and the operators.
  QTableView* totals() const { return totals_; }
  // What the bars show: time per operator, speed-up, or energy per node (enabled where some
  // graph prices the workload).
  QComboBox* barsKind() const { return kind_; }
  views::ComparisonTableModel* model() const { return model_; }
  QLabel* emptyState() const { return empty_; }
  // Writes the comparison as `tilescope compare --format csv` does (full precision).
  // Refused, with why in `error`, over a file open here: the added graphs, and what
  // setOpenFiles gives (the window's graph, workload, results...).
  bool saveComparisonCsv(const QString& path, QString* error = nullptr) const;
  void setOpenFiles(OpenFiles open_files) { open_files_ = std::move(open_files); }

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void showComparison();
  void drawBars();
  void fillProfileMenu();
  void fillRemoveMenu();
  std::vector<NamedPath> openFiles() const;  // what the exports never write over
  WhatIfSession* session_;
  ComparisonRunner* runner_;
  OpenFiles open_files_;
  QLabel* graphs_;
  QLabel* empty_;
  QLabel* note_;
  QSplitter* split_;
  QCustomPlot* plot_;
  views::ComparisonBarsContents bars_;
  QTableView* table_;
  QTableView* totals_;
  views::ComparisonTableModel* model_;
  QMenu* profiles_;
  QMenu* remove_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QComboBox* kind_;
};

}  // namespace ts::gui
