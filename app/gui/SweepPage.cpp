#include "SweepPage.hpp"

#include <QComboBox>
#include <QEventLoop>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <tuple>

#include "RunBrowser.hpp"
#include "Severity.hpp"
#include "TableExport.hpp"
#include "correlate/CorrelationData.hpp"
#include "measure/ResultStore.hpp"
#include "sweep/SweepAxisEffect.hpp"
#include "sweep/SweepCost.hpp"
#include "views/PlotExport.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/SweepPointTableModel.hpp"

namespace ts::gui {
namespace {

// Every sweep of the store, digested: on a worker thread (thousands of points are read from
// SQLite and fitted), so it touches nothing of the page.
SweepStoreRead read_sweeps(const QString& path,
                           const std::shared_ptr<const ArchitectureGraph>& graph) {
  SweepStoreRead read;
  read.path = path;
  try {
    const ResultStore store(path.toStdString(), ResultStore::Mode::read_only);
    for (const auto& [key, workload] : store.sweeps()) {
      StoredSweep sweep{key, workload, digest_sweep(store.sweep_points(key, workload)), {}};
      if (graph && !sweep.digest.strategy_grid)
        sweep.caps = stored_sweep_caps(*graph, sweep.digest.points);
      read.sweeps.push_back(std::move(sweep));
    }
  } catch (const std::exception& e) {
    read.error = QString::fromStdString(e.what());
  }
  return read;
}

QString joined(const std::vector<std::string>& paths) {
  QStringList out;
  for (const std::string& p : paths) out << QString::fromStdString(p);
  return out.isEmpty() ? QObject::tr("nothing") : out.join(", ");
}

// "architecture sweep: 27 points, 13 operators, varying node:L1.capacity, ..."
QString sweep_title(const SweepDigest& d) {
  const size_t subjects = d.sensitivities.empty() ? 0 : d.sensitivities.size() - 1;
  return d.strategy_grid ? QObject::tr("strategy grid: %1 points, varying %2")
                               .arg(d.points.size())
                               .arg(joined(d.paths))
                         : QObject::tr("architecture sweep: %1 points, %2 operators, varying %3")
                               .arg(d.points.size())
                               .arg(subjects)
                               .arg(joined(d.paths));
}

QString how_to_sweep(const QString& db) {
  return QObject::tr(
             "Make one with `tilescope sweep --arch A.yaml --workload W.yaml --vary "
             "PATH=V1,V2,... --db %1` (or `--strategy-grid` over training strategies; "
             "docs/sweep.md), then open %1 here (File > Open, or on the command line).")
      .arg(db);
}

}  // namespace

SweepPage::SweepPage(RunBrowser* runs, QWidget* parent)
    : QWidget(parent),
      runs_(runs),
      sweep_choice_(new QComboBox),
      subject_choice_(new QComboBox),
      cost_choice_(new QComboBox),
      warnings_(new QLabel),
      sweep_label_(new QLabel(tr("Sweep:"))),
      summary_(new QLabel),
      empty_(new QLabel),
      split_(new QSplitter(Qt::Vertical)),
      pareto_(new QCustomPlot),
      sensitivity_(new QCustomPlot),
      energy_pareto_(new QCustomPlot),
      area_pareto_(new QCustomPlot),
      figure_fronts_(new QSplitter(Qt::Horizontal)),
      figure_rows_(new QSplitter(Qt::Vertical)),
      table_(new QTableView),
      model_(new views::SweepPointTableModel(this)),
      proxy_(new QSortFilterProxyModel(this)) {
  auto* layout = new QVBoxLayout(this);
  auto* choices = new QHBoxLayout;
  auto* reload_button = new QPushButton(tr("Reload"));
  reload_button->setObjectName("sweepReload");
  reload_button->setToolTip(tr("Read the database again (a sweep still running adds points)"));
  choices->addWidget(reload_button);
  sweep_choice_->setObjectName("sweepChoice");
  sweep_choice_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  subject_choice_->setObjectName("sweepSubject");
  subject_choice_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  subject_choice_->setToolTip(tr("Whose sensitivity the bars show: the total or one operator"));
  choices->addWidget(sweep_label_);
  choices->addWidget(sweep_choice_);
  choices->addWidget(new QLabel(tr("Subject:")));
  choices->addWidget(subject_choice_);
  cost_choice_->setObjectName("sweepCost");
  cost_choice_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  cost_choice_->setToolTip(tr("What the first Pareto figure sets time against (sweep --cost)"));
  choices->addWidget(new QLabel(tr("Cost:")));
  choices->addWidget(cost_choice_);
  choices->addStretch(1);
  layout->addLayout(choices);
  summary_->setObjectName("sweepSummary");
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  warnings_->setObjectName("sweepWarnings");
  warnings_->setWordWrap(true);
  warnings_->setTextFormat(Qt::PlainText);
  warnings_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  warnings_->hide();
  layout->addWidget(warnings_);
  empty_->setObjectName("emptyState");
  empty_->setWordWrap(true);
  empty_->setAlignment(Qt::AlignCenter);
  empty_->setTextInteractionFlags(Qt::TextSelectableByMouse);  // the command, to copy
  layout->addWidget(empty_, 1);

  auto* figures = new QSplitter(Qt::Horizontal);
  pareto_->setMinimumSize(320, 200);
  sensitivity_->setMinimumSize(240, 200);
  energy_pareto_->setObjectName("sweepEnergyPareto");
  area_pareto_->setObjectName("sweepAreaPareto");
  energy_pareto_->setMinimumSize(320, 200);
  area_pareto_->setMinimumSize(320, 200);
  figures->addWidget(pareto_);
  figures->addWidget(sensitivity_);
  figures->setStretchFactor(0, 3);
  figures->setStretchFactor(1, 2);
  // A second row of figures, where the sweep's points have them: time against energy and area.
  figure_fronts_->setObjectName("sweepFigureFronts");
  figure_fronts_->addWidget(energy_pareto_);
  figure_fronts_->addWidget(area_pareto_);
  figure_fronts_->hide();
  figure_rows_->addWidget(figures);
  figure_rows_->addWidget(figure_fronts_);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(views::SweepPointTableModel::SortRole);
  table_->setModel(proxy_);
  table_->setSortingEnabled(true);
  table_->setAlternatingRowColors(true);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  split_->addWidget(figure_rows_);
  split_->addWidget(table_);
  split_->setStretchFactor(0, 3);
  split_->setStretchFactor(1, 2);
  layout->addWidget(split_, 3);
  views::install_plot_export(pareto_, "sweep-pareto");
  views::install_plot_export(sensitivity_, "sweep-sensitivity");
  views::install_plot_export(energy_pareto_, "sweep-energy-pareto");
  views::install_plot_export(area_pareto_, "sweep-area-pareto");
  install_table_export(table_, "sweep-points", [this] {
    if (open_files_) return open_files_();
    return std::vector<NamedPath>{{"the results database", runs_->resultsPath().toStdString()}};
  });

  connect(reload_button, &QPushButton::clicked, this, &SweepPage::reload);
  connect(sweep_choice_, &QComboBox::currentIndexChanged, this, &SweepPage::showSweep);
  connect(subject_choice_, &QComboBox::currentIndexChanged, this, &SweepPage::drawSensitivity);
  connect(cost_choice_, &QComboBox::currentIndexChanged, this, &SweepPage::drawPareto);
  // A results database opened (File > Open, the command line, a workspace) announces its runs.
  connect(runs_, &RunBrowser::runsChanged, this, &SweepPage::resultsMaybeReplaced);
  resultsMaybeReplaced();
  if (shown_path_.isEmpty()) reload();
}

void SweepPage::resultsMaybeReplaced() {
  const QString path = runs_->resultsPath();
  if (path == shown_path_) return;  // the same database, another run or device chosen
  shown_path_ = path;
  reload();
}

void SweepPage::reload() {
  const int generation = ++generation_;
  if (shown_path_.isEmpty() || !is_sqlite_file(shown_path_.toStdString())) {
    accept({QString(), {}, {}});  // nothing open, or a CSV of measurements: no store
    return;
  }
  showEmpty(tr("Reading the sweeps of %1…").arg(QFileInfo(shown_path_).fileName()));
  auto* watcher = new QFutureWatcher<SweepStoreRead>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != generation_) return;  // a newer read is under way
    accept(watcher->result());
  });
  reading_ = watcher;
  watcher->setFuture(QtConcurrent::run(read_sweeps, shown_path_, graph_));
}

