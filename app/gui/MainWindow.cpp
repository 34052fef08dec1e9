#include "MainWindow.hpp"

#include <QApplication>
#include <QBoxLayout>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTime>
#include <QTreeView>
#include <QUndoStack>
#include <QUrl>

#include "AboutText.hpp"
#include "ArchitecturePage.hpp"
#include "ComparePage.hpp"
#include "ComparisonRunner.hpp"
#include "MappingPage.hpp"
#include "OperatorsPage.hpp"
#include "RunBrowser.hpp"
#include "Severity.hpp"
#include "SweepPage.hpp"
#include "TableExport.hpp"
#include "TraceAnalysisSession.hpp"
#include "TraceImportAction.hpp"
#include "TracePage.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "profile/ProfileRegistry.hpp"
#include "trace/TraceFileKind.hpp"
#include "views/CorrelationView.hpp"
#include "views/PlotExport.hpp"
#include "views/TimelineView.hpp"

namespace ts::gui {

MainWindow::MainWindow(Workbench* workbench, QWidget* parent)
    : QMainWindow(parent),
      workbench_(workbench),
      pages_(new QTabWidget),
      operators_(new OperatorsPage(workbench->whatIf())),
      architecture_(new ArchitecturePage(workbench->whatIf())),
      mapping_(new MappingPage(workbench->whatIf())),
      correlation_(new views::CorrelationView),
      timeline_(new views::TimelineView),
      timeline_note_(new QLabel),
      trace_(new TracePage(workbench->traceAnalysis())),
      log_(new QPlainTextEdit),
      status_(new QLabel),
      progress_(new QProgressBar),
      cancel_(new QPushButton(tr("Cancel"))),
      traces_(new TraceImportAction(workbench, this)) {
  setWindowTitle("tilescope");
  setAcceptDrops(true);
  pages_->addTab(operators_, tr("Operators"));
  pages_->addTab(architecture_, tr("Architecture"));
  pages_->addTab(mapping_, tr("Mapping"));
  pages_->addTab(correlation_, tr("Correlation"));
  pages_->addTab(timeline_, tr("Timeline"));
  // The note goes on the timeline page itself, above its summary, so that the page stays the
  // TimelineView every caller selects.
  timeline_note_->setObjectName("timelineTraceNote");
  timeline_note_->setWordWrap(true);
  timeline_note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  timeline_note_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  timeline_note_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);  // no stretch
  timeline_note_->setVisible(false);
  if (auto* box = qobject_cast<QBoxLayout*>(timeline_->layout()))
    box->insertWidget(0, timeline_note_);
  pages_->addTab(trace_, tr("Trace"));
  addComparePage();
  addSweepPage();
  setCentralWidget(pages_);

  log_->setReadOnly(true);
  log_->setMaximumBlockCount(5000);
  auto* dock = new QDockWidget(tr("Log"), this);
  dock->setObjectName("log");
  dock->setWidget(log_);
  addDockWidget(Qt::BottomDockWidgetArea, dock);
  resizeDocks({dock}, {110}, Qt::Vertical);

