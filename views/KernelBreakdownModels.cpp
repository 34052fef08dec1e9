#include "views/KernelBreakdownModels.hpp"

#include "common/QuantityFormat.hpp"

namespace ts::views {

QString trace_time_text(int64_t ns) {
  return QString::fromStdString(format_quantity(static_cast<double>(ns) * 1e-9, "s"));
}

QString share_text(int64_t part, int64_t whole) {
  if (whole <= 0) return QStringLiteral("-");
  return QStringLiteral("%1 %").arg(100.0 * static_cast<double>(part) / static_cast<double>(whole),
                                    0, 'f', 1);
}

void KernelTimeTableModel::setBreakdown(KernelBreakdown breakdown) {
  beginResetModel();
  breakdown_ = std::move(breakdown);
  endResetModel();
}

int KernelTimeTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(breakdown_.kernels.size());
}

int KernelTimeTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant KernelTimeTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const KernelTime& k = breakdown_.kernels[static_cast<size_t>(index.row())];
  const int64_t whole = breakdown_.total_ns();
  if (role == Qt::DisplayRole) switch (index.column()) {
      case kName:
        return QString::fromStdString(k.name);
      case kClass:
        return QString::fromStdString(std::string(to_string(k.time_class)));
      case kCount:
        return QString::number(k.count);
      case kTotal:
        return trace_time_text(k.total_ns);
      case kShare:
        return share_text(k.total_ns, whole);
    }
  if (role == kSortRole) switch (index.column()) {
      case kName:
        return QString::fromStdString(k.name);
      case kClass:
        return QString::fromStdString(std::string(to_string(k.time_class)));
      case kCount:
        return static_cast<qlonglong>(k.count);
      default:
        return static_cast<qlonglong>(k.total_ns);
    }
  if (role == Qt::ToolTipRole && index.column() == kName) {
    // Kernel names of templates run to hundreds of characters: the whole of it on hover.
    return QStringLiteral("%1\n%2 of GPU work, min %3, max %4")
        .arg(QString::fromStdString(k.name), QString::fromStdString(std::string(to_string(k.kind))),
             trace_time_text(k.min_ns), trace_time_text(k.max_ns));
  }
  if (role == Qt::TextAlignmentRole && index.column() >= kCount)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant KernelTimeTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"kernel", "class", "count", "total", "share"};
  return section >= 0 && section < kColumns ? tr(names[section]) : QVariant();
}

void OperatorGpuTimeTableModel::setBreakdown(KernelBreakdown breakdown) {
  beginResetModel();
  breakdown_ = std::move(breakdown);
  endResetModel();
}

int OperatorGpuTimeTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(breakdown_.operators.size());
}

int OperatorGpuTimeTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumns;
}

QVariant OperatorGpuTimeTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const OperatorGpuTime& o = breakdown_.operators[static_cast<size_t>(index.row())];
  if (role == Qt::DisplayRole) switch (index.column()) {
      case kName:
        return QString::fromStdString(o.name);
      case kKernels:
        return QString::number(o.kernels);
      case kTotal:
        return trace_time_text(o.total_ns);
      case kShare:
        return share_text(o.total_ns, breakdown_.total_ns());
    }
  if (role == kSortRole) switch (index.column()) {
      case kName:
        return QString::fromStdString(o.name);
      case kKernels:
        return static_cast<qlonglong>(o.kernels);
      default:
        return static_cast<qlonglong>(o.total_ns);
    }
  if (role == Qt::TextAlignmentRole && index.column() >= kKernels)
    return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant OperatorGpuTimeTableModel::headerData(int section, Qt::Orientation orientation,
                                               int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"launching operator", "GPU activities", "total", "share"};
  return section >= 0 && section < kColumns ? tr(names[section]) : QVariant();
}

}  // namespace ts::views
