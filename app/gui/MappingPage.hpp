#pragma once
// The current operator's mapping tree on the current graph, with traffic per edge and residency
// per memory below it. An invalid mapping (after an edit that shrinks a memory) shows the failing
// node selected and the reason above the tree. The columns share the page's width (the long
// ones elided, whole in their tooltips) so that "bound by" stays in view, and a line under the
// tree says how to read a loop's tail ("M=10/2").
#include <QWidget>
#include <vector>

class QCheckBox;
class QLabel;
class QTreeView;

namespace ts::views {
class MappingTreeModel;
}

namespace ts::gui {

class WhatIfSession;

class MappingPage : public QWidget {
  Q_OBJECT
 public:
  explicit MappingPage(WhatIfSession* session, QWidget* parent = nullptr);
  void showOperator(int row);  // -1: none
  int shownOperator() const { return row_; }
  views::MappingTreeModel* model() const { return model_; }
  QTreeView* tree() const { return tree_; }
  QCheckBox* remappedToggle() const { return remapped_; }
  QLabel* emptyState() const { return empty_; }
  QLabel* loopsLegend() const { return legend_; }

 protected:
  // The tree's viewport resizing (the window, or the page first shown) fits the columns again.
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  void refresh();
  // Gives each column its content's width, narrowing the widest of the long ones (loops,
  // footprint, split, node) just enough for all to fit the tree's viewport.
  void fitColumns();
  WhatIfSession* session_;
  int row_ = -1;
  QLabel* empty_;
  QLabel* heading_;
  QCheckBox* remapped_;
  QLabel* problem_;
  QTreeView* tree_;
  QLabel* legend_;
  QLabel* traffic_;
  std::vector<int> content_widths_;  // per column, as resizeColumnToContents found them
  views::MappingTreeModel* model_;
};

}  // namespace ts::gui
