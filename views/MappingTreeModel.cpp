#include "views/MappingTreeModel.hpp"

#include <QBrush>
#include <QColor>

#include "common/ByteFormat.hpp"
#include "common/QuantityFormat.hpp"

namespace ts::views {
namespace {

// Three significant figures with the unit's prefix, as every face writes a time.
QString time_text(double s) { return QString::fromStdString(format_quantity(s, "s")); }

QString loops_text(const MappingProgram& p, const std::array<Factor, kMaxDims>& factors,
                   const std::array<uint8_t, kMaxDims>* order) {
  QStringList parts;
  for (int k = 0; k < p.ndims; ++k) {
    const int d = order ? (*order)[k] : k;
    const Factor& f = factors[static_cast<size_t>(d)];
    if (f.full == 1 && !f.has_tail() && !f.free) continue;
    parts << QString::fromStdString(p.op->dims[static_cast<size_t>(d)].name + "=" + factor_text(f));
  }
  return parts.join(' ');
}

}  // namespace

MappingTreeModel::MappingTreeModel(QObject* parent) : QAbstractItemModel(parent) {}

void MappingTreeModel::setEvaluation(std::shared_ptr<const void> keep_alive,
                                     MappingEvaluation evaluation) {
  beginResetModel();
  evaluation_ = std::move(evaluation);
  keep_alive_ = std::move(keep_alive);
  endResetModel();
}

void MappingTreeModel::clear() { setEvaluation(nullptr, MappingEvaluation{}); }

// Internal ids are program node ids + 1, so that 0 can mean "no node".
int MappingTreeModel::nodeOf(const QModelIndex& index) const {
  return index.isValid() ? static_cast<int>(index.internalId()) - 1 : -1;
}

QModelIndex MappingTreeModel::indexOfNode(int node, int column) const {
  const MappingProgram& p = *evaluation_.program;
  const int parent = p.nodes[static_cast<size_t>(node)].parent;
  int row = 0;
  if (parent >= 0) {
    const auto& siblings = p.nodes[static_cast<size_t>(parent)].children;
    row = static_cast<int>(std::find(siblings.begin(), siblings.end(), node) - siblings.begin());
  }
  return createIndex(row, column, static_cast<quintptr>(node + 1));
}

QModelIndex MappingTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  const int p = nodeOf(parent);
  if (p < 0) return createIndex(row, column, static_cast<quintptr>(1));  // the root node 0
  const int child =
      evaluation_.program->nodes[static_cast<size_t>(p)].children[static_cast<size_t>(row)];
  return createIndex(row, column, static_cast<quintptr>(child + 1));
}

QModelIndex MappingTreeModel::parent(const QModelIndex& child) const {
  const int node = nodeOf(child);
  if (node <= 0) return {};
  return indexOfNode(evaluation_.program->nodes[static_cast<size_t>(node)].parent, 0);
}

int MappingTreeModel::rowCount(const QModelIndex& parent) const {
  if (!evaluation_.program || evaluation_.program->nodes.empty()) return 0;
  if (parent.isValid() && parent.column() != 0) return 0;
  const int node = nodeOf(parent);
  if (node < 0) return 1;
  return static_cast<int>(evaluation_.program->nodes[static_cast<size_t>(node)].children.size());
}

int MappingTreeModel::columnCount(const QModelIndex&) const { return kColumnCount; }

QModelIndex MappingTreeModel::failingIndex() const {
  if (!evaluation_.program || evaluation_.result.valid()) return {};
  const int node = evaluation_.result.failure.node;
  if (node < 0 || static_cast<size_t>(node) >= evaluation_.program->nodes.size()) return {};
  return indexOfNode(node, 0);
}

QVariant MappingTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kNode:
      return tr("node");
    case kLoops:
      return tr("loops");
    case kFootprint:
      return tr("footprint (per instance)");
    case kIterations:
      return tr("iterations");
    case kTime:
      return tr("time");
    case kSplit:
      return tr("per iteration: load / child / store");
    case kBoundBy:
      return tr("bound by");
  }
  return {};
}

