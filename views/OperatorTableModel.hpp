#pragma once
// The operators of the open suite, one row each: the prediction before any edit, the prediction
// of the same (fixed) mapping on the edited graph, the mapper's new choice (or "pending" while it
// runs), what bounds each, and the measurement when a results database is open. Sort on
// SortRole: numbers sort as numbers.
#include <QAbstractTableModel>
#include <optional>
#include <vector>

#include "mapper/OperatorEvaluation.hpp"
#include "measure/MeasurementRecord.hpp"

namespace ts::views {

struct OperatorRow {
  QString name, type, op_class, shape;
  std::optional<OperatorOutcome> baseline;  // the mapper on the graph as loaded
  std::optional<OperatorOutcome> fixed;     // the baseline mapping on the edited graph
  std::optional<OperatorOutcome> remapped;  // the mapper on the edited graph
  bool remap_pending = false;
  bool remap_cancelled = false;  // the mapper was stopped before this row's new choice came in
  std::optional<double> measured_s;
  TimingScope scope = TimingScope::device;
};

class OperatorTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kOperator,
    kClass,
    kShape,
    kLatency,  // fixed mapping on the current graph, us
    kBoundBy,  // of the above
    kBefore,   // baseline, us
    kChange,   // fixed vs baseline, %
    kBoundBefore,
    kRemapped,  // mapper on the current graph, us
    kMeasured,  // us
    kError,     // (predicted - measured) / measured, %
    // Of the current mapping on the current graph, J, where the graph prices everything it
    // does (docs/energy.md); its tooltip breaks it down per node.
    kEnergy,
    kColumnCount
  };
  static constexpr int SortRole = Qt::UserRole;
  // "computing", "fixed", "pending", "cancelled", "remapped"
  static constexpr int StatusRole = Qt::UserRole + 1;

  explicit OperatorTableModel(QObject* parent = nullptr);

  void setRows(std::vector<OperatorRow> rows);
  const OperatorRow& row(int index) const { return rows_[static_cast<size_t>(index)]; }
  int findOperator(const QString& name, const QString& shape = {}) const;  // -1 when absent

  // The first result for an operator: before and after are the same until an edit.
  void setBaseline(int index, const OperatorOutcome& outcome);
  void setFixed(int index, const OperatorOutcome& outcome);
  void setRemapPending();
  void setRemapCancelled();  // the rows still pending: their re-mapping was stopped
  void setRemapped(int index, const OperatorOutcome& outcome);
  void setMeasured(int index, std::optional<double> measured_s, TimingScope scope);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  void changed(int index);
  std::vector<OperatorRow> rows_;
};

}  // namespace ts::views