void SweepPage::setArchitecture(std::shared_ptr<const ArchitectureGraph> graph) {
  if (graph == graph_) return;
  graph_ = std::move(graph);
  if (!shown_path_.isEmpty()) reload();
}

bool SweepPage::busy() const { return !reading_.isNull(); }

void SweepPage::waitForIdle() {
  // The read's result comes through a queued signal: spin the event loop until it is shown.
  while (!reading_.isNull()) {
    QEventLoop loop;
    QTimer::singleShot(20, &loop, &QEventLoop::quit);
    loop.exec();
  }
}

void SweepPage::accept(const SweepStoreRead& read) {
  reading_ = nullptr;
  // Keep the sweep chosen before a reload when it is still there.
  const int before = sweep_choice_->currentIndex();
  const std::string chosen = before >= 0 && static_cast<size_t>(before) < sweeps_.size()
                                 ? sweeps_[static_cast<size_t>(before)].sweep_key +
                                       sweeps_[static_cast<size_t>(before)].workload_hash
                                 : std::string();
  sweeps_ = read.sweeps;
  const QString file = QFileInfo(read.path).fileName();
  if (!read.error.isEmpty())
    Q_EMIT message(kError, tr("sweeps of %1: %2").arg(read.path, read.error));
  {
    const QSignalBlocker block(sweep_choice_);
    sweep_choice_->clear();
    for (size_t i = 0; i < sweeps_.size(); ++i)
      sweep_choice_->addItem(tr("%1%2: %3")
                                 .arg(i + 1)
                                 .arg(i == 0 ? tr(" (latest)") : QString())
                                 .arg(sweep_title(sweeps_[i].digest)));
  }
  // One sweep needs no choice; several are listed, the one with the latest point first.
  sweep_choice_->setVisible(sweeps_.size() > 1);
  sweep_label_->setVisible(sweeps_.size() > 1);
  if (sweeps_.empty()) {
    model_->setSweep({}, {}, 1);
    subject_choice_->clear();
    cost_choice_->clear();
    costs_.clear();
    summary_->clear();
    warnings_->clear();
    if (read.path.isEmpty())
      showEmpty(tr("No sweep to show: no results database is open.\n") +
                how_to_sweep("sweep.sqlite"));
    else if (!read.error.isEmpty())
      showEmpty(tr("The sweeps of %1 cannot be read: %2").arg(file, read.error));
    else
      showEmpty(tr("%1 holds no sweep.\n").arg(file) + how_to_sweep(file));
    return;
  }
  Q_EMIT message(kInfo, sweeps_.size() == 1
                            ? tr("%1: 1 sweep").arg(read.path)
                            : tr("%1: %2 sweeps").arg(read.path).arg(sweeps_.size()));
  int index = 0;
  for (size_t i = 0; i < sweeps_.size(); ++i)
    if (sweeps_[i].sweep_key + sweeps_[i].workload_hash == chosen) index = static_cast<int>(i);
  {
    const QSignalBlocker block(sweep_choice_);
    sweep_choice_->setCurrentIndex(index);
  }
  empty_->hide();
  summary_->show();
  split_->show();
  showSweep(index);
}

