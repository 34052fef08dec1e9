#pragma once
// The architecture picture as an interactive view: wheel zooms about the cursor, dragging the
// background pans, clicking a node or an edge selects it (and says so through signals, for the
// inspector).
#include <QGraphicsView>

#include "views/ArchitectureScene.hpp"

namespace ts::views {

class ArchitectureView : public QGraphicsView {
  Q_OBJECT
 public:
  explicit ArchitectureView(QWidget* parent = nullptr);
  ArchitectureScene* architectureScene() const { return scene_; }
  void setGraph(const ArchitectureGraph& graph);
  void selectNode(int node);
  void selectEdge(int edge);
  void zoomBy(double factor);
  void fitAll();

 Q_SIGNALS:
  void nodeSelected(int node);
  void edgeSelected(int edge);
  void selectionCleared();

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void announceSelection();
  ArchitectureScene* scene_;
  bool user_zoomed_ = false;  // until then the picture follows the view's size
};

}  // namespace ts::views
