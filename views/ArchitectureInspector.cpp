#include "views/ArchitectureInspector.hpp"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>
#include <cmath>
#include <limits>

#include "common/ByteFormat.hpp"
#include "views/ArchitectureParameter.hpp"
#include "views/ArchitectureScene.hpp"

namespace ts::views {

ArchitectureInspector::ArchitectureInspector(QWidget* parent)
    : QWidget(parent), title_(new QLabel), details_(new QLabel), form_(new QFormLayout) {
  auto* layout = new QVBoxLayout(this);
  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  details_->setWordWrap(true);
  details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(title_);
  layout->addWidget(details_);
  layout->addLayout(form_);
  auto* hint =
      new QLabel(tr("Edits re-evaluate every operator's current mapping at once and "
                    "re-run the mapper in the background. Ctrl+Z undoes."));
  hint->setWordWrap(true);
  hint->setEnabled(false);
  layout->addWidget(hint);
  layout->addStretch(1);
}

void ArchitectureInspector::setGraph(const ArchitectureGraph* graph,
                                     const ArchitectureGraph* baseline) {
  const bool same_shape = graph_ && graph && graph_->nodes.size() == graph->nodes.size() &&
                          graph_->edges.size() == graph->edges.size();
  graph_ = graph;
  baseline_ = baseline;
  // An edited copy of the same graph: keep the fields (an edit arrives from inside one of
  // them) and only show the new values.
  if (same_shape) {
    refresh();
    return;
  }
  subject_ = Subject::graph;
  rebuild();
}

void ArchitectureInspector::showGraph() {
  subject_ = Subject::graph;
  rebuild();
}

void ArchitectureInspector::showNode(int node) {
  subject_ = Subject::node;
  id_ = node;
  rebuild();
}

void ArchitectureInspector::showEdge(int edge) {
  subject_ = Subject::edge;
  id_ = edge;
  rebuild();
}

void ArchitectureInspector::refresh() {
  // Values only: the fields stay, since refresh may run inside a field's own editingFinished.
  if (!graph_) return;
  if (subject_ == Subject::node)
    details_->setText(ArchitectureScene::nodeText(*graph_, NodeId{id_}));
  const auto fields = findChildren<QDoubleSpinBox*>();
  for (QDoubleSpinBox* field : fields) {
    const std::string path = field->objectName().toStdString();
    double scale = 1;
    for (const auto& list :
         {graph_parameters(), subject_ == Subject::node   ? node_parameters(*graph_, NodeId{id_})
                              : subject_ == Subject::edge ? edge_parameters(*graph_, EdgeId{id_})
                                                          : std::vector<EditableParameter>{}})
      for (const auto& p : list)
        if (p.path == path) scale = p.scale;
    try {
      const QSignalBlocker block(field);
      field->setValue(read_parameter(*graph_, *baseline_, path) / scale);
    } catch (const std::exception&) {
    }
  }
}

void ArchitectureInspector::rebuild() {
  while (form_->rowCount() > 0) form_->removeRow(0);
  if (!graph_) {
    title_->setText(tr("No architecture open"));
    details_->clear();
    return;
  }
  std::vector<EditableParameter> params;
  switch (subject_) {
    case Subject::graph:
      title_->setText(tr("Graph %1").arg(QString::fromStdString(graph_->name)));
      details_->setText(QString::fromStdString(graph_->description) +
                        tr("\nSelect a node or an edge to edit it."));
      params = graph_parameters();
      break;
    case Subject::node: {
      const ArchNode& n = graph_->node(NodeId{id_});
      title_->setText(
          tr("%1 %2").arg(n.kind == NodeKind::memory ? tr("Memory") : tr("Compute unit"),
                          QString::fromStdString(n.name)));
      details_->setText(ArchitectureScene::nodeText(*graph_, NodeId{id_}));
      params = node_parameters(*graph_, NodeId{id_});
      break;
    }
    case Subject::edge: {
      const ArchEdge& e = graph_->edge(EdgeId{id_});
      title_->setText(tr("Edge %1 \u2192 %2")
                          .arg(QString::fromStdString(graph_->node(e.from).name),
                               QString::fromStdString(graph_->node(e.to).name)));
      details_->setText(
          tr("%1, %2%3, fan-out %4")
              .arg(e.sharing == EdgeSharing::shared ? tr("one pool shared by its users")
                                                    : tr("bandwidth per instance"),
                   e.multicast ? tr("multicast reads") : tr("no multicast"), QString())
              .arg(graph_->fan_out(EdgeId{id_}), 0, 'g', 4));
      params = edge_parameters(*graph_, EdgeId{id_});
      break;
    }
  }
  for (const EditableParameter& p : params) {
    double value = 0;
    try {
      value = read_parameter(*graph_, *baseline_, p.path);
    } catch (const std::exception&) {
      continue;  // a path this graph cannot express (never for the lists above)
    }
    auto* field = new QDoubleSpinBox;
    field->setObjectName(QString::fromStdString(p.path));
    field->setDecimals(p.integer ? 0 : p.decimals);
    field->setRange(p.integer ? 1 : 0, std::numeric_limits<double>::max() / 4);
    field->setSuffix(p.unit.empty() ? QString() : " " + QString::fromStdString(p.unit));
    field->setKeyboardTracking(false);
    field->setValue(value / p.scale);
    field->setToolTip(QString::fromStdString(p.path));
    const QString path = QString::fromStdString(p.path);
    const double scale = p.scale;
    connect(field, &QDoubleSpinBox::editingFinished, this, [this, field, path, scale] {
      double current = 0;
      try {
        current = read_parameter(*graph_, *baseline_, path.toStdString());
      } catch (const std::exception&) {
        return;
      }
      // The spin box rounds to its decimals: a field left as it was shown is no edit.
      if (std::abs(field->value() - current / scale) < 0.5 * std::pow(10.0, -field->decimals()))
        return;
      Q_EMIT parameterEdited(path, field->value() * scale);
    });
    form_->addRow(QString::fromStdString(p.label), field);
  }
}

}  // namespace ts::views