void SweepPage::showEmpty(const QString& text) {
  empty_->setText(text);
  empty_->show();
  summary_->hide();
  warnings_->hide();
  split_->hide();
}

// Caps named by the graph first (as `sweep` warns before its points), then what the points
// show (a plateau a cap already explains is not said twice), then the parameters the fits
// could not tell apart.
void SweepPage::showWarnings(const StoredSweep& sweep) {
  const SweepDigest& d = sweep.digest;
  QStringList lines;
  std::vector<std::vector<double>> values(d.paths.size());
  for (size_t k = 0; k < d.paths.size(); ++k)
    for (const SweepPointRecord& p : d.points) {
      const std::vector<double> v = sweep_parameter_values(p, {d.paths[k]});
      if (std::find(values[k].begin(), values[k].end(), v[0]) == values[k].end())
        values[k].push_back(v[0]);
    }
  const std::vector<SweepAxisCap> caps = sweep.caps.value_or(std::vector<SweepAxisCap>{});
  for (const SweepAxisCap& c : caps) {
    const QString line =
        tr("%1: %2").arg(QString::fromStdString(c.path), QString::fromStdString(sweep_cap_text(c)));
    lines << line;
    Q_EMIT message(kWarning, tr("sweep: %1").arg(line));
  }
  for (const SweepAxisPlateau& p : d.plateaus) {
    const auto at = std::find(d.paths.begin(), d.paths.end(), p.path);
    bool explained = false;
    for (const SweepAxisCap& c : caps)
      explained = explained ||
                  (c.path == p.path && at != d.paths.end() &&
                   plateau_explained_by(p, c, values[static_cast<size_t>(at - d.paths.begin())]));
    if (explained) continue;
    const QString line = tr("%1: %2").arg(
        QString::fromStdString(p.path),
        QString::fromStdString(sweep_plateau_text(
            p, d.strategy_grid ? "the iteration time" : "the suite total", d.paths.size() > 1)));
    lines << line;
    if (p.kind == SweepAxisPlateau::Kind::no_effect && p.moves.empty())
      Q_EMIT message(kWarning, tr("sweep: %1").arg(line));
  }
  std::vector<SweepSensitivity> rows = d.sensitivities;
  for (const auto* row : {&d.energy_sensitivity, &d.area_sensitivity})
    if (*row) rows.push_back(**row);
  for (const std::string& note : sweep_collinearity_notes(rows))
    lines << QString::fromStdString(note);
  warnings_->setText(lines.join("\n"));
  warnings_->setVisible(!lines.isEmpty());
}

