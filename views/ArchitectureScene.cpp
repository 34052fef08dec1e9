#include "views/ArchitectureScene.hpp"

#include <QApplication>
#include <QFontMetricsF>
#include <QGraphicsPathItem>
#include <QGraphicsSimpleTextItem>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPalette>
#include <QStyleOptionGraphicsItem>
#include <algorithm>
#include <cmath>

#include "common/ByteFormat.hpp"
#include "common/QuantityFormat.hpp"
#include "views/ArchitectureLayout.hpp"

namespace ts::views {
namespace {

// Memories and compute units in two hues that read on light and dark palettes alike: the fill is
// translucent over the base colour.
QColor memoryFill() { return QColor(70, 130, 200, 70); }
QColor computeFill() { return QColor(230, 140, 30, 80); }
QColor bottleneckColour() { return QColor(220, 50, 47); }

// A path item that draws its own selection (the highlight colour) instead of Qt's dashed box,
// and that is easy to hit: its shape is the stroke widened to a few pixels.
class OutlineItem : public QGraphicsPathItem {
 public:
  using QGraphicsPathItem::QGraphicsPathItem;
  bool filled = true;
  bool bottleneck = false;

  QPainterPath shape() const override {
    if (filled) return path();
    QPainterPathStroker stroker;
    stroker.setWidth(8);
    return stroker.createStroke(path());
  }

  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) override {
    // The scene's palette: the application's unless a report set its own.
    const QPalette palette = scene() ? scene()->palette() : QApplication::palette();
    QPen pen(bottleneck ? bottleneckColour() : palette.color(QPalette::Text),
             bottleneck ? 2.2 : 1.2);
    if (option->state & QStyle::State_Selected) {
      pen.setColor(palette.color(QPalette::Highlight));
      pen.setWidthF(3);
    }
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(pen);
    painter->setBrush(filled ? brush() : Qt::NoBrush);
    painter->drawPath(path());
  }
};

QPainterPath hexagon(const QRectF& r) {
  const double inset = std::min(r.height() / 2, r.width() / 6);
  QPainterPath p;
  p.moveTo(r.left() + inset, r.top());
  p.lineTo(r.right() - inset, r.top());
  p.lineTo(r.right(), r.center().y());
  p.lineTo(r.right() - inset, r.bottom());
  p.lineTo(r.left() + inset, r.bottom());
  p.lineTo(r.left(), r.center().y());
  p.closeSubpath();
  return p;
}

QString capabilityText(const ComputeCapability& c) {
  // "matmul bf16: 1.46 k/cycle": three significant figures, as every face writes a quantity.
  return QString("%1 %2: %3")
      .arg(QString::fromStdString(std::string(to_string(c.op_class))),
           QString::fromStdString(std::string(to_string(c.dtype))),
           QString::fromStdString(format_quantity(c.ops_per_cycle, "/cycle")));
}

}  // namespace

ArchitectureScene::ArchitectureScene(QObject* parent) : QGraphicsScene(parent) {}

QString ArchitectureScene::nodeText(const ArchitectureGraph& graph, NodeId node) {
  const ArchNode& n = graph.node(node);
  QString text = QString::fromStdString(n.name);
  if (n.instances != 1) text += QString::fromUtf8(" \u00d7%1").arg(n.instances);
  if (n.kind == NodeKind::memory) {
    text += "\n" + QString::fromStdString(format_bytes(n.capacity_bytes));
    if (n.instances != 1) text += " each";
    if (n.port_bytes_per_s > 0)
      text += "\nport " + QString::fromStdString(format_quantity(n.port_bytes_per_s, "B/s"));
  } else {
    // The first two capabilities say what the unit is for; the inspector shows the rest.
    for (size_t k = 0; k < n.capabilities.size() && k < 2; ++k)
      text += "\n" + capabilityText(n.capabilities[k]);
    if (n.capabilities.size() > 2) text += QString("\n+%1 more").arg(n.capabilities.size() - 2);
  }
  return text;
}

QString ArchitectureScene::edgeText(const ArchitectureGraph& graph, EdgeId edge) {
  const ArchEdge& e = graph.edge(edge);
  QString text = QString::fromStdString(format_quantity(e.bandwidth_bytes_per_s, "B/s"));
  if (e.sharing == EdgeSharing::shared) text += " shared";
  return text;
}

