#include "views/OperatorTableModel.hpp"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QObject>
#include <QStringList>
#include <algorithm>

#include "common/QuantityFormat.hpp"
#include "measure/ComparedTime.hpp"

namespace ts::views {
namespace {

double device_us(const OperatorOutcome& o) { return o.prediction.device_us; }

// Three significant figures with the unit's prefix ("12.3 us", "1.46 ms"), as every face writes a
// time; sorting reads the number itself (SortRole), not this text.
QString us_text(double us) { return QString::fromStdString(format_quantity(us * 1e-6, "s")); }

// Each node's share, largest first, or what the graph does not price.
QString energy_tooltip(const EnergyReport& e) {
  QStringList lines;
  if (!e.known) {
    if (e.unpriced.empty())
      return QObject::tr("energy unknown: the graph gives no energy figures (docs/energy.md)");
    lines << QObject::tr("energy unknown:");
    for (const std::string& u : e.unpriced) lines << QString::fromStdString(u);
    return lines.join('\n');
  }
  std::vector<NodeEnergy> nodes = e.nodes;
  std::sort(nodes.begin(), nodes.end(),
            [](const NodeEnergy& a, const NodeEnergy& b) { return a.total_j() > b.total_j(); });
  for (const NodeEnergy& n : nodes)
    lines << QString("%1  %2 (%3 %)")
                 .arg(QString::fromStdString(n.name),
                      QString::fromStdString(format_quantity(n.total_j(), "J")))
                 .arg(e.total_j > 0 ? n.total_j() / e.total_j * 100 : 0.0, 0, 'f', 1);
  if (e.edges_j > 0)
    lines << QObject::tr("edges  %1").arg(QString::fromStdString(format_quantity(e.edges_j, "J")));
  return lines.join('\n');
}

}  // namespace

OperatorTableModel::OperatorTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void OperatorTableModel::setRows(std::vector<OperatorRow> rows) {
  beginResetModel();
  rows_ = std::move(rows);
  endResetModel();
}

int OperatorTableModel::findOperator(const QString& name, const QString& shape) const {
  for (size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].name == name && (shape.isEmpty() || rows_[i].shape == shape))
      return static_cast<int>(i);
  return -1;
}

void OperatorTableModel::changed(int index) {
  Q_EMIT dataChanged(this->index(index, 0), this->index(index, kColumnCount - 1));
}

void OperatorTableModel::setBaseline(int index, const OperatorOutcome& outcome) {
  OperatorRow& r = rows_.at(static_cast<size_t>(index));
  r.baseline = r.fixed = r.remapped = outcome;
  r.remap_pending = r.remap_cancelled = false;
  changed(index);
}

void OperatorTableModel::setFixed(int index, const OperatorOutcome& outcome) {
  rows_.at(static_cast<size_t>(index)).fixed = outcome;
  changed(index);
}

void OperatorTableModel::setRemapPending() {
  for (auto& r : rows_) {
    r.remap_pending = true;
    r.remap_cancelled = false;
  }
  if (!rows_.empty()) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, kColumnCount - 1));
}

void OperatorTableModel::setRemapCancelled() {
  for (size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].remap_pending) {
      rows_[i].remap_pending = false;
      rows_[i].remap_cancelled = true;
      changed(static_cast<int>(i));
    }
}

void OperatorTableModel::setRemapped(int index, const OperatorOutcome& outcome) {
  OperatorRow& r = rows_.at(static_cast<size_t>(index));
  r.remapped = outcome;
  r.remap_pending = r.remap_cancelled = false;
  changed(index);
}

void OperatorTableModel::setMeasured(int index, std::optional<double> measured_s,
                                     TimingScope scope) {
  OperatorRow& r = rows_.at(static_cast<size_t>(index));
  r.measured_s = measured_s;
  r.scope = scope;
  changed(index);
}

int OperatorTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int OperatorTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant OperatorTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal)
    return QAbstractTableModel::headerData(section, orientation, role);
  if (role == Qt::DisplayRole) {
    switch (section) {
      case kOperator:
        return tr("operator");
      case kClass:
        return tr("class");
      case kShape:
        return tr("shape");
      case kLatency:
        return tr("latency");
      case kBoundBy:
        return tr("bound by");
      case kBefore:
        return tr("before");
      case kChange:
        return tr("change");
      case kBoundBefore:
        return tr("bound before");
      case kRemapped:
        return tr("re-mapped");
      case kMeasured:
        return tr("measured");
      case kError:
        return tr("error");
      case kEnergy:
        return tr("energy");
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case kLatency:
        return tr("device time of the current mapping on the current (edited) graph");
      case kBefore:
        return tr("device time on the graph as loaded");
      case kRemapped:
        return tr(
            "device time of the mapper's new choice on the edited graph; "
            "'pending' while the mapper runs, 'cancelled' when it was stopped");
      case kMeasured:
        return tr("median measured latency from the open results database");
      case kError:
        return tr(
            "(predicted - measured) / measured; host-timed measurements are compared with "
            "device time plus launch overhead");
      case kEnergy:
        return tr(
            "energy of the current mapping on the current graph (reads, fills, updates, "
            "operations, leakage); 'unknown' where the graph does not price everything it "
            "does; hover a row for the energy per node");
    }
  }
  return {};
}

