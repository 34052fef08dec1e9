#include "RunBrowser.hpp"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QPromise>
#include <QtConcurrent>
#include <algorithm>
#include <atomic>
#include <optional>

#include "BackgroundWork.hpp"
#include "Severity.hpp"
#include "WhatIfSession.hpp"
#include "correlate/CorrelationData.hpp"
#include "measure/MeasuredCost.hpp"
#include "measure/MeasurementFit.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"

namespace ts::gui {

// The loaded points of one run (or the CSV), or why there are none.
struct PointsLoad {
  CorrelationInput input;
  QString error;
};

// How far a load of measurements got (written by the worker, read once it has finished).
struct LoadProgress {
  std::atomic<size_t> done{0}, total{0};
};

namespace {

// Thrown from a load's progress callback to abandon the load once it is cancelled.
struct LoadAbandoned {};

}  // namespace

RunBrowser::RunBrowser(WhatIfSession* session, BackgroundWork* work, QObject* parent)
    : QObject(parent), session_(session), work_(work) {
  connect(session, &WhatIfSession::rowsReset, this, &RunBrowser::rowsReset);
}

void RunBrowser::report(int severity, const QString& text) { Q_EMIT message(severity, text); }

void RunBrowser::rowsReset() {
  operator_keys_.clear();
  if (const auto workload = session_->workload())
    for (const Operator& op : workload->operators)
      operator_keys_.push_back(operator_key(op, workload->name));
  matchMeasurements();
}

bool RunBrowser::openResults(const QString& path) {
  std::vector<RunInfo> runs;
  try {
    runs = ResultStore(path.toStdString(), ResultStore::Mode::read_only).runs();
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  results_path_ = path;
  catalog_ = run_catalog(runs);
  device_names_.clear();
  for (const CatalogDevice& d : catalog_.devices)
    device_names_ << QString::fromStdString(d.display_name);
  report(kInfo, tr("results database %1: %2 runs on %3 devices")
                    .arg(path)
                    .arg(runs.size())
                    .arg(device_names_.size()));
  overlay_points_.clear();
  // The open graph's own runs first (their "measured" and "error" columns fill), then any
  // predicted run, then the newest (issue 22): the run shown, and its device.
  const auto baseline_graph = session_->baselineGraph();
  const auto opened =
      catalog_.run_to_open(baseline_graph ? hash_text(baseline_graph->content_hash()) : "");
  current_device_ = opened ? static_cast<int>(catalog_.runs[*opened].device) : -1;
  current_run_ = -1;
  filterRuns();
  Q_EMIT runsChanged();
  const auto shown =
      opened ? std::find(run_ids_.begin(), run_ids_.end(), catalog_.runs[*opened].run.id)
             : run_ids_.end();
  chooseRun(static_cast<int>(shown - run_ids_.begin()));
  return true;
}

void RunBrowser::filterRuns() {
  run_ids_.clear();
  run_names_.clear();
  if (current_device_ < 0) return;
  for (size_t i : catalog_.runs_of(static_cast<size_t>(current_device_))) {
    run_ids_.push_back(catalog_.runs[i].run.id);
    run_names_ << QString::fromStdString(catalog_.runs[i].label);
  }
}

void RunBrowser::chooseDevice(int index) {
  if (index < 0 || index >= device_names_.size() || index == current_device_) return;
  current_device_ = index;
  current_run_ = -1;
  filterRuns();
  Q_EMIT runsChanged();
  chooseRun(static_cast<int>(run_ids_.size()) - 1);
}

QStringList RunBrowser::overlayRuns() const {
  QStringList names;
  for (const CatalogRun& r : catalog_.runs) names << QString::fromStdString(r.label);
  return names;
}

void RunBrowser::chooseRun(int index) {
  if (index < 0 || static_cast<size_t>(index) >= run_ids_.size()) {
    points_.clear();
    points_source_.clear();
    current_run_ = -1;
    matchMeasurements();
    Q_EMIT pointsChanged();
    return;
  }
  loadRun(run_ids_[static_cast<size_t>(index)], false, index);
}

void RunBrowser::chooseRunId(int64_t run_id) {
  const CatalogRun* run = catalog_.find(run_id);
  if (!run) return;
  if (static_cast<int>(run->device) != current_device_) {
    current_device_ = static_cast<int>(run->device);
    current_run_ = -1;
    filterRuns();
    Q_EMIT runsChanged();
  }
  const auto at = std::find(run_ids_.begin(), run_ids_.end(), run_id);
  chooseRun(static_cast<int>(at - run_ids_.begin()));
}

void RunBrowser::chooseOverlayRun(int index) {
  if (index < 0 || static_cast<size_t>(index) >= catalog_.runs.size()) {
    overlay_points_.clear();
    Q_EMIT pointsChanged();
    return;
  }
  loadRun(catalog_.runs[static_cast<size_t>(index)].run.id, true, -1);
}

void RunBrowser::acceptPoints(QFutureWatcher<PointsLoad>* watcher, int generation, bool overlay,
                              int run_index, const std::shared_ptr<LoadProgress>& progress) {
  // A newer load (another run, another file) may have started meanwhile: only the newest counts.
  if (generation == points_generation_ && watcher->isCanceled()) {
    report(kInfo, tr("loading cancelled after %1 of %2 rows; what was shown stays")
                      .arg(QLocale().toString(static_cast<qulonglong>(progress->done)),
                           QLocale().toString(static_cast<qulonglong>(progress->total))));
    Q_EMIT pointsLoadCancelled(static_cast<qint64>(progress->done.load()),
                               static_cast<qint64>(progress->total.load()));
    Q_EMIT runsChanged();  // the run shown is still the one before
  } else if (generation == points_generation_ && watcher->future().resultCount() > 0) {
    PointsLoad load = watcher->result();
    if (!load.error.isEmpty()) {
      report(kError, load.error);
    } else {
      for (const auto& note : load.input.notes) report(kWarning, QString::fromStdString(note));
      if (overlay) {
        overlay_points_ = std::move(load.input.points);
      } else {
        points_ = std::move(load.input.points);
        points_source_ = QString::fromStdString(load.input.source);
        current_run_ = run_index;
        matchMeasurements();
      }
      Q_EMIT pointsChanged();
    }
  }
  work_->untrack(watcher);
}

namespace {

// A load's progress callback: rows done of total, and the place where Cancel takes effect.
template <typename T>
InputProgress load_progress(QPromise<T>& promise, LoadProgress& progress) {
  return [&promise, &progress, range = size_t(-1)](size_t done, size_t total) mutable {
    progress.done = done;
    progress.total = total;
    if (promise.isCanceled()) throw LoadAbandoned{};
    if (total != range) promise.setProgressRange(0, static_cast<int>(range = total));
    promise.setProgressValue(static_cast<int>(done));
  };
}

// One load of measured points off the GUI thread: `read` (core's db_input or csv_input) with
// progress and Cancel, or why it failed; no result once it is cancelled.
template <typename Options, typename Read>
void load_points(QPromise<PointsLoad>& promise, LoadProgress& progress, Options options,
                 const Read& read) {
  options.progress = load_progress(promise, progress);
  PointsLoad load;
  try {
    load.input = read(options);
  } catch (const LoadAbandoned&) {
    return;
  } catch (const std::exception& e) {
    load.error = QString::fromStdString(e.what());
  }
  promise.addResult(std::move(load));
}

}  // namespace

void RunBrowser::loadRun(int64_t run_id, bool overlay, int run_index) {
  const int generation = ++points_generation_;
  DbInputOptions options;
  options.path = results_path_.toStdString();
  options.run = run_id;
  auto progress = std::make_shared<LoadProgress>();
  std::shared_ptr<const ArchitectureGraph> graph;     // kept alive while the worker predicts on it
  if (const CatalogRun* r = catalog_.find(run_id)) {  // known before a row is read, for a cancel
    progress->total = static_cast<size_t>(r->run.measurement_count);
    if (r->predicted_on_open_graph) graph = session_->graph();
  }
  options.graph = graph.get();
  options.mapper = session_->mapperOptions();
  auto* watcher = new QFutureWatcher<PointsLoad>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [this, watcher, generation, overlay, run_index, progress] {
            acceptPoints(watcher, generation, overlay, run_index, progress);
          });
  work_->track(watcher,
               tr("Loading %1 run %2").arg(QFileInfo(results_path_).fileName()).arg(run_id),
               tr("rows"));
  watcher->setFuture(QtConcurrent::run([options, progress, graph](QPromise<PointsLoad>& promise) {
    load_points(promise, *progress, options, [](const DbInputOptions& o) { return db_input(o); });
  }));
}

bool RunBrowser::openMeasurementCsv(const QString& path) {
  auto graph = session_->graph();
  if (!graph) {
    report(kError, tr("%1: open an architecture first: its rows are predicted on it").arg(path));
    return false;
  }
  const int generation = ++points_generation_;
  CsvInputOptions options;
  options.path = path.toStdString();
  options.op_type = "gemm";
  results_path_ = path;
  catalog_ = {};
  device_names_.clear();
  current_device_ = -1;
  run_ids_.clear();
  run_names_ = QStringList{QFileInfo(path).fileName()};
  current_run_ = -1;
  overlay_points_.clear();
  Q_EMIT runsChanged();
  auto progress = std::make_shared<LoadProgress>();
  auto* watcher = new QFutureWatcher<PointsLoad>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, progress] {
    acceptPoints(watcher, generation, false, 0, progress);
  });
  work_->track(watcher, tr("Predicting the measured shapes of %1").arg(QFileInfo(path).fileName()),
               tr("rows"));
  watcher->setFuture(QtConcurrent::run([options, graph, progress](QPromise<PointsLoad>& promise) {
    load_points(promise, *progress, options,
                [&graph](const CsvInputOptions& o) { return csv_input(*graph, o); });
  }));
  return true;
}