SweepCost SweepPage::chosenCost() const {
  const int at = cost_choice_->currentIndex();
  if (at >= 0 && static_cast<size_t>(at) < costs_.size()) return costs_[static_cast<size_t>(at)];
  const int index = sweep_choice_->currentIndex();
  if (index >= 0 && static_cast<size_t>(index) < sweeps_.size())
    return sweeps_[static_cast<size_t>(index)].digest.cost;
  return {};
}

void SweepPage::showSweep(int index) {
  if (index < 0 || static_cast<size_t>(index) >= sweeps_.size()) return;
  const SweepDigest& d = sweeps_[static_cast<size_t>(index)].digest;
  // Keep the subject by name: the same operator in another sweep of the workload.
  const QString subject =
      subject_choice_->currentIndex() > 0 ? subject_choice_->currentText() : QString();
  {
    const QSignalBlocker block(subject_choice_);
    subject_choice_->clear();
    for (size_t i = 0; i < d.sensitivities.size(); ++i)
      subject_choice_->addItem(i == 0
                                   ? (d.strategy_grid ? tr("iteration total") : tr("suite total"))
                                   : QString::fromStdString(d.sensitivities[i].subject));
    const int found = subject.isEmpty() ? -1 : subject_choice_->findText(subject);
    subject_choice_->setCurrentIndex(std::max(found, 0));
  }
  {
    // The sweep's cost first (the figures' default), then every other one its points have.
    const QSignalBlocker block(cost_choice_);
    const SweepCost before = chosenCost();
    costs_.clear();
    cost_choice_->clear();
    const auto add = [&](const SweepCost& cost, const QString& name) {
      if (std::find(costs_.begin(), costs_.end(), cost) != costs_.end()) return;
      costs_.push_back(cost);
      cost_choice_->addItem(name);
    };
    const auto name_of = [&](const SweepCost& cost) {
      switch (cost.figure) {
        case SweepFigure::cost:
          return d.strategy_grid ? tr("peak memory per GPU") : tr("memory bytes");
        case SweepFigure::energy:
          return tr("suite energy");
        case SweepFigure::area:
          return tr("graph area");
        case SweepFigure::edp:
          return tr("EDP");
        case SweepFigure::parameter:
          return QString::fromStdString(cost.path);
      }
      return QString();
    };
    add(d.cost, name_of(d.cost));
    add({}, name_of({}));
    if (d.energy_known) add({SweepFigure::energy, {}}, name_of({SweepFigure::energy, {}}));
    if (d.area_known) add({SweepFigure::area, {}}, name_of({SweepFigure::area, {}}));
    if (d.energy_known) add({SweepFigure::edp, {}}, name_of({SweepFigure::edp, {}}));
    for (const std::string& path : d.paths) {
      const SweepCost parameter{SweepFigure::parameter, path};
      if (sweep_cost_known(d.points, parameter)) add(parameter, name_of(parameter));
    }
    // Keep the cost chosen before where this sweep has it too.
    const auto kept = std::find(costs_.begin(), costs_.end(), before);
    cost_choice_->setCurrentIndex(kept == costs_.end() ? 0
                                                       : static_cast<int>(kept - costs_.begin()));
  }
  const views::SweepParetoData data = views::sweep_pareto_data(d, {});
  model_->setSweep(d, data.cost_label, data.cost_unit);
  table_->sortByColumn(model_->timeColumn(), Qt::AscendingOrder);  // fastest first
  table_->resizeColumnsToContents();
  drawPareto();
  drawSensitivity();
  QString text = sweep_title(d) + tr("; %1 on the Pareto front").arg(d.front.size());
  if (d.energy_known) text += tr(", %1 on the energy front").arg(d.energy_front.size());
  if (d.area_known) text += tr(", %1 on the area front").arg(d.area_front.size());
  if (pareto_contents_.left_out > 0)
    text += tr("; %1 without a valid mapping, not drawn (the table's note says why)")
                .arg(pareto_contents_.left_out);
  if (d.strategy_grid) text += tr("; %1 out of memory, on no front").arg(d.out_of_memory);
  summary_->setText(text + ". " +
                    QString::fromStdString(sweep_cost_line(d.cost, true, d.strategy_grid)) + ".");
  showWarnings(sweeps_[static_cast<size_t>(index)]);
}