QVariant OperatorTableModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const OperatorRow& r = rows_[static_cast<size_t>(index.row())];
  const OperatorOutcome* now = r.fixed && r.fixed->ok ? &*r.fixed : nullptr;
  const OperatorOutcome* before = r.baseline && r.baseline->ok ? &*r.baseline : nullptr;
  const OperatorOutcome* remapped = r.remapped && r.remapped->ok ? &*r.remapped : nullptr;
  const bool numeric = role == SortRole;
  if (role != Qt::DisplayRole && !numeric && role != Qt::ToolTipRole &&
      role != Qt::ForegroundRole && role != Qt::FontRole && role != Qt::TextAlignmentRole &&
      role != StatusRole)
    return {};
  if (role == StatusRole) {
    if (r.remap_pending) return QStringLiteral("pending");
    if (r.remap_cancelled) return QStringLiteral("cancelled");
    if (!r.baseline) return QStringLiteral("computing");
    return r.remapped && r.fixed && r.remapped->mapping_yaml != r.baseline->mapping_yaml
               ? QStringLiteral("remapped")
               : QStringLiteral("fixed");
  }
  if (role == Qt::TextAlignmentRole)
    return index.column() >= kLatency && index.column() != kBoundBy &&
                   index.column() != kBoundBefore
               ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
               : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
  const double change =
      now && before && device_us(*before) > 0 ? device_us(*now) / device_us(*before) - 1 : 0;
  const std::optional<double> error =
      now && r.measured_s && *r.measured_s > 0
          ? std::optional(compared_us(now->prediction, r.scope) / (*r.measured_s * 1e6) - 1)
          : std::nullopt;
  if (role == Qt::ForegroundRole) {
    if (r.fixed && !r.fixed->ok) return QBrush(QColor(220, 50, 47));
    if (index.column() == kChange && std::abs(change) > 1e-3)
      return QBrush(change < 0 ? QColor(40, 160, 60) : QColor(220, 50, 47));
    return {};
  }
  if (role == Qt::FontRole) {
    QFont font;
    if (index.column() == kBoundBy && now && before && now->device_bound != before->device_bound)
      font.setBold(true);  // what bounds the operator changed with the edit
    if (index.column() == kRemapped && (r.remap_pending || r.remap_cancelled)) font.setItalic(true);
    return font;
  }
  if (role == Qt::ToolTipRole && index.column() == kEnergy && now)
    return energy_tooltip(now->prediction.energy);
  if (role == Qt::ToolTipRole) {
    if (r.fixed && !r.fixed->ok) return QString::fromStdString(r.fixed->error);
    if (r.baseline && !r.baseline->ok) return QString::fromStdString(r.baseline->error);
    if (now)
      return tr("%1 (%2), mapping: %3, utilisation %4 %")
          .arg(r.name, r.shape, QString::fromStdString(now->prediction.mapping_origin))
          .arg(now->prediction.utilization * 100, 0, 'f', 1);
    return {};
  }
  switch (index.column()) {
    case kOperator:
      return r.name;
    case kClass:
      return r.op_class;
    case kShape:
      return r.shape;
    case kLatency:
      if (now) return numeric ? QVariant(device_us(*now)) : QVariant(us_text(device_us(*now)));
      if (r.fixed) return numeric ? QVariant(1e300) : QVariant(tr("invalid"));
      return numeric ? QVariant(-1.0) : QVariant(tr("…"));
    case kBoundBy:
      return now ? QString::fromStdString(now->prediction.bound_by) : QString();
    case kBefore:
      if (before)
        return numeric ? QVariant(device_us(*before)) : QVariant(us_text(device_us(*before)));
      return numeric ? QVariant(-1.0) : QVariant(r.baseline ? tr("failed") : tr("…"));
    case kChange:
      if (!now || !before) return numeric ? QVariant(0.0) : QVariant();
      return numeric ? QVariant(change) : QVariant(QString::asprintf("%+.1f %%", change * 100));
    case kBoundBefore:
      return before ? QString::fromStdString(before->prediction.bound_by) : QString();
    case kRemapped:
      if (r.remap_pending) return numeric ? QVariant(-1.0) : QVariant(tr("pending"));
      if (r.remap_cancelled) return numeric ? QVariant(-1.0) : QVariant(tr("cancelled"));
      if (remapped)
        return numeric ? QVariant(device_us(*remapped)) : QVariant(us_text(device_us(*remapped)));
      return numeric ? QVariant(-1.0) : QVariant();
    case kMeasured:
      if (!r.measured_s) return numeric ? QVariant(-1.0) : QVariant();
      return numeric ? QVariant(*r.measured_s * 1e6) : QVariant(us_text(*r.measured_s * 1e6));
    case kError:
      if (!error) return numeric ? QVariant(-1e300) : QVariant();
      return numeric ? QVariant(*error) : QVariant(QString::asprintf("%+.1f %%", *error * 100));
    case kEnergy:
      if (!now || !now->prediction.energy.known)
        return numeric ? QVariant(-1.0) : QVariant(now ? tr("unknown") : QString());
      return numeric ? QVariant(now->prediction.energy.total_j)
                     : QVariant(QString::fromStdString(
                           format_quantity(now->prediction.energy.total_j, "J")));
  }
  return {};
}

}  // namespace ts::views
