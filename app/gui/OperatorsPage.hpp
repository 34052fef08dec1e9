#pragma once
// The operators of the open suite as a sortable, filterable table (the what-if session's model
// behind a proxy). Selecting a row makes it the current operator of every view.
#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QLabel;

namespace ts::gui {

class WhatIfSession;

class OperatorsPage : public QWidget {
  Q_OBJECT
 public:
  explicit OperatorsPage(WhatIfSession* session, QWidget* parent = nullptr);
  QTableView* table() const { return table_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  QLineEdit* filter() const { return filter_; }
  QLabel* emptyState() const { return empty_; }
  void selectRow(int source_row);
  int currentRow() const;  // in the what-if session's model, -1 when none

 Q_SIGNALS:
  void operatorChosen(int source_row);

 private:
  void updateSummary();
  void updateEmptyState();  // what to open while no graph or no workload is open
  WhatIfSession* session_;
  QLabel* empty_;
  QLineEdit* filter_;
  QLabel* summary_;
  QSortFilterProxyModel* proxy_;
  QTableView* table_;
};

}  // namespace ts::gui