  progress_->setObjectName("progress");
  progress_->setMaximumWidth(260);
  progress_->setFormat("%v / %m");  // rows or operators done of all, not a bare percentage
  progress_->hide();
  cancel_->setObjectName("cancel");
  cancel_->hide();
  statusBar()->addWidget(status_, 1);
  // Why "measured" / "error" are blank or what they compare with; stays while it holds (the
  // status text above is replaced by every progress step).
  auto* measurement_note = new QLabel;
  measurement_note->setObjectName("measurementNote");
  measurement_note->setWordWrap(true);
  measurement_note->setVisible(false);
  statusBar()->addWidget(measurement_note, 2);
  connect(workbench->runBrowser(), &RunBrowser::measurementNoteChanged, measurement_note,
          [measurement_note](const QString& note) {
            measurement_note->setText(note);
            measurement_note->setToolTip(note);
            measurement_note->setVisible(!note.isEmpty());
          });
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);
  connect(cancel_, &QPushButton::clicked, workbench, &Workbench::cancel);
  connect(workbench, &Workbench::progressChanged, this,
          [this](const QString& what, int done, int total) {
            status_->setText(what);
            progress_->setRange(0, total);
            progress_->setValue(done);
          });
  connect(workbench, &Workbench::busyChanged, this, [this](bool busy) {
    progress_->setVisible(busy);
    cancel_->setVisible(busy);
    if (!busy) status_->setText(tr("Ready"));
  });
  connect(workbench, &Workbench::message, this, &MainWindow::log);
  connect(
      workbench->whatIf(), &WhatIfSession::remapStopped, this, [this](const MapperStopReport& r) {
        if (!r.superseded)
          statusBar()->showMessage(
              tr("Re-mapping cancelled (%1 of %2 operators re-mapped)").arg(r.mapped).arg(r.total),
              10000);
      });
  connect(workbench->runBrowser(), &RunBrowser::pointsLoadCancelled, this,
          [this](qint64 rows, qint64 total) {
            statusBar()->showMessage(
                tr("Loading cancelled after %1 of %2 rows").arg(rows).arg(total), 10000);
          });

  connect(operators_, &OperatorsPage::operatorChosen, this, &MainWindow::selectOperator);
  connect(correlation_, &views::CorrelationView::pointSelected, this, [this](int index) {
    const auto& points = workbench_->runBrowser()->points();
    if (index < 0 || static_cast<size_t>(index) >= points.size()) return;
    const int row = workbench_->runBrowser()->rowOfPoint(points[static_cast<size_t>(index)]);
    if (row >= 0) {
      selectOperator(row);
    } else {
      status_->setText(
          tr("%1 is not an operator of the open suite")
              .arg(QString::fromStdString(points[static_cast<size_t>(index)].op_name)));
    }
  });
  RunBrowser* runs = workbench->runBrowser();
  connect(correlation_, &views::CorrelationView::deviceChosen, runs, &RunBrowser::chooseDevice);
  connect(correlation_, &views::CorrelationView::runChosen, runs, &RunBrowser::chooseRun);
  connect(correlation_, &views::CorrelationView::groupingChosen, this, &MainWindow::showPoints);
  connect(correlation_, &views::CorrelationView::overlayChosen, runs,
          &RunBrowser::chooseOverlayRun);
  connect(runs, &RunBrowser::pointsChanged, this, &MainWindow::showPoints);
  connect(runs, &RunBrowser::runsChanged, this, &MainWindow::showRuns);
  connect(workbench, &Workbench::simulationChanged, this, [this] {
    timeline_->setTimeline(workbench_->timeline());
    const QString note = workbench_->traceTimelineNote();
    timeline_note_->setText(note);
    timeline_note_->setVisible(!note.isEmpty());
  });
  WhatIfSession* what_if = workbench->whatIf();
  connect(what_if, &WhatIfSession::fixedReady, this, [this] { selectOperator(current_); });
  connect(what_if, &WhatIfSession::baselineReady, this, [this] {
    if (current_ < 0 && workbench_->whatIf()->operators()->rowCount() > 0) selectOperator(0);
  });
  connect(what_if, &WhatIfSession::workloadReplaced, this, [this] { current_ = -1; });
  buildMenus();
  buildHelpMenu();
  installExports();
  showPoints();
  resize(1280, 800);
}

void MainWindow::addComparePage() {
  compare_ = new ComparePage(workbench_->whatIf());
  compare_->setOpenFiles([this] { return workbench_->openFiles(); });
  pages_->addTab(compare_, tr("Compare"));
  connect(compare_->runner(), &ComparisonRunner::message, this, &MainWindow::log);
}

void MainWindow::addSweepPage() {
  sweep_ = new SweepPage(workbench_->runBrowser());
  sweep_->setOpenFiles([this] { return workbench_->openFiles(); });
  // The open graph, where it is a sweep's, names what caps that sweep's axes.
  WhatIfSession* what_if = workbench_->whatIf();
  sweep_->setArchitecture(what_if->baselineGraph());
  connect(what_if, &WhatIfSession::architectureReplaced, sweep_,
          [this, what_if] { sweep_->setArchitecture(what_if->baselineGraph()); });
  pages_->addTab(sweep_, tr("Sweep"));
  connect(sweep_, &SweepPage::message, this, &MainWindow::log);
}

void MainWindow::installExports() {
  views::install_plot_export(correlation_->plot(), "correlation");
  views::install_plot_export(timeline_->plot(), "timeline");
  // A table's CSV is never written over a file the window has open (OutputGuard.hpp).
  const OpenFiles open = [this] { return workbench_->openFiles(); };
  install_table_export(operators_->table(), "operators", open);
  install_table_export(mapping_->tree(), "mapping", open);
}

void MainWindow::buildHelpMenu() {
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* docs = help->addAction(tr("&Documentation"), QKeySequence::HelpContents, this, [this] {
    const QString folder = documentation_folder(QDir::currentPath());
    if (folder.isEmpty() || !QDesktopServices::openUrl(QUrl::fromLocalFile(folder)))
      QMessageBox::information(
          this, tr("Documentation"),
          folder.isEmpty()
              ? tr("No documentation folder found (looked for share/doc/tilescope/docs beside "
                   "the data folder, the source tree's docs/ and ./docs).")
              : tr("The documentation is in %1 (no program to open it with).").arg(folder));
  });
  docs->setObjectName("helpDocumentation");
  QAction* about = help->addAction(tr("&About tilescope"), this, [this] {
    QMessageBox::about(this, tr("About tilescope"), about_text());
  });
  about->setObjectName("helpAbout");
}

