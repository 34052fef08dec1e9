#pragma once
// A form for the selected node's or edge's parameters (or the graph's own, with nothing
// selected). It edits nothing itself: a finished edit is announced with parameterEdited, so that
// the owner can push it on an undo stack and re-evaluate. Each field's objectName is its
// parameter path (edge:HBM->L2.bandwidth), which is how tests find it.
#include <QWidget>

#include "arch/ArchitectureGraph.hpp"

class QFormLayout;
class QLabel;

namespace ts::views {

class ArchitectureInspector : public QWidget {
  Q_OBJECT
 public:
  explicit ArchitectureInspector(QWidget* parent = nullptr);

  // `graph` is the shown (edited) graph, `baseline` the graph as loaded; both must outlive the
  // next call.
  void setGraph(const ArchitectureGraph* graph, const ArchitectureGraph* baseline);
  void showGraph();
  void showNode(int node);
  void showEdge(int edge);
  // Re-reads the values of the shown fields (after an edit, undo or redo).
  void refresh();

 Q_SIGNALS:
  void parameterEdited(const QString& path, double value);

 private:
  enum class Subject { graph, node, edge };
  void rebuild();
  const ArchitectureGraph* graph_ = nullptr;
  const ArchitectureGraph* baseline_ = nullptr;
  Subject subject_ = Subject::graph;
  int id_ = -1;  // the NodeId or EdgeId value, as subject_ says (selections arrive as ints)
  QLabel* title_;
  QLabel* details_;
  QFormLayout* form_;
};

}  // namespace ts::views
