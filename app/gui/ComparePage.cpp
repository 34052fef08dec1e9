#include "ComparePage.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

#include "ComparisonRunner.hpp"
#include "TableExport.hpp"
#include "WhatIfSession.hpp"
#include "common/AtomicFile.hpp"
#include "profile/ProfileRegistry.hpp"
#include "report/ComparisonExport.hpp"
#include "views/ComparisonBars.hpp"
#include "views/ComparisonTableModel.hpp"
#include "views/PlotExport.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace ts::gui {
namespace {

// The table's last row, the totals, alone: shown above the bars and the operators, where it is
// read first, rather than below a workload's worth of rows.
class TotalRowOnly : public QSortFilterProxyModel {
 public:
  using QSortFilterProxyModel::QSortFilterProxyModel;

 protected:
  bool filterAcceptsRow(int row, const QModelIndex& parent) const override {
    return !parent.isValid() && row == sourceModel()->rowCount() - 1;
  }
};

}  // namespace

ComparePage::ComparePage(WhatIfSession* session, QWidget* parent)
    : QWidget(parent),
      session_(session),
      runner_(new ComparisonRunner(session, this)),
      graphs_(new QLabel),
      empty_(new QLabel),
      note_(new QLabel),
      split_(new QSplitter(Qt::Vertical)),
      plot_(new QCustomPlot),
      table_(new QTableView),
      totals_(new QTableView),
      model_(new views::ComparisonTableModel(this)),
      profiles_(new QMenu(tr("Add profile"), this)),
      remove_(new QMenu(tr("Remove"), this)),
      progress_(new QProgressBar),
      cancel_(new QPushButton(tr("Cancel"))),
      kind_(new QComboBox) {
  auto* layout = new QVBoxLayout(this);
  auto* tools = new QToolBar;
  tools->addAction(tr("Add graph…"), this, [this] {
    const QStringList files =
        QFileDialog::getOpenFileNames(this, tr("Add graphs to compare"), QString(),
                                      tr("Architecture graphs (*.yaml *.yml);;All files (*)"));
    for (const QString& file : files) runner_->addGraph(file);
  });
  auto add_button = [tools](QMenu* menu) {
    auto* button = new QToolButton;
    button->setText(menu->title());
    button->setMenu(menu);
    button->setPopupMode(QToolButton::InstantPopup);
    tools->addWidget(button);
  };
  add_button(profiles_);
  add_button(remove_);
  tools->addAction(tr("Predict again"), this, [this] { runner_->predictAgain(); });
  tools->addSeparator();
  kind_->setObjectName("compareBarsKind");
  kind_->addItem(tr("Time per operator"), static_cast<int>(views::ComparisonBarsKind::time));
  kind_->addItem(tr("Speed-up per operator"), static_cast<int>(views::ComparisonBarsKind::speedup));
  kind_->addItem(tr("Energy per node"), static_cast<int>(views::ComparisonBarsKind::energy));
  kind_->setToolTip(
      tr("What the bars show; energy where a graph prices every action "
         "(docs/energy.md)"));
  tools->addWidget(kind_);
  connect(kind_, &QComboBox::currentIndexChanged, this, [this] {
    if (runner_->comparison()) drawBars();
  });
  tools->addSeparator();
  tools->addAction(tr("Export comparison CSV…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export the comparison"),
                                                      "comparison.csv", tr("CSV (*.csv)"));
    QString error;
    if (!path.isEmpty() && !saveComparisonCsv(path, &error))
      QMessageBox::warning(this, tr("Export failed"), error);
  });
  progress_->setObjectName("compareProgress");
  progress_->setFormat("%v / %m");
  progress_->setMaximumWidth(220);
  // A toolbar shows and hides its widgets through their actions (QWidget::setVisible on them
  // does nothing there).
  QAction* progress_action = tools->addWidget(progress_);
  QAction* cancel_action = tools->addWidget(cancel_);
  progress_action->setVisible(false);
  cancel_action->setVisible(false);
  layout->addWidget(tools);
  graphs_->setWordWrap(true);
  graphs_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(graphs_);
  empty_->setObjectName("emptyState");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignCenter);
  layout->addWidget(empty_, 1);
  note_->setWordWrap(true);
  layout->addWidget(note_);
  auto* totals_model = new TotalRowOnly(this);
  totals_model->setSourceModel(model_);
  totals_->setObjectName("compareTotals");
  totals_->setModel(totals_model);
  totals_->verticalHeader()->hide();
  totals_->horizontalHeader()->setStretchLastSection(true);
  totals_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  // No scroll bar of its own: it scrolls sideways with the operators' table, column under column.
  totals_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  connect(table_->horizontalScrollBar(), &QScrollBar::valueChanged, totals_->horizontalScrollBar(),
          &QScrollBar::setValue);
  layout->addWidget(totals_);
  table_->setModel(model_);
  table_->setAlternatingRowColors(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  plot_->setMinimumSize(320, 200);
  // The bars take the height at which every operator's label is readable (drawBars); a long
  // workload scrolls rather than overlapping its labels.
  auto* bars_scroll = new QScrollArea;
  bars_scroll->setWidget(plot_);
  bars_scroll->setWidgetResizable(true);
  bars_scroll->setFrameShape(QFrame::NoFrame);
  split_->addWidget(bars_scroll);
  split_->addWidget(table_);
  split_->setStretchFactor(0, 3);
  split_->setStretchFactor(1, 2);
  // 3:2 from the start too: stretch shares only the space beyond the size hints, and the
  // table's (all its rows) dwarfs the scrolled bars'.
  split_->setSizes({3000, 2000});
  layout->addWidget(split_, 3);
  views::install_plot_export(plot_, "comparison");
  install_table_export(table_, "comparison-table", [this] { return openFiles(); });

  connect(cancel_, &QPushButton::clicked, runner_, &ComparisonRunner::cancel);
  connect(runner_, &ComparisonRunner::busyChanged, this,
          [progress_action, cancel_action](bool busy) {
            progress_action->setVisible(busy);
            cancel_action->setVisible(busy);
          });
  connect(runner_, &ComparisonRunner::progressChanged, this,
          [this](const QString& what, int done, int total) {
            progress_->setToolTip(what);
            progress_->setRange(0, total);
            progress_->setValue(done);
          });
  connect(runner_, &ComparisonRunner::comparisonChanged, this, &ComparePage::showComparison);
  connect(remove_, &QMenu::aboutToShow, this, &ComparePage::fillRemoveMenu);
  fillProfileMenu();
  showComparison();
}