void ArchitectureScene::setGraph(const ArchitectureGraph& graph) {
  bool same = graph.nodes.size() == node_names_.size() && graph.edges.size() == edge_ends_.size();
  for (size_t i = 0; same && i < graph.nodes.size(); ++i)
    same = graph.nodes[i].name == node_names_[i];
  for (size_t i = 0; same && i < graph.edges.size(); ++i)
    same = edge_ends_[i] == std::pair{graph.edges[i].from, graph.edges[i].to};
  if (!same) {
    build(graph);
    return;
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i)
    node_texts_[i]->setText(nodeText(graph, NodeId{static_cast<int32_t>(i)}));
  for (size_t i = 0; i < graph.edges.size(); ++i)
    edge_texts_[i]->setText(edgeText(graph, EdgeId{static_cast<int32_t>(i)}));
}

void ArchitectureScene::build(const ArchitectureGraph& graph) {
  clear();
  nodes_.clear();
  edges_.clear();
  node_texts_.clear();
  edge_texts_.clear();
  node_names_.clear();
  node_compute_.clear();
  edge_ends_.clear();
  const QFont font = QApplication::font();
  const QFontMetricsF metrics(font);
  std::vector<std::pair<double, double>> sizes;
  std::vector<std::string> labels;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const QRectF box = metrics.boundingRect(QRectF(0, 0, 1000, 1000), Qt::AlignLeft,
                                            nodeText(graph, NodeId{static_cast<int32_t>(i)}));
    const bool compute = graph.nodes[i].kind == NodeKind::compute;
    sizes.emplace_back(box.width() + (compute ? 40 : 20), box.height() + 14);
  }
  for (size_t i = 0; i < graph.edges.size(); ++i)
    labels.push_back(edgeText(graph, EdgeId{static_cast<int32_t>(i)}).toStdString());
  const ArchitectureLayout layout = layout_architecture(graph, sizes, labels);
  const QColor text = palette().color(QPalette::Text);

  for (size_t i = 0; i < graph.edges.size(); ++i) {
    const EdgePlacement& placed = layout.edges[i];
    QPainterPath path;
    if (!placed.spline.empty()) {
      path.moveTo(placed.spline[0].x, placed.spline[0].y);
      for (size_t k = 1; k + 2 < placed.spline.size(); k += 3)
        path.cubicTo(placed.spline[k].x, placed.spline[k].y, placed.spline[k + 1].x,
                     placed.spline[k + 1].y, placed.spline[k + 2].x, placed.spline[k + 2].y);
    }
    const QPointF end = path.currentPosition();
    auto* item = new OutlineItem(path);
    item->filled = false;
    if (placed.has_arrow) {
      // dot stops the spline short of the target and leaves the arrowhead to the renderer.
      const QPointF tip(placed.arrow_tip.x, placed.arrow_tip.y);
      const QPointF d = tip - end;
      const double len = std::hypot(d.x(), d.y());
      if (len > 0) {
        const QPointF u = d / len, n(-u.y(), u.x());
        QPainterPath head;
        head.moveTo(tip);
        head.lineTo(end + n * len * 0.4);
        head.lineTo(end - n * len * 0.4);
        head.closeSubpath();
        auto* arrow = new QGraphicsPathItem(head, item);
        arrow->setBrush(text);
        arrow->setPen(Qt::NoPen);
      }
    }
    item->setFlag(QGraphicsItem::ItemIsSelectable);
    item->setData(kKindKey, kEdgeItem);
    item->setData(kIdKey, static_cast<int>(i));
    item->setToolTip(QString::fromStdString(graph.node(graph.edges[i].from).name + " -> " +
                                            graph.node(graph.edges[i].to).name));
    auto* label =
        new QGraphicsSimpleTextItem(edgeText(graph, EdgeId{static_cast<int32_t>(i)}), item);
    label->setBrush(text);
    const QRectF r = label->boundingRect();
    label->setPos(placed.label_centre.x - r.width() / 2, placed.label_centre.y - r.height() / 2);
    addItem(item);
    edges_.push_back(item);
    edge_texts_.push_back(label);
    edge_ends_.emplace_back(graph.edges[i].from, graph.edges[i].to);
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const NodePlacement& placed = layout.nodes[i];
    const QRectF r(placed.centre.x - placed.width / 2, placed.centre.y - placed.height / 2,
                   placed.width, placed.height);
    const bool compute = graph.nodes[i].kind == NodeKind::compute;
    QPainterPath shape;
    if (compute)
      shape = hexagon(r);
    else
      shape.addRect(r);
    auto* item = new OutlineItem(shape);
    item->setBrush(compute ? computeFill() : memoryFill());
    item->setFlag(QGraphicsItem::ItemIsSelectable);
    item->setData(kKindKey, kNodeItem);
    item->setData(kIdKey, static_cast<int>(i));
    item->setZValue(1);
    auto* label =
        new QGraphicsSimpleTextItem(nodeText(graph, NodeId{static_cast<int32_t>(i)}), item);
    label->setBrush(text);
    const QRectF t = label->boundingRect();
    label->setPos(r.center().x() - t.width() / 2, r.center().y() - t.height() / 2);
    addItem(item);
    nodes_.push_back(item);
    node_texts_.push_back(label);
    node_names_.push_back(graph.nodes[i].name);
    node_compute_.push_back(compute);
  }
  setSceneRect(QRectF(-10, -10, layout.width + 20, layout.height + 20));
}

