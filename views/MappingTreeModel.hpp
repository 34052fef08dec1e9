#pragma once
// One operator's tile-centric mapping tree as the analysis sees it (what `predict --explain`
// prints): per node its loops, buffer footprint against the memory's capacity, iterations,
// time, the per-iteration load / child / store split and what bounds it. When the mapping is
// invalid on the shown graph (a buffer that no longer fits), the failing node is marked and
// carries the reason.
#include <QAbstractItemModel>
#include <memory>

#include "mapper/OperatorEvaluation.hpp"

namespace ts::views {

class MappingTreeModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Column { kNode, kLoops, kFootprint, kIterations, kTime, kSplit, kBoundBy, kColumnCount };
  static constexpr int FailingRole = Qt::UserRole;  // true on the node that makes it invalid

  explicit MappingTreeModel(QObject* parent = nullptr);

  // Keeps the operator and graph alive as long as the evaluation that points into them.
  void setEvaluation(std::shared_ptr<const void> keep_alive, MappingEvaluation evaluation);
  void clear();
  const MappingEvaluation& evaluation() const { return evaluation_; }
  // The row of the program node that fails, or an invalid index.
  QModelIndex failingIndex() const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  int nodeOf(const QModelIndex& index) const;  // program node id, -1 for the root
  QModelIndex indexOfNode(int node, int column) const;
  QString text(int node, int column) const;
  std::shared_ptr<const void> keep_alive_;
  MappingEvaluation evaluation_;
};

}  // namespace ts::views
