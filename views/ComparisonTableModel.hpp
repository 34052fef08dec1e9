#pragma once
// An ArchitectureComparison as a table, the columns of `tilescope compare`'s table: operator,
// shape, the time on each graph, the speed-up of each graph after the first over the first, the
// bound on each graph and where it moved; one row per operator in the workload's order, then
// the total. Times and speed-ups are written with format_quantity (three significant figures);
// SortRole holds the numbers themselves.
#include <QAbstractTableModel>

#include "report/ArchitectureComparison.hpp"

namespace ts::views {

class ComparisonTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  static constexpr int SortRole = Qt::UserRole;

  explicit ComparisonTableModel(QObject* parent = nullptr);

  void setComparison(ArchitectureComparison comparison);
  const ArchitectureComparison& comparison() const { return comparison_; }
  int graphCount() const { return static_cast<int>(comparison_.graphs.size()); }
  // Columns: 0 operator, 1 shape, then timeColumn(g), speedupColumn(g >= 1), boundColumn(g),
  // and the last one, where the bound moved.
  int timeColumn(int graph) const { return 2 + graph; }
  int speedupColumn(int graph) const { return 2 + graphCount() + graph - 1; }
  int boundColumn(int graph) const { return 1 + 2 * graphCount() + graph; }
  int movedColumn() const { return 1 + 3 * graphCount(); }
  int totalRow() const { return static_cast<int>(comparison_.operators.size()); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  ArchitectureComparison comparison_;
};

}  // namespace ts::views