bool ArchitectureScene::event(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) recolour();
  return QGraphicsScene::event(event);
}

void ArchitectureScene::recolour() {
  const QColor text = palette().color(QPalette::Text);
  for (auto* label : node_texts_) label->setBrush(text);
  for (auto* label : edge_texts_) label->setBrush(text);
  for (auto* edge : edges_)
    for (QGraphicsItem* child : edge->childItems())
      if (auto* arrow = qgraphicsitem_cast<QGraphicsPathItem*>(child)) arrow->setBrush(text);
  update();
}

QGraphicsItem* ArchitectureScene::nodeItem(int node) const {
  return node >= 0 && static_cast<size_t>(node) < nodes_.size() ? nodes_[static_cast<size_t>(node)]
                                                                : nullptr;
}

QGraphicsItem* ArchitectureScene::edgeItem(int edge) const {
  return edge >= 0 && static_cast<size_t>(edge) < edges_.size() ? edges_[static_cast<size_t>(edge)]
                                                                : nullptr;
}

void ArchitectureScene::setBottlenecks(const std::vector<std::string>& bound_by) {
  auto named = [&](const std::string& text) {
    return std::find(bound_by.begin(), bound_by.end(), text) != bound_by.end();
  };
  for (size_t i = 0; i < nodes_.size(); ++i)
    static_cast<OutlineItem*>(nodes_[i])->bottleneck = named("compute:" + node_names_[i]);
  for (size_t i = 0; i < edges_.size(); ++i)
    static_cast<OutlineItem*>(edges_[i])->bottleneck =
        named("edge:" + node_names_[edge_ends_[i].first.index()] + "->" +
              node_names_[edge_ends_[i].second.index()]);
  update();
}

QColor ArchitectureScene::energyColour(double share) {
  // Translucent like the usual fills, from a pale to a deep red: readable on light and dark.
  const double s = std::clamp(share, 0.0, 1.0);
  return QColor(220, static_cast<int>(190 - 150 * s), static_cast<int>(150 - 120 * s),
                static_cast<int>(60 + 150 * s));
}

void ArchitectureScene::setEnergyShares(const std::vector<std::pair<std::string, double>>& shares) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    auto it = std::find_if(shares.begin(), shares.end(),
                           [&](const auto& s) { return s.first == node_names_[i]; });
    auto* item = static_cast<OutlineItem*>(nodes_[i]);
    item->setBrush(it != shares.end() ? energyColour(it->second)
                   : node_compute_[i] ? computeFill()
                                      : memoryFill());
  }
  update();
}

QImage ArchitectureScene::toImage(double scale) {
  const QRectF source = sceneRect();
  QImage image((source.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
  image.fill(palette().color(QPalette::Base));
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  render(&painter, QRectF(QPointF(0, 0), source.size() * scale), source);
  return image;
}

}  // namespace ts::views
