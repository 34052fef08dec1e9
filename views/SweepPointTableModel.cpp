#include "views/SweepPointTableModel.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "arch/ArchitectureParameterPath.hpp"
#include "sweep/StrategyGrid.hpp"

namespace ts::views {
namespace {

bool has_time(const SweepPointRecord& p) { return std::isfinite(p.total_s) && p.total_s > 0; }

// Why a point has no time: the first operator that took forever says (its bound_by).
QString no_time_reason(const SweepPointRecord& p) {
  for (const SweepOperatorTime& op : p.operators)
    if (!std::isfinite(op.device_s)) return QString::fromStdString(op.name + ": " + op.bound_by);
  return QStringLiteral("no time");
}

}  // namespace

SweepPointTableModel::SweepPointTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void SweepPointTableModel::setSweep(SweepDigest digest, const QString& cost_label,
                                    double cost_unit) {
  beginResetModel();
  digest_ = std::move(digest);
  cost_label_ = cost_label;
  cost_unit_ = cost_unit;
  front_.clear();
  for (const SweepPointRecord& p : digest_.front) front_.insert(p.parameters_json);
  values_.clear();
  values_.reserve(digest_.points.size());
  for (const SweepPointRecord& p : digest_.points) {
    const nlohmann::json parameters = nlohmann::json::parse(p.parameters_json);
    std::vector<QVariant> row;
    for (const std::string& path : digest_.paths) {
      const auto it = parameters.find(path);
      if (it == parameters.end())
        row.emplace_back();
      else if (it->is_number())
        row.emplace_back(it->get<double>());
      else
        row.emplace_back(
            QString::fromStdString(it->is_string() ? it->get<std::string>() : it->dump()));
    }
    values_.push_back(std::move(row));
  }
  endResetModel();
}

bool SweepPointTableModel::onFront(int row) const {
  return row >= 0 && row < rowCount() &&
         front_.count(digest_.points[static_cast<size_t>(row)].parameters_json) > 0;
}

int SweepPointTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(digest_.points.size());
}

int SweepPointTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : noteColumn() + 1;
}

QVariant SweepPointTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || (role != Qt::DisplayRole && role != SortRole)) return {};
  const bool numeric = role == SortRole;
  const auto row = static_cast<size_t>(index.row());
  const SweepPointRecord& p = digest_.points[row];
  const int column = index.column();
  if (column < timeColumn()) {
    const QVariant& v = values_[row][static_cast<size_t>(column)];
    if (numeric || v.typeId() != QMetaType::Double) return v;
    // In the parameter's unit ("256 KiB"); a strategy grid's keys are plain numbers.
    return QString::fromStdString(
        format_parameter(digest_.paths[static_cast<size_t>(column)], v.toDouble()));
  }
  if (column == timeColumn()) {
    if (numeric) return has_time(p) ? p.total_s * 1e6 : HUGE_VAL;  // no time sorts last
    return has_time(p) ? QString::number(p.total_s * 1e6, 'f', 3) : QStringLiteral("-");
  }
  if (column == costColumn())
    return numeric ? QVariant(p.cost / cost_unit_)
                   : QVariant(QString::number(p.cost / cost_unit_, 'f', 3));
  const bool front = front_.count(p.parameters_json) > 0;
  if (column == frontColumn())
    return numeric ? QVariant(front ? 0 : 1) : QVariant(front ? "yes" : "no");
  if (!has_time(p)) return no_time_reason(p);
  if (digest_.strategy_grid && strategy_point_out_of_memory(p))
    return QString::fromStdString(p.operators.front().bound_by);  // "out of memory: ..."
  return QString();
}

QVariant SweepPointTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section < timeColumn())
    return QString::fromStdString(digest_.paths[static_cast<size_t>(section)]);
  if (section == timeColumn())
    return digest_.strategy_grid ? tr("iteration time (us)") : tr("suite time (us)");
  if (section == costColumn()) return cost_label_;
  if (section == frontColumn()) return tr("Pareto front");
  return tr("note");
}

}  // namespace ts::views
