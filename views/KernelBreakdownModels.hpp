#pragma once
// A rank's kernel breakdown (trace/TraceBreakdown.hpp) as two tables: its GPU work by name
// (kernel, class, count, total, share of the rank's GPU time) and by the CPU operator that
// launched it. Qt::DisplayRole is the text the CLI prints (three significant figures),
// kSortRole the number to sort on, so that a proxy sorts 9.5 us below 41 us.
#include <QAbstractTableModel>

#include "trace/TraceBreakdown.hpp"

namespace ts::views {

inline constexpr int kSortRole = Qt::UserRole + 1;

class KernelTimeTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kName, kClass, kCount, kTotal, kShare, kColumns };
  using QAbstractTableModel::QAbstractTableModel;
  void setBreakdown(KernelBreakdown breakdown);
  const KernelBreakdown& breakdown() const { return breakdown_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  KernelBreakdown breakdown_;
};

class OperatorGpuTimeTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kName, kKernels, kTotal, kShare, kColumns };
  using QAbstractTableModel::QAbstractTableModel;
  void setBreakdown(KernelBreakdown breakdown);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  KernelBreakdown breakdown_;
};

// "12.3 us", as the CLI writes a time; and a part of a whole as "41.2 %" ("-" of nothing).
QString trace_time_text(int64_t ns);
QString share_text(int64_t part, int64_t whole);

}  // namespace ts::views
