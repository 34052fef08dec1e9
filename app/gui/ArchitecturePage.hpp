#pragma once
// The architecture graph (zoom, pan, select) beside the inspector that edits the selected node
// or edge; edits go through the what-if session's undo stack.
#include <QWidget>

#include "analysis/Energy.hpp"

namespace ts::views {
class ArchitectureView;
class ArchitectureInspector;
}  // namespace ts::views

class QLabel;
class QSplitter;
class QToolBar;

namespace ts::gui {

class WhatIfSession;

class ArchitecturePage : public QWidget {
  Q_OBJECT
 public:
  explicit ArchitecturePage(WhatIfSession* session, QWidget* parent = nullptr);
  views::ArchitectureView* view() const { return view_; }
  views::ArchitectureInspector* inspector() const { return inspector_; }
  QLabel* emptyState() const { return empty_; }
  // Marks what bounds the current operator on the picture.
  void showBound(const QString& bound_by);
  // Colours each node by its share of the current operator's energy (a heat map; none where
  // the graph does not price the operator).
  void showEnergy(const EnergyReport& energy);

 private:
  void updateEmptyState();
  WhatIfSession* session_;
  QLabel* empty_;
  QToolBar* tools_;
  QSplitter* split_;
  views::ArchitectureView* view_;
  views::ArchitectureInspector* inspector_;
};

}  // namespace ts::gui
