#include "TraceImportAction.hpp"

#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QProgressDialog>
#include <QPromise>
#include <QTemporaryDir>
#include <QTimer>
#include <QtConcurrent>
#include <algorithm>

#include "BackgroundWork.hpp"
#include "OutputGuard.hpp"
#include "RecordedTrace.hpp"
#include "RunBrowser.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "common/InputError.hpp"
#include "correlate/CorrelationData.hpp"
#include "trace/TraceFileImport.hpp"
#include "trace/TraceFileKind.hpp"
#include "views/TraceTimeline.hpp"

namespace ts::gui {

// What the worker hands back: the import, or that it was cancelled, or why it failed.
struct TraceImportOutcome {
  TraceFileImport imported;
  bool cancelled = false;
  QString error;
  QString workload_error;  // why no workload was written, when one was asked for
};

// What a read of a stored run's trace hands back: its kernels, or why there are none.
struct RecordedKernels {
  std::vector<TraceKernelSpan> kernels;
  bool cancelled = false;
  QString error;
};

namespace {

constexpr int kProgressSteps = 1000;

// The stages of an import (TraceImport.hpp) as one bar: reading is most of the work on a large
// trace; the SQLite and CSV readers report no reading, so their bar starts at the match.
int overall_progress(std::string_view stage, double fraction) {
  double from = 0, span = 0.7;
  if (stage == "match") from = 0.7, span = 0.1;
  if (stage == "store") from = 0.8, span = 0.2;
  return static_cast<int>((from + span * std::clamp(fraction, 0.0, 1.0)) * kProgressSteps);
}

QString stage_text(std::string_view stage, const QString& trace) {
  if (stage == "read") return QObject::tr("Reading %1…").arg(trace);
  if (stage == "match") return QObject::tr("Matching the kernels of %1 to operators…").arg(trace);
  return QObject::tr("Storing the kernels of %1…").arg(trace);
}

// "bert_step" for bert_step.json.gz: what the timeline's tracks are named by.
QString trace_track_name(const QString& trace) {
  return QFileInfo(trace).completeBaseName().section('.', 0, 0);
}

QString run_key(const QString& database, int64_t run) {
  return database + '#' + QString::number(run);
}

}  // namespace

TraceImportAction::TraceImportAction(Workbench* workbench, QWidget* window)
    : QObject(window), workbench_(workbench), window_(window) {
  connect(workbench->runBrowser(), &RunBrowser::pointsChanged, this,
          &TraceImportAction::rebuildTimeline);
}

TraceImportAction::~TraceImportAction() {
  if (watcher_) {
    watcher_->cancel();
    watcher_->waitForFinished();
  }
  if (reading_) {
    reading_->cancel();
    reading_->waitForFinished();
  }
}

void TraceImportAction::setDatabaseChooser(std::function<QString(const QString&)> chooser) {
  chooser_ = std::move(chooser);
}

bool TraceImportAction::busy() const { return watcher_ && watcher_->isRunning(); }

void TraceImportAction::cancel() {
  if (watcher_) watcher_->cancel();
}

void TraceImportAction::chooseAndImport() {
  const QString trace = QFileDialog::getOpenFileName(
      window_, tr("Import a trace"), QString(),
      tr("Profiler traces (*.json *.json.gz *.gz *.sqlite *.csv);;All files (*)"));
  if (!trace.isEmpty()) importTrace(trace);
}

bool TraceImportAction::importIfTrace(const QString& path) {
  if (trace_format_of(path.toStdString()).empty()) return false;
  importTrace(path);
  return true;
}

QString TraceImportAction::chooseDatabase(const QString& trace) const {
  if (chooser_) return chooser_(trace);
  // The open results database takes the trace's run beside its others; an open CSV is no store.
  const QString open = workbench_->runBrowser()->resultsPath();
  if (!open.isEmpty() && is_sqlite_file(open.toStdString())) return open;
  const QFileInfo info(trace);
  return QFileDialog::getSaveFileName(
      window_, tr("Import %1 into which results database?").arg(info.fileName()),
      info.dir().filePath(info.completeBaseName().section('.', 0, 0) + ".sqlite"),
      tr("Results databases (*.sqlite *.sqlite3 *.db)"), nullptr,
      QFileDialog::DontConfirmOverwrite);  // an existing database is added to, not replaced
}

QString TraceImportAction::scratchPath(const QString& name) {
  if (!scratch_) scratch_ = std::make_unique<QTemporaryDir>();
  return scratch_->isValid() ? scratch_->filePath(name) : QString();
}

bool TraceImportAction::importWithoutAsking(const QString& trace) {
  if (trace_format_of(trace.toStdString()).empty()) return false;
  const QString open = workbench_->runBrowser()->resultsPath();
  QString database =
      !open.isEmpty() && is_sqlite_file(open.toStdString())
          ? open
          : scratchPath(QFileInfo(trace).completeBaseName().section('.', 0, 0) + ".sqlite");
  if (database.isEmpty()) {
    Q_EMIT workbench_->message(kError, tr("%1: no temporary folder to import it into").arg(trace));
    return false;
  }
  if (database != open)
    Q_EMIT workbench_->message(kInfo, tr("%1 goes into a temporary database, %2, removed on exit "
                                         "(File > Import trace keeps one)")
                                          .arg(trace, database));
  auto saved = std::move(chooser_);
  chooser_ = [database](const QString&) { return database; };
  const bool started = importTrace(trace);
  chooser_ = std::move(saved);
  return started;
}

void TraceImportAction::waitForIdle() {
  // done() runs from the watcher's finished signal, queued: spin until it has.
  while (watcher_) {
    QEventLoop loop;
    QTimer::singleShot(50, &loop, &QEventLoop::quit);
    loop.exec();
  }
}

bool TraceImportAction::importTrace(const QString& trace) {
  if (busy()) {
    Q_EMIT workbench_->message(kWarning,
                               tr("%1: another trace is being imported; wait for it or cancel "
                                  "it")
                                   .arg(trace));
    return false;
  }
  const std::string format = trace_format_of(trace.toStdString());
  if (format.empty()) {
    Q_EMIT workbench_->message(
        kError, tr("%1: not a trace tilescope reads; expected a PyTorch profiler (Kineto) JSON or "
                   ".json.gz, an Nsight Systems SQLite export or an msprof op_summary CSV")
                    .arg(trace));
    return false;
  }
  const QString database = chooseDatabase(trace);
  if (database.isEmpty()) return false;
  if (is_nsys_export(database.toStdString())) {
    Q_EMIT workbench_->message(
        kError,
        tr("%1: an Nsight Systems export, not a results database; choose another").arg(database));
    return false;
  }
  // The database is added to, never made over the trace or another file the window has open
  // (the open results database is itself: the import's usual target).
  std::vector<NamedPath> open = workbench_->openFiles();
  open.push_back({"the trace", trace.toStdString()});
  if (const QString refused = output_over_open_files(database, tr("the results database"), open);
      !refused.isEmpty()) {
    Q_EMIT workbench_->message(kError, refused);
    return false;
  }
  database_ = database;
  trace_name_ = QFileInfo(trace).fileName();

  ImportRequest request;
  request.file = trace.toStdString();
  request.db_path = database.toStdString();
  workload_out_.clear();
  if (workbench_->whatIf()->workloadPath().isEmpty()) {
    workload_out_ =
        scratchPath(QFileInfo(trace).completeBaseName().section('.', 0, 0) + "-workload.yaml");
    if (!workload_out_.isEmpty()) request.options["workload-out"] = workload_out_.toStdString();
  }
  request.command_line = "tilescope-gui: File > Import trace " + request.file;
  request.tool_version = std::string("tilescope ") + TILESCOPE_VERSION;

  dialog_ = new QProgressDialog(tr("Reading %1…").arg(trace_name_), tr("Cancel"), 0, kProgressSteps,
                                window_);
  dialog_->setObjectName("traceImportProgress");
  dialog_->setWindowTitle(tr("Import trace"));
  dialog_->setWindowModality(Qt::WindowModal);
  dialog_->setAutoClose(false);
  dialog_->setAutoReset(false);
  dialog_->setMinimumDuration(300);  // a small trace imports before the dialog would flash
  connect(dialog_, &QProgressDialog::canceled, this, &TraceImportAction::cancel);

  auto* watcher = new QFutureWatcher<TraceImportOutcome>(this);
  watcher_ = watcher;
  connect(watcher, &QFutureWatcherBase::progressValueChanged, dialog_, &QProgressDialog::setValue);
  connect(watcher, &QFutureWatcherBase::progressTextChanged, dialog_,
          &QProgressDialog::setLabelText);
  connect(watcher, &QFutureWatcherBase::finished, this, &TraceImportAction::done);
  Q_EMIT workbench_->message(
      kInfo, tr("importing %1 (%2) into %3").arg(trace, QString::fromStdString(format), database));
  const QString name = trace_name_;
  watcher->setFuture(QtConcurrent::run([request, format,
                                        name](QPromise<TraceImportOutcome>& promise) {
    promise.setProgressRange(0, kProgressSteps);
    TraceImportOutcome out;
    std::string last_stage;
    const TraceImportProgress progress = [&](std::string_view stage, double fraction) {
      // false cancels: import_trace throws before its transaction commits.
      if (promise.isCanceled()) return false;
      if (stage != last_stage) {
        last_stage = stage;
        promise.setProgressValueAndText(overall_progress(stage, fraction), stage_text(stage, name));
      } else {
        promise.setProgressValue(overall_progress(stage, fraction));
      }
      return true;
    };
    try {
      try {
        out.imported = import_trace_file(format, request, progress);
      } catch (const InputError& e) {
        // A trace without shapes has no workload to write (import refuses the option then):
        // its kernels are still worth storing, as File > Import stores them without it.
        if (!request.options.count("workload-out")) throw;
        ImportRequest without = request;
        without.options.erase("workload-out");
        last_stage.clear();
        out.imported = import_trace_file(format, without, progress);
        out.workload_error = QString::fromStdString(e.what());
      }
    } catch (const TraceImportCancelled&) {
      out.cancelled = true;
    } catch (const std::exception& e) {
      out.error = QString::fromStdString(e.what());
    }
    promise.addResult(std::move(out));
  }));
  return true;
}

void TraceImportAction::done() {
  auto* watcher = watcher_.data();
  if (!watcher) return;
  // A cancelled future keeps no result: that, or the worker's own word, is a cancel.
  TraceImportOutcome out;
  bool cancelled = watcher->isCanceled() || watcher->future().resultCount() == 0;
  if (!cancelled) {
    out = watcher->result();
    cancelled = out.cancelled;
  }
  watcher->deleteLater();
  watcher_.clear();
  if (dialog_) {
    dialog_->hide();
    dialog_->deleteLater();
    dialog_ = nullptr;
  }
  if (cancelled) {
    const QString text = tr("import of %1 cancelled; %2 is as it was").arg(trace_name_, database_);
    Q_EMIT workbench_->message(kInfo, text);
    Q_EMIT finished(false, true, text);
    return;
  }
  if (!out.error.isEmpty()) {
    Q_EMIT workbench_->message(kError, out.error);
    Q_EMIT finished(false, false, out.error);
    return;
  }
  QStringList lines;
  report_import(
      out.imported.result, database_.toStdString(),
      [&](const std::string& line) {
        lines << QString::fromStdString(line);
        Q_EMIT workbench_->message(kInfo, QString::fromStdString(line));
      },
      [&](const std::string& line) {
        // The CLI's stderr lines: a "warning: " one is a warning here, the total is news.
        QString text = QString::fromStdString(line);
        const bool warning = text.startsWith("warning: ");
        if (warning) text.remove(0, 9);
        Q_EMIT workbench_->message(warning ? kWarning : kInfo, text);
      });
  if (!out.workload_error.isEmpty())
    Q_EMIT workbench_->message(
        kWarning, tr("no workload of the trace's operators: %1").arg(out.workload_error));
  else if (!workload_out_.isEmpty() && workbench_->whatIf()->workloadPath().isEmpty())
    workbench_->whatIf()->openWorkload(workload_out_);  // the Operators page: what ran
  stopReading();
  kernels_ = std::move(out.imported.kernels);
  kernels_name_ = trace_track_name(trace_name_);
  kernels_database_ = database_;
  kernels_run_ = out.imported.result.runs.empty() ? -1 : out.imported.result.runs.front().id;
  // The database shows the trace's run: its operators on the correlation page, predicted on the
  // open graph; once they are in, pointsChanged rebuilds the timeline with the predictions.
  if (workbench_->runBrowser()->openResults(database_) && kernels_run_ >= 0)
    workbench_->runBrowser()->chooseRunId(kernels_run_);
  drawKernels();  // measured now, predicted once the run's points are in
  Q_EMIT finished(true, false, lines.join('\n'));
}

void TraceImportAction::rebuildTimeline() {
  if (busy()) return;  // the import's done() shows its run
  RunBrowser* browser = workbench_->runBrowser();
  const CatalogRun* shown = browser->shownRun();
  const QString database = browser->resultsPath();
  if (shown && shown->run.id == kernels_run_ && database == kernels_database_) {
    stopReading();
    drawKernels();
    return;
  }
  const RecordedTrace trace =
      shown ? recorded_trace(shown->run, database.toStdString()) : RecordedTrace{};
  if (trace.format.empty()) {  // no run, or one that is no trace import: no trace tracks
    stopReading();
    showNoKernels({});
    return;
  }
  const int64_t run = shown->run.id;
  if (reading_ && reading_run_ == run && reading_database_ == database) return;  // under way
  stopReading();
  const QString key = run_key(database, run);
  if (given_up_run_ == key) {  // cancelled, or unreadable: not read again until shown anew
    showNoKernels(given_up_note_);
    return;
  }
  given_up_run_.clear();
  const QString recorded = QString::fromStdString(trace.recorded);
  if (trace.path.empty()) {
    QStringList places;
    for (const std::string& place : trace.tried)
      places << QFileInfo(QString::fromStdString(place)).absoluteFilePath();
    const QString where = places.join(tr(", nor at "));
    if (!missing_reported_.contains(key + '@' + recorded)) {
      missing_reported_ << key + '@' + recorded;
      Q_EMIT workbench_->message(
          kWarning, tr("run %1 of %2: its trace %3 is missing (not at %4); its kernels are not "
                       "drawn on the Timeline")
                        .arg(run)
                        .arg(database, recorded, where));
    }
    showNoKernels(tr("The kernels of run %1 (%2, %3) cannot be drawn: its trace is not at %4. "
                     "Put the trace back there (or beside the database) and choose the run "
                     "again, or import it again (File > Import trace).")
                      .arg(run)
                      .arg(QString::fromStdString(shown->run.start.collector),
                           QString::fromStdString(shown->run.start.workload), where));
    return;
  }
  showNoKernels({});  // another run's kernels are not this one's, while its own are read
  readRecordedTrace(run, database, trace, trace_track_name(recorded));
}

void TraceImportAction::readRecordedTrace(int64_t run, const QString& database,
                                          const RecordedTrace& trace, const QString& name) {
  reading_run_ = run;
  reading_database_ = database;
  reading_path_ = QString::fromStdString(trace.path);
  reading_name_ = name;
  auto* watcher = new QFutureWatcher<RecordedKernels>(this);
  reading_ = watcher;
  connect(watcher, &QFutureWatcherBase::finished, this, &TraceImportAction::recordedTraceRead);
  workbench_->backgroundWork()->track(watcher, tr("Reading the kernels of run %1 from %2")
                                                   .arg(run)
                                                   .arg(QFileInfo(reading_path_).fileName()));
  watcher->setFuture(QtConcurrent::run([trace](QPromise<RecordedKernels>& promise) {
    promise.setProgressRange(0, kProgressSteps);
    RecordedKernels out;
    const TraceImportProgress progress = [&](std::string_view stage, double fraction) {
      if (promise.isCanceled()) return false;  // read_recorded_trace throws, unwinding the read
      // Reading is most of the work, matching kernels to operators the rest (nothing is stored).
      const double done = stage == "match" ? 0.9 + 0.1 * fraction : 0.9 * fraction;
      promise.setProgressValue(static_cast<int>(std::clamp(done, 0.0, 1.0) * kProgressSteps));
      return true;
    };
    try {
      out.kernels = read_recorded_trace(trace, progress);
    } catch (const TraceImportCancelled&) {
      out.cancelled = true;
    } catch (const std::exception& e) {
      out.error = QString::fromStdString(e.what());
    }
    promise.addResult(std::move(out));
  }));
}

void TraceImportAction::recordedTraceRead() {
  auto* watcher = reading_.data();
  if (!watcher) return;
  reading_.clear();
  RecordedKernels out;
  bool cancelled = watcher->isCanceled() || watcher->future().resultCount() == 0;
  if (!cancelled) {
    out = watcher->result();
    cancelled = out.cancelled;
  }
  const QString key = run_key(reading_database_, reading_run_);
  if (cancelled || !out.error.isEmpty()) {
    given_up_run_ = key;
    given_up_note_ =
        cancelled
            ? tr("Reading the kernels of run %1 from %2 was cancelled; choose another run "
                 "and this one again to read them.")
                  .arg(reading_run_)
                  .arg(reading_path_)
            : tr("The kernels of run %1 cannot be drawn: %2").arg(reading_run_).arg(out.error);
    Q_EMIT workbench_->message(cancelled ? kInfo : kError, cancelled ? given_up_note_ : out.error);
    showNoKernels(given_up_note_);
  } else {
    kernels_ = std::move(out.kernels);
    kernels_name_ = reading_name_;
    kernels_database_ = reading_database_;
    kernels_run_ = reading_run_;
    Q_EMIT workbench_->message(kInfo, tr("run %1: %2 kernels read from %3 for the Timeline")
                                          .arg(reading_run_)
                                          .arg(kernels_.size())
                                          .arg(reading_path_));
    drawKernels();
  }
  workbench_->backgroundWork()->untrack(watcher);
}

void TraceImportAction::stopReading() {
  auto* watcher = reading_.data();
  if (!watcher) return;
  reading_.clear();
  // Its result is not wanted; the work tracker lets it go once the worker has stopped.
  disconnect(watcher, &QFutureWatcherBase::finished, this, nullptr);
  BackgroundWork* work = workbench_->backgroundWork();
  connect(watcher, &QFutureWatcherBase::finished, work,
          [work, watcher] { work->untrack(watcher); });
  watcher->cancel();
  if (watcher->isFinished()) work->untrack(watcher);
}

void TraceImportAction::drawKernels() {
  RunBrowser* browser = workbench_->runBrowser();
  const CatalogRun* shown = browser->shownRun();
  // Predictions are the points of the kernels' own run, never another's shown meanwhile.
  const bool own =
      shown && shown->run.id == kernels_run_ && browser->resultsPath() == kernels_database_;
  timeline_ = views::trace_timeline(kernels_, kernels_name_.toStdString(),
                                    own ? browser->points() : std::vector<ComparedPoint>{});
  workbench_->setTraceTimeline(timeline_);
}

void TraceImportAction::showNoKernels(const QString& note) {
  // Every points load lands here for a run without a trace: leave the timeline (and its zoom)
  // alone unless something changes.
  if (timeline_.tracks.empty() && workbench_->traceTimelineNote() == note) return;
  timeline_ = {};
  workbench_->setTraceTimeline({}, note);
}

}  // namespace ts::gui