void ComparePage::showComparison() {
  const auto& comparison = runner_->comparison();
  QStringList graphs;
  if (session_->graph())
    graphs << tr("A: %1 (%2), the open graph; speed-ups are over it")
                  .arg(QString::fromStdString(session_->graph()->name),
                       session_->architecturePath());
  graphs << runner_->addedGraphs();
  graphs_->setText(graphs.join('\n'));
  remove_->setEnabled(!runner_->addedGraphs().isEmpty());
  if (comparison) {
    model_->setComparison(*comparison);
    drawBars();
    table_->resizeColumnsToContents();
    // The totals' columns as wide as the operators' below, so that they line up; the view as
    // high as its header and one row.
    for (int column = 0; column < model_->columnCount(); ++column)
      totals_->setColumnWidth(column, table_->columnWidth(column));
    totals_->setFixedHeight(totals_->horizontalHeader()->sizeHint().height() +
                            totals_->verticalHeader()->defaultSectionSize() +
                            2 * totals_->frameWidth());
  } else {
    model_->setComparison({});
  }
  empty_->setText(comparison ? QString() : runner_->state());
  empty_->setVisible(!comparison);
  split_->setVisible(comparison.has_value());
  totals_->setVisible(comparison.has_value());
  note_->setText(comparison ? runner_->state() : QString());
  note_->setVisible(comparison && !runner_->state().isEmpty());
}

void ComparePage::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange && runner_->comparison()) drawBars();
  QWidget::changeEvent(event);
}

// The report's time figure (views/ComparisonBars), titled as the GUI's other plots.
void ComparePage::drawBars() {
  const ArchitectureComparison& c = *runner_->comparison();
  QString title = QString::fromStdString(c.workload);
  if (c.graphs.size() > 1)
    title += tr(": %1 operators on %2 graphs").arg(c.operators.size()).arg(c.graphs.size());
  // Energy only where some graph prices the workload; else the choice falls back to time.
  const bool energy = std::any_of(c.total.begin(), c.total.end(),
                                  [](const TimeOnGraph& t) { return t.energy_j.has_value(); });
  if (auto* model = qobject_cast<QStandardItemModel*>(kind_->model()))
    model->item(2)->setEnabled(energy);
  auto kind = static_cast<views::ComparisonBarsKind>(kind_->currentData().toInt());
  if (kind == views::ComparisonBarsKind::energy && !energy) kind = views::ComparisonBarsKind::time;
  if (kind == views::ComparisonBarsKind::energy) title += tr(": energy per node");
  bars_ = views::fill_comparison_bars(*plot_, c, kind, title, palette());
  plot_->setMinimumHeight(bars_.readable_height);
}

bool ComparePage::saveComparisonCsv(const QString& path, QString* error) const {
  if (!runner_->comparison()) {
    if (error) *error = tr("nothing to export: add a second graph first");
    return false;
  }
  try {
    refuse_output_over_open_files(path, tr("the comparison export"), openFiles());
    write_file_atomically(path.toStdString(), comparison_csv(*runner_->comparison()));
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return true;
}

std::vector<NamedPath> ComparePage::openFiles() const {
  std::vector<NamedPath> open = open_files_ ? open_files_() : std::vector<NamedPath>{};
  for (const QString& source : runner_->addedGraphSources())
    open.push_back({"the compared graph", source.toStdString()});
  return open;
}

// One entry per variant of every installed profile (core/profile), as File > Open profile.
void ComparePage::fillProfileMenu() {
  for (const LoadedProfile& loaded : installed_profiles().profiles())
    for (const ProfileVariant& variant : loaded.profile.variants) {
      const QString reference =
          QString::fromStdString("profile:" + loaded.profile.name + "/" + variant.name);
      profiles_->addAction(reference.mid(8), this,
                           [this, reference] { runner_->addGraph(reference); });
    }
  profiles_->setEnabled(!profiles_->isEmpty());
}

void ComparePage::fillRemoveMenu() {
  remove_->clear();
  const QStringList graphs = runner_->addedGraphs();
  for (int i = 0; i < graphs.size(); ++i)
    remove_->addAction(graphs[i], this, [this, i] { runner_->removeGraph(i); });
}

}  // namespace ts::gui