int RunBrowser::rowOfPoint(const ComparedPoint& point) const {
  const auto row = operator_of(operator_key(point), operator_keys_);
  return row ? static_cast<int>(*row) : -1;
}

void RunBrowser::matchMeasurements() {
  FastestMeasurements fastest;
  for (const ComparedPoint& p : points_) fastest.add(operator_key(p), p.measured_s, p.scope);
  size_t matched = 0;
  for (size_t i = 0; i < operator_keys_.size(); ++i) {
    const auto cost = fastest.of(operator_keys_[i]);
    matched += cost.has_value();
    session_->operators()->setMeasured(static_cast<int>(i),
                                       cost ? std::optional(cost->seconds) : std::nullopt,
                                       cost ? cost->scope : TimingScope::device);
  }

  // Blank columns need a reason on screen: a run of another suite, or errors against a graph
  // the run was not predicted on (issue 22: Ascend + BERT open over a host database).
  const auto workload = session_->workload();
  const auto baseline_graph = session_->baselineGraph();
  const CatalogRun* run = shownRun();
  const QString what = run ? tr("run %1").arg(run->run.id) : points_source_;
  QString note;
  switch (measurement_fit(
      {.measurements = points_.size(),
       .operators_measured = matched,
       .workload_open = workload != nullptr,
       .run_arch_hash = run ? run->run.start.device.arch_hash : "",
       .open_arch_hash = baseline_graph ? hash_text(baseline_graph->content_hash()) : ""})) {
    case MeasurementFit::fits:
      break;
    case MeasurementFit::other_workload:
      note = tr("None of the %1 measurements of %2 (%3) is an operator of the open workload %4: "
                "\"measured\" and \"error\" stay blank.")
                 .arg(points_.size())
                 .arg(what, run ? QString::fromStdString(run->run.start.workload) : tr("a CSV"),
                      QString::fromStdString(workload->name));
      if (run && !run->workload_file.empty())
        note += tr(" Open %1, the workload it measured.")
                    .arg(QString::fromStdString(run->workload_file));
      break;
    case MeasurementFit::other_graph:
      note = tr("%1 was measured on %2, not on the open graph %3: its \"error\" compares with "
                "the open graph's predictions.")
                 .arg(what, QString::fromStdString(run->run.start.device.name),
                      QString::fromStdString(baseline_graph->name));
      break;
  }
  if (note != measurement_note_) {
    measurement_note_ = note;
    if (!note.isEmpty()) report(kWarning, note);
    Q_EMIT measurementNoteChanged(note);
  }
}

const CatalogRun* RunBrowser::shownRun() const {
  if (current_run_ < 0 || static_cast<size_t>(current_run_) >= run_ids_.size()) return nullptr;
  return catalog_.find(run_ids_[static_cast<size_t>(current_run_)]);
}

}  // namespace ts::gui
