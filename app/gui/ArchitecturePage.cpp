#include "ArchitecturePage.hpp"

#include <QAction>
#include <QLabel>
#include <QSplitter>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

#include "WhatIfSession.hpp"
#include "views/ArchitectureInspector.hpp"
#include "views/ArchitectureView.hpp"

namespace ts::gui {

ArchitecturePage::ArchitecturePage(WhatIfSession* session, QWidget* parent)
    : QWidget(parent),
      session_(session),
      empty_(new QLabel),
      tools_(new QToolBar),
      split_(new QSplitter),
      view_(new views::ArchitectureView),
      inspector_(new views::ArchitectureInspector) {
  auto* layout = new QVBoxLayout(this);
  auto* tools = tools_;
  empty_->setObjectName("emptyState");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignCenter);
  empty_->setText(
      tr("No architecture graph open. File > Open an architecture (kind: architecture, such "
         "as samples/arch/nvidia-h100.yaml), File > Open profile, or drop a file here: its "
         "memories, compute units and links are drawn here, and the inspector edits them."));
  layout->addWidget(empty_, 1);
  tools->addAction(tr("Zoom in"), this, [this] { view_->zoomBy(1.25); });
  tools->addAction(tr("Zoom out"), this, [this] { view_->zoomBy(0.8); });
  tools->addAction(tr("Fit"), this, [this] { view_->fitAll(); });
  tools->addSeparator();
  QAction* undo = session->undoStack()->createUndoAction(this, tr("Undo"));
  QAction* redo = session->undoStack()->createRedoAction(this, tr("Redo"));
  tools->addAction(undo);
  tools->addAction(redo);
  layout->addWidget(tools);
  auto* split = split_;
  split->addWidget(view_);
  split->addWidget(inspector_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);

  auto show_graph = [this] {
    if (!session_->graph()) return;
    view_->setGraph(*session_->graph());
    inspector_->setGraph(session_->graph().get(), session_->baselineGraph().get());
  };
  connect(session, &WhatIfSession::architectureReplaced, this, [this, show_graph] {
    show_graph();
    view_->fitAll();
    updateEmptyState();
  });
  connect(session, &WhatIfSession::architectureEdited, this, [this] {
    view_->setGraph(*session_->graph());
    inspector_->setGraph(session_->graph().get(), session_->baselineGraph().get());
  });
  connect(view_, &views::ArchitectureView::nodeSelected, inspector_,
          &views::ArchitectureInspector::showNode);
  connect(view_, &views::ArchitectureView::edgeSelected, inspector_,
          &views::ArchitectureInspector::showEdge);
  connect(view_, &views::ArchitectureView::selectionCleared, inspector_,
          &views::ArchitectureInspector::showGraph);
  connect(inspector_, &views::ArchitectureInspector::parameterEdited, session,
          &WhatIfSession::editParameter);
  show_graph();
  updateEmptyState();
}

void ArchitecturePage::updateEmptyState() {
  const bool empty = !session_->graph();
  empty_->setVisible(empty);
  tools_->setVisible(!empty);
  split_->setVisible(!empty);
}

void ArchitecturePage::showEnergy(const EnergyReport& energy) {
  std::vector<std::pair<std::string, double>> shares;
  if (energy.known && energy.total_j > 0)
    for (const NodeEnergy& n : energy.nodes)
      shares.emplace_back(n.name, n.total_j() / energy.total_j);
  view_->architectureScene()->setEnergyShares(shares);
}

void ArchitecturePage::showBound(const QString& bound_by) {
  view_->architectureScene()->setBottlenecks({bound_by.toStdString()});
}

}  // namespace ts::gui