void MainWindow::buildMenus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("&Open…"), QKeySequence::Open, this, [this] {
    openFiles(QFileDialog::getOpenFileNames(
        this, tr("Open"), QString(),
        tr("tilescope inputs (*.yaml *.yml *.sqlite *.sqlite3 *.db *.csv *.json *.json.gz);;All "
           "files (*)")));
  });
  // A distributed job's profile is a folder of per-rank traces: the Trace page reads them all.
  file->addAction(tr("Open trace &folder…"), this, [this] {
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Open a folder of per-rank traces"));
    if (!folder.isEmpty()) openFiles({folder});
  });
  file->addAction(tr("Import &trace…"), this, [this] { traces_->chooseAndImport(); });
  recent_ = file->addMenu(tr("Open &recent"));
  fillRecentMenu();
  fillProfileMenu(file->addMenu(tr("Open &profile")));
  file->addAction(tr("Save &workspace…"), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save workspace"), "workspace.yaml",
                                                      tr("YAML (*.yaml)"));
    if (!path.isEmpty()) workbench_->saveWorkspace(path);
  });
  file->addAction(tr("Save &graph as…"), QKeySequence::SaveAs, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save the edited graph"),
                                                      "edited.yaml", tr("YAML (*.yaml)"));
    if (!path.isEmpty()) workbench_->whatIf()->saveArchitecture(path);
  });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  QMenu* edit = menuBar()->addMenu(tr("&Edit"));
  QAction* undo = workbench_->whatIf()->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = workbench_->whatIf()->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  edit->addAction(undo);
  edit->addAction(redo);
  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < pages_->count(); ++i)
    view->addAction(pages_->tabText(i), QKeySequence(Qt::ALT | (Qt::Key_1 + i)), this,
                    [this, i] { pages_->setCurrentIndex(i); });
}

void MainWindow::log(int severity, const QString& text) {
  static const char* names[] = {"info", "warning", "error"};
  if (severity == kError) ++errors_;
  log_->appendPlainText(
      QString("%1 %2: %3")
          .arg(QTime::currentTime().toString("HH:mm:ss"), names[std::clamp(severity, 0, 2)], text));
  if (severity == kError) status_->setText(text);
}

void MainWindow::selectOperator(int row) {
  if (selecting_) return;  // the pages echo the selection back
  selecting_ = true;
  current_ = row;
  operators_->selectRow(row);
  mapping_->showOperator(row);
  const views::OperatorTableModel* rows = workbench_->whatIf()->operators();
  const RunBrowser* runs = workbench_->runBrowser();
  if (row >= 0 && row < rows->rowCount()) {
    const auto& r = rows->row(row);
    if (r.fixed && r.fixed->ok) {
      architecture_->showBound(QString::fromStdString(r.fixed->device_bound));
      architecture_->showEnergy(r.fixed->prediction.energy);
    }
    if (correlation_->selectedPoint() < 0 ||
        runs->rowOfPoint(runs->points()[static_cast<size_t>(correlation_->selectedPoint())]) !=
            row) {
      bool found = false;
      for (size_t i = 0; i < runs->points().size() && !found; ++i)
        if (runs->rowOfPoint(runs->points()[i]) == row) {
          correlation_->selectPoint(static_cast<int>(i));
          found = true;
        }
      if (!found) correlation_->selectPoint(-1);
    }
  }
  selecting_ = false;
}

void MainWindow::showPoints() {
  const RunBrowser* runs = workbench_->runBrowser();
  views::CorrelationPlotData data;
  data.title = runs->pointsSource();
  // Colours follow the grouping of `correlate --by` (core/measure), so that the legend's
  // statistics are the ones `correlate` prints per group.
  const Grouping grouping = parse_grouping(correlation_->grouping().toStdString());
  auto add = [&](const std::vector<ComparedPoint>& points,
                 std::vector<views::CorrelationPlotPoint>& out) {
    std::vector<double> thresholds;
    const std::vector<std::string> labels = group_labels(points, grouping, &thresholds);
    for (size_t i = 0; i < points.size(); ++i)
      out.push_back({points[i].predicted_s, points[i].measured_s,
                     QString::fromStdString(points[i].op_name + " " + points[i].shape),
                     QString::fromStdString(labels[i])});
  };
  add(runs->points(), data.points);
  add(runs->overlayPoints(), data.overlay);
  data.overlay_title = tr("comparison run");
  showRuns();
  correlation_->setData(std::move(data));
  QString message;
  if (runs->resultsPath().isEmpty())
    message =
        tr("No measurements open. File > Open a results database (.sqlite, from `tilescope "
           "measure`) or a CSV of measured GEMMs (M,N,K,measured_us), File > Import trace a "
           "profiler's trace, or drop one here.");
  else if (runs->points().empty())
    message =
        tr("Nothing to compare in this run: no measurement has a prediction (an imported "
           "trace needs a graph open and operators recorded with shapes; the log says "
           "why).");
  correlation_->setMessage(message);
  if (current_ >= 0) selectOperator(current_);
}