void SweepPage::drawPareto() {
  const int index = sweep_choice_->currentIndex();
  if (index < 0 || static_cast<size_t>(index) >= sweeps_.size()) return;
  const SweepDigest& d = sweeps_[static_cast<size_t>(index)].digest;
  const QString title =
      tr("%1: %2 points").arg(QFileInfo(shown_path_).fileName()).arg(d.points.size());
  const SweepCost cost = chosenCost();
  pareto_contents_ =
      views::fill_pareto_plot(*pareto_, views::sweep_pareto_data(d, title, cost), palette());
  pareto_->replot();
  // Energy and area: the same figure (views/SweepPlots, as the report draws it) on their axes,
  // where every point has the figure and the first figure is not already theirs.
  const std::tuple<bool, SweepFigure, QCustomPlot*, views::SweepParetoContents*> fronts[] = {
      {d.energy_known, SweepFigure::energy, energy_pareto_, &energy_pareto_contents_},
      {d.area_known, SweepFigure::area, area_pareto_, &area_pareto_contents_}};
  bool any = false, newly_shown = false;
  for (const auto& [known_anyway, figure, plot, contents] : fronts) {
    const bool known = known_anyway && cost.figure != figure;
    any = any || known;
    newly_shown = newly_shown || (known && plot->isHidden());
    plot->setVisible(known);
    if (!known) {
      *contents = {};
      continue;
    }
    *contents =
        views::fill_pareto_plot(*plot, views::sweep_pareto_data(d, title, figure), palette());
    plot->replot();
  }
  const bool shown = !figure_fronts_->isHidden();
  figure_fronts_->setVisible(any);
  if (!shown && !figure_fronts_->isHidden()) {
    // A row shown after the splitters were laid out gets no room of its own: equal shares.
    const int page = split_->height();
    split_->setSizes({page * 3 / 4, page - page * 3 / 4});  // two rows of figures: more room
    const int rows = figure_rows_->height();
    figure_rows_->setSizes({rows / 2, rows - rows / 2});
  }
  if (newly_shown) {
    // A plot shown beside another (another cost chosen) gets no room of its own: equal shares.
    const int row = figure_fronts_->width();
    const bool both = !energy_pareto_->isHidden() && !area_pareto_->isHidden();
    figure_fronts_->setSizes(both ? QList<int>{row / 2, row - row / 2} : QList<int>{row, row});
  }
}

void SweepPage::drawSensitivity() {
  const int index = sweep_choice_->currentIndex();
  const int subject = subject_choice_->currentIndex();
  if (index < 0 || static_cast<size_t>(index) >= sweeps_.size()) return;
  const SweepDigest& d = sweeps_[static_cast<size_t>(index)].digest;
  if (subject < 0 || static_cast<size_t>(subject) >= d.sensitivities.size()) return;
  sensitivity_contents_ = views::fill_sensitivity_plot(
      *sensitivity_,
      subject == 0 ? tr("sensitivity of the total")
                   : tr("sensitivity of %1").arg(subject_choice_->currentText()),
      d.paths, d.sensitivities[static_cast<size_t>(subject)], palette());
  sensitivity_->replot();
}

void SweepPage::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange) {
    drawPareto();
    drawSensitivity();
  }
  QWidget::changeEvent(event);
}

}  // namespace ts::gui
