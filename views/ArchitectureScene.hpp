#pragma once
// The architecture graph as a picture: memories as boxes, compute units as hexagons, each with
// its capacity or throughput and instance count; one-way edges as arrows labelled with their
// bandwidth, placed by Graphviz's dot. Usable headless (render to a QImage) by reports.
#include <QGraphicsScene>
#include <QImage>
#include <vector>

#include "arch/ArchitectureGraph.hpp"

class QGraphicsItem;
class QGraphicsSimpleTextItem;

namespace ts::views {

class ArchitectureScene : public QGraphicsScene {
  Q_OBJECT
 public:
  enum ItemKind { kNodeItem = 1, kEdgeItem = 2 };
  static constexpr int kKindKey = 0;  // QGraphicsItem::data keys
  static constexpr int kIdKey = 1;

  explicit ArchitectureScene(QObject* parent = nullptr);

  // Lays the graph out anew when its nodes or edges differ from the shown one; otherwise only
  // the texts change, so that the picture does not jump while a parameter is edited.
  void setGraph(const ArchitectureGraph& graph);

  QGraphicsItem* nodeItem(int node) const;
  QGraphicsItem* edgeItem(int edge) const;
  // Marks the nodes and edges that bound some operator (names as Prediction::bound_by).
  void setBottlenecks(const std::vector<std::string>& bound_by);
  // Fills each named node in a heat colour by its share of an operator's energy (0 to 1: pale
  // to deep red); the others, or all with an empty list, take their usual fill.
  void setEnergyShares(const std::vector<std::pair<std::string, double>>& shares);
  // The fill setEnergyShares gives a share (for tests and legends).
  static QColor energyColour(double share);

  // The whole picture at `scale` pixels per point, on the palette's base colour.
  QImage toImage(double scale = 2.0);

  static QString nodeText(const ArchitectureGraph& graph, NodeId node);
  static QString edgeText(const ArchitectureGraph& graph, EdgeId edge);

 protected:
  // A palette switched while shown (dark mode): labels and arrowheads take the new text colour.
  bool event(QEvent* event) override;

 private:
  void recolour();
  void build(const ArchitectureGraph& graph);
  std::vector<QGraphicsItem*> nodes_, edges_;
  std::vector<QGraphicsSimpleTextItem*> node_texts_, edge_texts_;
  std::vector<std::string> node_names_;
  std::vector<bool> node_compute_;
  std::vector<std::pair<NodeId, NodeId>> edge_ends_;
};

}  // namespace ts::views
