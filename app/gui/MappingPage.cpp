#include "MappingPage.hpp"

#include <QCheckBox>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>

#include "WhatIfSession.hpp"
#include "analysis/Prediction.hpp"
#include "common/ByteFormat.hpp"
#include "common/QuantityFormat.hpp"
#include "views/MappingTreeModel.hpp"

namespace ts::gui {

MappingPage::MappingPage(WhatIfSession* session, QWidget* parent)
    : QWidget(parent),
      session_(session),
      empty_(new QLabel),
      heading_(new QLabel),
      remapped_(
          new QCheckBox(tr("Show the mapper's new mapping on the edited graph (once "
                           "re-mapped) instead of the mapping chosen on the graph as loaded"))),
      problem_(new QLabel),
      tree_(new QTreeView),
      legend_(new QLabel(
          tr("Loops: M=10/2 means 10 iterations of M (instances, for a spatial loop), 2 on the "
             "last: the tail, as the size is not a multiple of the tile; \"?\" is left to the "
             "mapper. Long cells are cut short: hover one for all of it."))),
      traffic_(new QLabel),
      model_(new views::MappingTreeModel(this)) {
  auto* layout = new QVBoxLayout(this);
  QFont bold = heading_->font();
  bold.setBold(true);
  heading_->setFont(bold);
  heading_->setWordWrap(true);
  problem_->setWordWrap(true);
  problem_->setStyleSheet("color: rgb(220, 50, 47);");
  problem_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  traffic_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  traffic_->setWordWrap(true);
  tree_->setModel(model_);
  tree_->setAlternatingRowColors(true);
  tree_->setUniformRowHeights(true);
  tree_->setTextElideMode(Qt::ElideRight);
  tree_->viewport()->installEventFilter(this);
  legend_->setObjectName("loopsLegend");
  legend_->setWordWrap(true);
  QFont small = legend_->font();
  small.setPointSizeF(small.pointSizeF() * 0.9);
  legend_->setFont(small);
  empty_->setObjectName("emptyState");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignCenter);
  layout->addWidget(empty_, 1);
  layout->addWidget(heading_);
  layout->addWidget(remapped_);
  layout->addWidget(problem_);
  layout->addWidget(tree_, 1);
  layout->addWidget(legend_);
  layout->addWidget(traffic_);
  connect(session, &WhatIfSession::fixedReady, this, &MappingPage::refresh);
  connect(session, &WhatIfSession::baselineReady, this, &MappingPage::refresh);
  connect(session, &WhatIfSession::remapReady, this, &MappingPage::refresh);
  connect(remapped_, &QCheckBox::toggled, this, &MappingPage::refresh);
  showOperator(-1);
}

void MappingPage::showOperator(int row) {
  row_ = row;
  refresh();
}

void MappingPage::refresh() {
  auto [keep, evaluation] = session_->mappingOf(row_, remapped_->isChecked());
  problem_->setText(QString::fromStdString(evaluation.error));
  problem_->setVisible(!evaluation.error.empty());
  const bool empty = row_ < 0 || row_ >= session_->operators()->rowCount();
  empty_->setVisible(empty);
  for (QWidget* w : std::initializer_list<QWidget*>{heading_, remapped_, tree_, legend_, traffic_})
    w->setVisible(!empty);
  if (empty) {
    empty_->setText(
        !session_->workload() || !session_->graph()
            ? tr("No mapping to show: open an architecture graph and a workload (File > Open), "
                 "then select an operator; its mapping tree on the graph is shown here.")
            : tr("Select an operator (Operators or Correlation page) to see its mapping tree: "
                 "loops per memory, footprints against capacity, time and what bounds it."));
    heading_->clear();
    traffic_->clear();
    model_->clear();
    return;
  }
  const auto& r = session_->operators()->row(row_);
  const bool remapped = remapped_->isChecked() && !r.remap_pending && r.remapped && r.remapped->ok;
  heading_->setText(
      remapped ? tr("%1 (%2): the mapper's mapping on the current graph").arg(r.name, r.shape)
               : tr("%1 (%2): the mapper's mapping on the graph as loaded, evaluated on the "
                    "current graph")
                     .arg(r.name, r.shape));
  QStringList lines;
  if (evaluation.program && evaluation.result.valid()) {
    const Prediction p = make_prediction(*evaluation.program, evaluation.result);
    lines << tr("device time %1, bound by %2, utilisation %3 %")
                 .arg(QString::fromStdString(format_quantity(p.device_us * 1e-6, "s")))
                 .arg(QString::fromStdString(p.bound_by))
                 .arg(p.utilization * 100, 0, 'f', 1);
    QStringList traffic, residency;
    for (const auto& t : p.traffic)
      traffic << QString("%1 %2").arg(QString::fromStdString(t.edge),
                                      QString::fromStdString(format_bytes(t.bytes)));
    for (const auto& m : p.residency)
      residency << QString("%1 %2 of %3")
                       .arg(QString::fromStdString(m.memory),
                            QString::fromStdString(format_bytes(m.bytes_per_instance)),
                            QString::fromStdString(format_bytes(m.capacity_bytes)));
    lines << tr("traffic: ") + traffic.join(", ");
    lines << tr("resident per instance: ") + residency.join(", ");
  }
  traffic_->setText(lines.join('\n'));
  model_->setEvaluation(std::move(keep), std::move(evaluation));
  tree_->expandAll();
  content_widths_.clear();
  for (int c = 0; c < model_->columnCount(); ++c) {
    tree_->resizeColumnToContents(c);
    content_widths_.push_back(tree_->columnWidth(c));
  }
  fitColumns();
  if (const QModelIndex failing = model_->failingIndex(); failing.isValid()) {
    tree_->setCurrentIndex(failing);
    tree_->scrollTo(failing);
  }
}

bool MappingPage::eventFilter(QObject* watched, QEvent* event) {
  // The viewport's own size, not the page's: a hidden page's tree gets its size only once shown,
  // after the page's resize event.
  if (watched == tree_->viewport() && event->type() == QEvent::Resize) fitColumns();
  return QWidget::eventFilter(watched, event);
}

void MappingPage::fitColumns() {
  using Model = views::MappingTreeModel;
  if (static_cast<int>(content_widths_.size()) != model_->columnCount()) return;
  const int available = tree_->viewport()->width();
  const auto shrinkable = [](int c) {
    return c == Model::kLoops || c == Model::kFootprint || c == Model::kSplit || c == Model::kNode;
  };
  // A long column keeps at least this much (or its content, when less): enough to recognise it.
  const auto floor_of = [&](int c) {
    return std::min(content_widths_[static_cast<size_t>(c)], 90);
  };
  // The total with the long columns capped at `cap` pixels.
  const auto total = [&](int cap) {
    int sum = 0;
    for (int c = 0; c < model_->columnCount(); ++c) {
      const int w = content_widths_[static_cast<size_t>(c)];
      sum += shrinkable(c) ? std::max(std::min(w, cap), floor_of(c)) : w;
    }
    return sum;
  };
  // The widest cap that fits, found by halving (widths are a few thousand pixels at most).
  int low = 0, high = *std::max_element(content_widths_.begin(), content_widths_.end());
  while (low < high) {
    const int mid = (low + high + 1) / 2;
    if (total(mid) <= available)
      low = mid;
    else
      high = mid - 1;
  }
  for (int c = 0; c < model_->columnCount(); ++c) {
    const int w = content_widths_[static_cast<size_t>(c)];
    tree_->setColumnWidth(c, shrinkable(c) ? std::max(std::min(w, low), floor_of(c)) : w);
  }
}

}  // namespace ts::gui
