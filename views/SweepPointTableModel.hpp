#pragma once
// A digested sweep's points as a table (the GUI's Sweep page): one column per varied parameter
// in its unit ("256 KiB", "1.6 TB/s"; a strategy grid's schedule and cluster as names), the
// suite time in us, the cost on the Pareto figure's axis, whether the point is on the front, and
// why a point has no time (no valid mapping) or fits no device (out of memory). One row per
// point in the store's order (by parameters); SortRole holds the numbers themselves.
#include <QAbstractTableModel>
#include <set>
#include <string>

#include "sweep/SweepDigest.hpp"

namespace ts::views {

class SweepPointTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole;

  explicit SweepPointTableModel(QObject* parent = nullptr);

  // `cost_label` and `cost_unit`: the Pareto figure's (sweep_pareto_data), so that the table
  // and the figure say the same numbers.
  void setSweep(SweepDigest digest, const QString& cost_label, double cost_unit);
  const SweepDigest& sweep() const { return digest_; }
  // Columns: the varied parameters (0 .. paths - 1), then these.
  int timeColumn() const { return static_cast<int>(digest_.paths.size()); }
  int costColumn() const { return timeColumn() + 1; }
  int frontColumn() const { return timeColumn() + 2; }
  int noteColumn() const { return timeColumn() + 3; }
  bool onFront(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  SweepDigest digest_;
  QString cost_label_;
  double cost_unit_ = 1;
  std::set<std::string> front_;  // parameters_json of the front's points (unique in a sweep)
  // Per point: each varied parameter's value (a number, or a name as a QString).
  std::vector<std::vector<QVariant>> values_;
};

}  // namespace ts::views
