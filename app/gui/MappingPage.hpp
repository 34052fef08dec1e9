#pragma once
// The current operator's mapping tree on the current graph, with traffic per edge and residency
// per memory below it. An invalid mapping (after an edit that shrinks a memory) shows the failing
// node selected and the reason above the tree.
#include <QWidget>

class QCheckBox;
class QLabel;
class QTreeView;

namespace ts::views {
class MappingTreeModel;
}

namespace ts::gui {

class Workbench;

class MappingPage : public QWidget {
  Q_OBJECT
 public:
  explicit MappingPage(Workbench* workbench, QWidget* parent = nullptr);
  void showOperator(int row);  // -1: none
  int shownOperator() const { return row_; }
  views::MappingTreeModel* model() const { return model_; }
  QTreeView* tree() const { return tree_; }
  QCheckBox* remappedToggle() const { return remapped_; }
  QLabel* emptyState() const { return empty_; }

 private:
  void refresh();
  Workbench* workbench_;
  int row_ = -1;
  QLabel* empty_;
  QLabel* heading_;
  QCheckBox* remapped_;
  QLabel* problem_;
  QTreeView* tree_;
  QLabel* traffic_;
  views::MappingTreeModel* model_;
};

}  // namespace ts::gui
