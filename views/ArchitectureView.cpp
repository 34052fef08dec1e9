#include "views/ArchitectureView.hpp"

#include <QGraphicsItem>
#include <QResizeEvent>
#include <QWheelEvent>
#include <cmath>

namespace ts::views {

ArchitectureView::ArchitectureView(QWidget* parent)
    : QGraphicsView(parent), scene_(new ArchitectureScene(this)) {
  setScene(scene_);
  setRenderHint(QPainter::Antialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  connect(scene_, &QGraphicsScene::selectionChanged, this, &ArchitectureView::announceSelection);
}

void ArchitectureView::setGraph(const ArchitectureGraph& graph) {
  scene_->setGraph(graph);
  if (!user_zoomed_) fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
}

void ArchitectureView::fitAll() {
  user_zoomed_ = false;
  fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
}

void ArchitectureView::zoomBy(double factor) {
  user_zoomed_ = true;
  scale(factor, factor);
}

void ArchitectureView::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (!user_zoomed_) fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
}

void ArchitectureView::wheelEvent(QWheelEvent* event) {
  // One notch (120) zooms by 15 %; touchpads send smaller steps.
  zoomBy(std::pow(1.15, event->angleDelta().y() / 120.0));
  event->accept();
}

void ArchitectureView::selectNode(int node) {
  scene_->clearSelection();
  if (QGraphicsItem* item = scene_->nodeItem(node)) {
    item->setSelected(true);
    ensureVisible(item);
  }
}

void ArchitectureView::selectEdge(int edge) {
  scene_->clearSelection();
  if (QGraphicsItem* item = scene_->edgeItem(edge)) {
    item->setSelected(true);
    ensureVisible(item);
  }
}

void ArchitectureView::announceSelection() {
  const QList<QGraphicsItem*> selected = scene_->selectedItems();
  if (selected.isEmpty()) {
    Q_EMIT selectionCleared();
    return;
  }
  const QGraphicsItem* item = selected.front();
  const int id = item->data(ArchitectureScene::kIdKey).toInt();
  if (item->data(ArchitectureScene::kKindKey).toInt() == ArchitectureScene::kNodeItem)
    Q_EMIT nodeSelected(id);
  else
    Q_EMIT edgeSelected(id);
}

}  // namespace ts::views