QString MappingTreeModel::text(int node, int column) const {
  const MappingProgram& p = *evaluation_.program;
  const AnalysisResult& e = evaluation_.result;
  const ArchitectureGraph& g = *p.graph;
  const ProgramNode& n = p.nodes[static_cast<size_t>(node)];
  const size_t i = static_cast<size_t>(node);
  const NodeReport* timing =
      i < e.nodes.size() && e.nodes[i].timing ? &*e.nodes[i].timing : nullptr;
  switch (column) {
    case kNode:
      switch (n.kind) {
        case MappingNodeKind::tile:
          return "tile " + QString::fromStdString(g.node(n.memory).name) +
                 (n.double_buffer ? " (double-buffered)" : "");
        case MappingNodeKind::op:
          return QString::fromStdString("op " + g.node(n.compute).name + " (" +
                                        p.op->stages[static_cast<size_t>(n.stage)].name + ")");
        case MappingNodeKind::scope:
          return "scope " + QString::fromStdString(std::string(to_string(n.scope)));
        case MappingNodeKind::trans:
          return QString::fromStdString("trans " +
                                        p.op->tensors[static_cast<size_t>(n.tensor)].name + " -> " +
                                        g.node(n.target).name);
      }
      return {};
    case kLoops:
      if (n.kind == MappingNodeKind::tile) {
        QString t = loops_text(p, n.temporal, &n.order), s = loops_text(p, n.spatial, nullptr);
        QString out;
        if (!t.isEmpty()) out += "temporal " + t;
        if (!s.isEmpty()) out += (out.isEmpty() ? "" : "  ") + QString("spatial ") + s;
        return out;
      }
      if (n.kind == MappingNodeKind::op) return loops_text(p, n.op_factor, nullptr);
      return {};
    case kFootprint: {
      if (n.kind != MappingNodeKind::tile || i >= e.nodes.size()) return {};
      // Bytes of the buffers this tile places, per memory they sit in (a tile at L0A also places
      // the B operand in L0B), as the capacity check counts them (TileBuffer), against one
      // instance's capacity.
      std::vector<std::pair<NodeId, double>> per_memory;
      for (const TileBuffer& b : e.nodes[i].buffers) {
        auto it = std::find_if(per_memory.begin(), per_memory.end(),
                               [&](const auto& m) { return m.first == b.memory; });
        if (it == per_memory.end())
          per_memory.emplace_back(b.memory, b.bytes);
        else
          it->second += b.bytes;
      }
      QStringList parts;
      for (const auto& [memory, bytes] : per_memory) {
        const double capacity = g.node(memory).capacity_bytes;
        parts << QString("%1 %2 of %3 (%4 %)")
                     .arg(QString::fromStdString(g.node(memory).name),
                          QString::fromStdString(format_bytes(bytes)),
                          QString::fromStdString(format_bytes(capacity)))
                     .arg(capacity > 0 ? bytes / capacity * 100 : 0.0, 0, 'f', 1);
      }
      return parts.join(", ");
    }
    case kIterations:
      return timing
                 ? QString::number(timing->iterations, 'f', 0) +
                       (timing->waves > 1 ? QString(" (%1 waves)").arg(timing->waves) : QString())
                 : QString();
    case kTime:
      return timing ? time_text(timing->time_s) : QString();
    case kSplit:
      return timing ? time_text(timing->load_s) + " / " + time_text(timing->compute_s) + " / " +
                          time_text(timing->store_s)
                    : QString();
    case kBoundBy:
      return timing ? QString::fromStdString(bound_text(g, timing->bound)) : QString();
  }
  return {};
}

QVariant MappingTreeModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const int node = nodeOf(index);
  const bool failing = !evaluation_.result.valid() && evaluation_.result.failure.node == node;
  switch (role) {
    case Qt::DisplayRole:
      return text(node, index.column());
    case FailingRole:
      return failing;
    case Qt::ForegroundRole:
      return failing ? QVariant(QBrush(QColor(220, 50, 47))) : QVariant();
    case Qt::ToolTipRole: {
      if (failing) return QString::fromStdString(evaluation_.error);
      // The whole text, for a cell the page has cut short to keep "bound by" in view.
      QString tip = text(node, index.column());
      if (index.column() == kLoops && tip.contains('/'))
        tip += "\n" + tr("N/T: N iterations, T on the last (the size is not a multiple of the "
                         "tile)");
      return tip.isEmpty() ? QVariant() : QVariant(tip);
    }
  }
  return {};
}

}  // namespace ts::views
