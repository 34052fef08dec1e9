#include "views/ComparisonTableModel.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <cmath>

#include "common/QuantityFormat.hpp"
#include "views/ComparisonBars.hpp"

namespace ts::views {

ComparisonTableModel::ComparisonTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ComparisonTableModel::setComparison(ArchitectureComparison comparison) {
  beginResetModel();
  comparison_ = std::move(comparison);
  endResetModel();
}

int ComparisonTableModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || comparison_.graphs.empty()) return 0;
  return static_cast<int>(comparison_.operators.size()) + 1;  // and the total
}

int ComparisonTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() || comparison_.graphs.empty() ? 0 : movedColumn() + 1;
}

QVariant ComparisonTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (orientation != Qt::Horizontal || comparison_.graphs.empty())
    return QAbstractTableModel::headerData(section, orientation, role);
  const int graphs = graphCount();
  const auto label = [&](int g) {
    return QString::fromStdString(comparison_.graphs[static_cast<size_t>(g)].label);
  };
  if (role == Qt::DisplayRole) {
    if (section == 0) return tr("operator");
    if (section == 1) return tr("shape");
    for (int g = 0; g < graphs; ++g) {
      if (section == timeColumn(g)) return tr("%1 time").arg(label(g));
      if (g > 0 && section == speedupColumn(g)) return tr("%1 speed-up").arg(label(g));
      if (section == boundColumn(g)) return tr("%1 bound").arg(label(g));
    }
    if (section == movedColumn()) return tr("bound moved");
  }
  if (role == Qt::ToolTipRole) {
    for (int g = 0; g < graphs; ++g) {
      const ComparedGraph& cg = comparison_.graphs[static_cast<size_t>(g)];
      const QString graph = QString("%1 (%2)").arg(QString::fromStdString(cg.name),
                                                   QString::fromStdString(cg.source));
      if (section == timeColumn(g)) return tr("device time + launch overhead on %1").arg(graph);
      if (g > 0 && section == speedupColumn(g))
        return tr("time on %1 / time on %2: above 1, %2 is faster").arg(label(0), label(g));
      if (section == boundColumn(g)) return tr("what bounds the operator on %1").arg(graph);
    }
    if (section == movedColumn())
      return tr("the bound on %1 → the bound on the other graph, where they differ").arg(label(0));
  }
  if (role == Qt::ForegroundRole)
    for (int g = 0; g < graphs; ++g)
      if (section == timeColumn(g)) return QBrush(comparison_graph_colour(static_cast<size_t>(g)));
  return {};
}

QVariant ComparisonTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const bool total = index.row() == totalRow();
  const ComparedOperator* op =
      total ? nullptr : &comparison_.operators[static_cast<size_t>(index.row())];
  const std::vector<TimeOnGraph>& on = total ? comparison_.total : op->on_graph;
  const int column = index.column();
  const int graphs = graphCount();
  if (role == Qt::FontRole) {
    QFont font;
    font.setBold(total);
    return font;
  }
  if (role == Qt::TextAlignmentRole) {
    const bool number = column >= timeColumn(0) && column < boundColumn(0);
    return number ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                  : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  }
  if (role == Qt::ForegroundRole) {
    for (int g = 1; g < graphs; ++g)
      if (column == speedupColumn(g) && std::isfinite(on[static_cast<size_t>(g)].speedup) &&
          std::abs(on[static_cast<size_t>(g)].speedup - 1) > 5e-3)
        return QBrush(on[static_cast<size_t>(g)].speedup > 1 ? QColor(40, 160, 60)
                                                             : QColor(220, 50, 47));
    return {};
  }
  if (role != Qt::DisplayRole && role != SortRole && role != Qt::ToolTipRole) return {};
  const bool numeric = role == SortRole;
  if (column == 0) return total ? tr("total") : QString::fromStdString(op->name);
  if (column == 1) return total ? QString() : QString::fromStdString(op->shape);
  for (int g = 0; g < graphs; ++g) {
    const TimeOnGraph& t = on[static_cast<size_t>(g)];
    if (column == timeColumn(g)) {
      if (numeric) return t.time_us();
      if (role == Qt::ToolTipRole)
        return tr("device %1 + launch %2")
            .arg(QString::fromStdString(format_quantity(t.device_us * 1e-6, "s")),
                 QString::fromStdString(format_quantity(t.launch_us * 1e-6, "s")));
      return QString::fromStdString(format_quantity(t.time_us() * 1e-6, "s"));
    }
    if (g > 0 && column == speedupColumn(g)) {
      if (numeric) return t.speedup;
      return std::isfinite(t.speedup) ? QString::fromStdString(format_ratio(t.speedup))
                                      : QString();
    }
    if (column == boundColumn(g)) return QString::fromStdString(t.bound_by);
  }
  if (column == movedColumn()) {
    // As the CLI writes it: the move alone for two graphs, "B: ...; C: ..." for more.
    QStringList moves;
    for (int g = 1; g < graphs; ++g) {
      const std::string& moved = on[static_cast<size_t>(g)].bound_moved;
      if (moved.empty()) continue;
      moves << (graphs > 2 ? QString::fromStdString(
                                 comparison_.graphs[static_cast<size_t>(g)].label + ": " + moved)
                           : QString::fromStdString(moved));
    }
    return moves.join("; ");
  }
  return {};
}

}  // namespace ts::views
