#include "OperatorsPage.hpp"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <vector>

#include "WhatIfSession.hpp"
#include "analysis/TimePerToken.hpp"
#include "common/QuantityFormat.hpp"

namespace ts::gui {

OperatorsPage::OperatorsPage(WhatIfSession* session, QWidget* parent)
    : QWidget(parent),
      session_(session),
      empty_(new QLabel),
      filter_(new QLineEdit),
      summary_(new QLabel),
      proxy_(new QSortFilterProxyModel(this)),
      table_(new QTableView) {
  auto* layout = new QVBoxLayout(this);
  empty_->setObjectName("emptyState");
  summary_->setObjectName("operatorsSummary");
  empty_->setWordWrap(true);
  layout->addWidget(empty_);
  filter_->setPlaceholderText(tr("Filter operators (name, class, shape, bound)…"));
  filter_->setClearButtonEnabled(true);
  layout->addWidget(filter_);
  layout->addWidget(table_, 1);
  layout->addWidget(summary_);
  proxy_->setSourceModel(session->operators());
  proxy_->setSortRole(views::OperatorTableModel::SortRole);
  proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
  proxy_->setFilterKeyColumn(-1);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(-1, Qt::AscendingOrder);  // suite order until a header is clicked
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setAlternatingRowColors(true);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) Q_EMIT operatorChosen(proxy_->mapToSource(current).row());
          });
  auto* model = session->operators();
  connect(model, &QAbstractItemModel::dataChanged, this, &OperatorsPage::updateSummary);
  connect(model, &QAbstractItemModel::modelReset, this, &OperatorsPage::updateSummary);
  connect(model, &QAbstractItemModel::modelReset, table_,
          [this] { table_->resizeColumnsToContents(); });
  connect(model, &QAbstractItemModel::modelReset, this, &OperatorsPage::updateEmptyState);
  // Columns sized to what they hold once the predictions are in: "bound by" neither wraps
  // ("edge:HBM-\n>L2") nor is cut while the shape column takes the width.
  table_->setWordWrap(false);
  table_->setTextElideMode(Qt::ElideMiddle);
  connect(session, &WhatIfSession::baselineReady, table_,
          [this] { table_->resizeColumnsToContents(); });
  connect(session, &WhatIfSession::fixedReady, table_,
          [this] { table_->resizeColumnsToContents(); });
  connect(session, &WhatIfSession::architectureReplaced, this, &OperatorsPage::updateEmptyState);
  updateSummary();
  updateEmptyState();
}

void OperatorsPage::updateEmptyState() {
  QString text;
  if (!session_->workload())
    text =
        tr("No workload open. File > Open a workload (kind: workload, such as "
           "samples/workloads/bert-base.yaml), or drop one here: its operators are listed "
           "here with their predicted times.");
  else if (!session_->graph())
    text =
        tr("No architecture graph open: the operators are predicted on one. File > Open an "
           "architecture (kind: architecture) or File > Open profile.");
  empty_->setText(text);
  empty_->setVisible(!text.isEmpty());
  table_->setVisible(session_->workload() != nullptr);
  filter_->setVisible(session_->workload() != nullptr);
}

void OperatorsPage::selectRow(int source_row) {
  const QModelIndex index = proxy_->mapFromSource(session_->operators()->index(source_row, 0));
  if (!index.isValid()) return;
  table_->selectionModel()->setCurrentIndex(
      index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  table_->scrollTo(index);
}

int OperatorsPage::currentRow() const {
  const QModelIndex current = table_->selectionModel()->currentIndex();
  return current.isValid() ? proxy_->mapToSource(current).row() : -1;
}

void OperatorsPage::updateSummary() {
  const auto* model = session_->operators();
  double before = 0, now = 0;
  int done = 0, pending = 0, changed_bound = 0;
  for (int i = 0; i < model->rowCount(); ++i) {
    const auto& r = model->row(i);
    if (r.remap_pending) ++pending;
    if (!r.baseline || !r.baseline->ok || !r.fixed || !r.fixed->ok) continue;
    ++done;
    before += r.baseline->prediction.device_us;
    now += r.fixed->prediction.device_us;
    if (r.baseline->device_bound != r.fixed->device_bound) ++changed_bound;
  }
  const auto time = [](double us) {
    return QString::fromStdString(format_quantity(us * 1e-6, "s"));
  };
  QString text = tr("%1 of %2 operators predicted; device time %3")
                     .arg(done)
                     .arg(model->rowCount())
                     .arg(time(now));
  if (std::abs(now - before) > 1e-9)
    text += tr(" (before the edits %1, %2 %; %3 changed what bounds them)")
                .arg(time(before))
                .arg((now / before - 1) * 100, 0, 'f', 1)
                .arg(changed_bound);
  if (pending > 0) text += tr("; re-mapping %1 pending").arg(pending);
  // A decode step, once every operator is in: its time per token, as predict prints it.
  const auto workload = session_->workload();
  const auto graph = session_->graph();
  if (workload && graph && done == model->rowCount() &&
      workload->operators.size() == static_cast<size_t>(done)) {
    std::vector<Prediction> predictions;
    for (int i = 0; i < model->rowCount(); ++i)
      predictions.push_back(model->row(i).fixed->prediction);
    if (const auto pass = decode_step(*workload, predictions, *graph))
      text += tr("; time per token %1").arg(QString::fromStdString(time_per_token_text(*pass)));
  }
  summary_->setText(text);
}

}  // namespace ts::gui