void MainWindow::showRuns() {
  const RunBrowser* runs = workbench_->runBrowser();
  correlation_->setDevices(runs->devices(), runs->currentDevice());
  correlation_->setRuns(runs->runs(), runs->currentRun(), runs->overlayRuns());
}

void MainWindow::openFiles(const QStringList& paths) {
  for (const QString& path : paths) openOrImport(path);
}

void MainWindow::openOrImport(const QString& path) {
  // Before openFile: an nsys export is an SQLite file that openFile would take for a store.
  // A Kineto or nsys trace is also analysed for the Trace page (an msprof CSV has no timeline).
  const bool analysed = is_trace_path(path);
  if (analysed && QFileInfo(path).isDir()) {
    workbench_->traceAnalysis()->open({path});
    rememberRecent(path);
    return;
  }
  if (traces_->importIfTrace(path)) {
    if (analysed) workbench_->traceAnalysis()->open({path});
    return;
  }
  if (workbench_->openFile(path)) rememberRecent(path);
}

void MainWindow::openCommandLine(const QStringList& paths) {
  QStringList traces;
  for (const QString& path : paths) {
    if (is_trace_path(path) || !trace_format_of(path.toStdString()).empty())
      traces << path;
    else
      workbench_->openFile(path);
  }
  // One trace page for all of them: several files are the ranks of one job (load_trace).
  QStringList analysed;
  for (const QString& trace : traces) {
    if (is_trace_path(trace)) analysed << trace;
    // A folder is many ranks: the Trace page's alone (an import is of one file).
    if (!QFileInfo(trace).isDir()) {
      traces_->waitForIdle();  // one import at a time
      traces_->importWithoutAsking(trace);
    }
  }
  if (!analysed.isEmpty()) workbench_->traceAnalysis()->open(analysed);
}

void MainWindow::waitForIdle() {
  // An import ends by opening its run (and a workload): background work of the workbench.
  traces_->waitForIdle();
  workbench_->waitForIdle();
  traces_->waitForIdle();
  workbench_->waitForIdle();
}

void MainWindow::rememberRecent(const QString& path) {
  QSettings settings("tilescope", "tilescope-gui");
  QStringList recent = settings.value("recent").toStringList();
  const QString absolute = QFileInfo(path).absoluteFilePath();
  recent.removeAll(absolute);
  recent.prepend(absolute);
  while (recent.size() > 10) recent.removeLast();
  settings.setValue("recent", recent);
  fillRecentMenu();
}

void MainWindow::fillRecentMenu() {
  recent_->clear();
  const QStringList recent = QSettings("tilescope", "tilescope-gui").value("recent").toStringList();
  for (const QString& path : recent)
    recent_->addAction(path, this, [this, path] { openFiles({path}); });
  recent_->setEnabled(!recent.isEmpty());
}

// One entry per variant of every profile found on the search path (core/profile); a profile
// that failed to load is listed disabled, with its reason as the tooltip.
void MainWindow::fillProfileMenu(QMenu* menu) {
  const ProfileRegistry& registry = installed_profiles();
  for (const LoadedProfile& loaded : registry.profiles()) {
    const Profile& profile = loaded.profile;
    QMenu* variants = menu->addMenu(QString::fromStdString(profile.name));
    variants->setToolTipsVisible(true);
    for (const ProfileVariant& variant : profile.variants) {
      const QString reference =
          QString::fromStdString("profile:" + profile.name + "/" + variant.name);
      QAction* action = variants->addAction(
          QString::fromStdString(variant.name + (variant.fitted ? " (fitted)" : "")), this,
          [this, reference] { workbench_->openFile(reference); });
      action->setToolTip(QString::fromStdString(variant.arch_file));
    }
  }
  for (const ProfileFailure& failure : registry.failures()) {
    QAction* failed = menu->addAction(tr("failed: %1").arg(QString::fromStdString(failure.path)));
    failed->setEnabled(false);
    failed->setToolTip(QString::fromStdString(failure.line()));
  }
  menu->setToolTipsVisible(true);
  menu->setEnabled(!menu->isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  QStringList paths;
  for (const QUrl& url : event->mimeData()->urls())
    if (url.isLocalFile()) paths << url.toLocalFile();
  openFiles(paths);
  event->acceptProposedAction();
}

}  // namespace ts::gui
