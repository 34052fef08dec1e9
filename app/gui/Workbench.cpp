#include "Workbench.hpp"

#include <QEventLoop>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QLocale>
#include <QPromise>
#include <QTimer>
#include <QUndoStack>
#include <QtConcurrent>
#include <algorithm>
#include <atomic>
#include <optional>

#include "EditParameterCommand.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "common/WorkspaceFile.hpp"
#include "common/YamlSource.hpp"
#include "correlate/CorrelationData.hpp"
#include "measure/MeasuredCost.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunLabels.hpp"
#include "measure/RunSettings.hpp"
#include "profile/ArchitectureReference.hpp"
#include "views/ArchitectureParameter.hpp"
#include "views/TraceTimeline.hpp"
#include "workload/WorkloadLoader.hpp"

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

struct IndexedOutcome {
  int index = 0;
  OperatorOutcome outcome;
};

// Shared by the GUI and one background mapping run: the flag the mapper polls, and where the run
// stopped (written by the worker, read once it has finished).
struct SearchStop {
  std::atomic<bool> requested{false};
  int mapped = 0;
  std::string op;
  uint64_t evaluations = 0;
  double at_most = 0;
};

namespace {

// Thrown from a load's progress callback to abandon the load once it is cancelled.
struct LoadAbandoned {};

// Every operator of the suite through the mapper, in order, until done or stopped.
// `starts`, per operator (empty: none), are the mappings shown before an edit: each search
// starts from its operator's and keeps it unless something is strictly faster.
void map_suite(QPromise<IndexedOutcome>& promise, const ArchitectureGraph& graph,
               const Workload& workload, MapperOptions options, SearchStop& stop,
               const std::vector<std::string>& starts) {
  options.cancel = &stop.requested;
  const int n = static_cast<int>(workload.operators.size());
  promise.setProgressRange(0, n);
  for (int i = 0; i < n; ++i) {
    if (promise.isCanceled() || stop.requested) return;
    const Operator& op = workload.operators[static_cast<size_t>(i)];
    const size_t k = static_cast<size_t>(i);
    OperatorOutcome outcome =
        map_operator(op, graph, options, k < starts.size() ? starts[k] : std::string());
    if (outcome.cancelled) {
      stop.op = op.name;
      stop.evaluations = outcome.mapper_evaluations;
      stop.at_most = std::min(outcome.mapper_space_size, static_cast<double>(options.budget));
      return;
    }
    promise.addResult(IndexedOutcome{i, std::move(outcome)});
    stop.mapped = i + 1;
    promise.setProgressValue(i + 1);
  }
}

}  // namespace

Workbench::Workbench(QObject* parent)
    : QObject(parent),
      operators_(new views::OperatorTableModel(this)),
      undo_(new QUndoStack(this)) {}

Workbench::~Workbench() {
  cancel();
  waitForIdle();
}

void Workbench::report(int severity, const QString& text) { Q_EMIT message(severity, text); }

bool Workbench::openFile(const QString& path) {
  // `profile:NAME[/VARIANT]` (the "Open profile" menu, or a command line) opens that graph.
  if (is_profile_reference(path.toStdString())) {
    std::string file;
    try {
      file = resolve_architecture_file(path.toStdString(), SourceLocation{"profile", 0, 0});
    } catch (const InputError& e) {
      report(kError, QString::fromStdString(e.what()));
      return false;
    }
    return openArchitecture(QString::fromStdString(file));
  }
  const QFileInfo info(path);
  if (!info.exists()) {
    report(kError, tr("%1: no such file").arg(path));
    return false;
  }
  const QString suffix = info.suffix().toLower();
  if (is_sqlite_file(path.toStdString())) return openResults(path);
  if (suffix == "csv") return openMeasurementCsv(path);
  if (suffix == "json") return openSimulation(path);
  // YAML that does not parse is reported where the parser stopped (a file:1:1 here hid the
  // line at fault). A file without a kind, or of a kind the GUI does not open, gets the message
  // below, which lists what the GUI opens (core's own lists what `validate` checks).
  std::optional<YamlSource> source;
  try {
    source = YamlSource::load(path.toStdString());
  } catch (const InputError& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  std::string kind;
  SourceLocation kind_at{path.toStdString(), 1, 1};
  try {
    kind = kind_of(*source);
    kind_at = source->where(source->root()["kind"]);
  } catch (const InputError& e) {
    kind_at = e.where();
  }
  source.reset();  // each loader reads the file itself
  if (kind == "architecture") return openArchitecture(path);
  if (kind == "workload") return openWorkload(path);
  if (kind == "workspace") return openWorkspace(path);
  report(kError, tr("%1: not a file tilescope-gui opens (expected kind: architecture, workload "
                    "or workspace, a results database, a CSV of measurements or a simulation "
                    ".json)")
                     .arg(QString::fromStdString(format_location(kind_at))));
  return false;
}

bool Workbench::openArchitecture(const QString& path) {
  try {
    auto graph = std::make_shared<const ArchitectureGraph>(load_architecture(path.toStdString()));
    baseline_graph_ = graph;
    graph_ = graph;
    arch_path_ = path;
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  undo_->clear();
  report(kInfo, tr("architecture %1 (%2)").arg(QString::fromStdString(graph_->name), arch_path_));
  Q_EMIT architectureReplaced();
  resetRows();
  return true;
}

bool Workbench::openWorkload(const QString& path) {
  try {
    workload_ = std::make_shared<const Workload>(load_workload(path.toStdString()));
    workload_path_ = path;
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  report(kInfo, tr("workload %1: %2 operators (%3)")
                    .arg(QString::fromStdString(workload_->name))
                    .arg(workload_->operators.size())
                    .arg(workload_path_));
  Q_EMIT workloadReplaced();
  resetRows();
  return true;
}

void Workbench::resetRows() {
  std::vector<views::OperatorRow> rows;
  operator_keys_.clear();
  if (workload_)
    for (const Operator& op : workload_->operators) {
      operator_keys_.push_back(operator_key(op, workload_->name));
      views::OperatorRow r;
      r.name = QString::fromStdString(op.name);
      r.type = QString::fromStdString(std::string(to_string(op.type)));
      r.op_class = QString::fromStdString(std::string(to_string(op.primary_class())));
      r.shape = QString::fromStdString(op.shape_text());
      rows.push_back(std::move(r));
    }
  operators_->setRows(std::move(rows));
  matchMeasurements();
  if (graph_ && workload_) startBaseline();
}

void Workbench::track(QFutureWatcherBase* watcher, const QString& what, const QString& unit) {
  const bool was_busy = busy();
  running_.append(watcher);
  connect(watcher, &QFutureWatcherBase::progressValueChanged, this,
          [this, watcher, what, unit](int value) {
            const int total = watcher->progressMaximum();
            if (total <= 0) return;  // started, its size not known yet
            Q_EMIT progressChanged(unit.isEmpty() ? what
                                                  : tr("%1: %2 of %3 %4")
                                                        .arg(what, QLocale().toString(value),
                                                             QLocale().toString(total), unit),
                                   value, total);
          });
  if (!was_busy) Q_EMIT busyChanged(true);
}

void Workbench::untrack(QFutureWatcherBase* watcher) {
  running_.removeAll(watcher);
  running_.removeAll(nullptr);
  watcher->deleteLater();
  if (!busy()) Q_EMIT busyChanged(false);
}

bool Workbench::busy() const {
  for (const auto& w : running_)
    if (w && !w->isFinished()) return true;
  return false;
}

void Workbench::cancel() {
  // The mapper looks at its flag inside a search; the futures only between operators or rows.
  stopSearch(baseline_stop_);
  stopSearch(remap_stop_);
  for (const auto& w : running_)
    if (w) w->cancel();
}

void Workbench::stopSearch(const std::shared_ptr<SearchStop>& stop) {
  if (stop) stop->requested = true;
}

void Workbench::waitForIdle() {
  // Finished futures still deliver their results through queued signals: spin the event loop
  // until every watcher has said so.
  while (busy() || !running_.isEmpty()) {
    QEventLoop loop;
    QObject::connect(this, &Workbench::busyChanged, &loop, &QEventLoop::quit);
    QTimer::singleShot(50, &loop, &QEventLoop::quit);
    loop.exec();
    running_.removeAll(nullptr);
  }
}

QFutureWatcher<IndexedOutcome>* Workbench::startMapping(const std::shared_ptr<SearchStop>& stop,
                                                        const QString& what,
                                                        std::vector<std::string> starts) {
  auto graph = graph_;
  auto workload = workload_;
  auto* watcher = new QFutureWatcher<IndexedOutcome>(this);
  track(watcher, what, tr("operators"));
  watcher->setFuture(
      QtConcurrent::run([graph, workload, stop, options = mapper_options_,
                         starts = std::move(starts)](QPromise<IndexedOutcome>& promise) {
        map_suite(promise, *graph, *workload, options, *stop, starts);
      }));
  return watcher;
}

void Workbench::startBaseline() {
  const int generation = ++baseline_generation_;
  ++fixed_generation_;
  ++remap_generation_;
  stopSearch(baseline_stop_);
  stopSearch(remap_stop_);
  if (remap_watcher_) remap_watcher_->cancel();
  baseline_stop_ = std::make_shared<SearchStop>();
  auto* watcher = startMapping(baseline_stop_, tr("Mapping %1 on %2")
                                                   .arg(QString::fromStdString(workload_->name),
                                                        QString::fromStdString(graph_->name)));
  connect(watcher, &QFutureWatcherBase::resultsReadyAt, this,
          [this, watcher, generation](int begin, int end) {
            if (generation != baseline_generation_) return;
            for (int k = begin; k < end; ++k) {
              const IndexedOutcome r = watcher->resultAt(k);
              operators_->setBaseline(r.index, r.outcome);
              if (!r.outcome.ok)
                report(kWarning, QString::fromStdString(r.outcome.error));
              else if (graph_ != baseline_graph_)
                // Edited before the first mapping came back: the fixed what-if needs it now.
                operators_->setFixed(
                    r.index,
                    evaluate_fixed_mapping(workload_->operators[static_cast<size_t>(r.index)],
                                           *graph_, r.outcome.mapping_yaml));
            }
          });
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    if (generation == baseline_generation_ && !watcher->isCanceled()) {
      report(kInfo, tr("predicted %1 operators").arg(operators_->rowCount()));
      Q_EMIT baselineReady();
    }
    untrack(watcher);
  });
}

void Workbench::editParameter(const QString& path, double value) {
  if (!graph_) return;
  double before = 0;
  try {
    before = parameter(path);
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return;
  }
  undo_->push(new EditParameterCommand(this, path, before, value));
}

double Workbench::parameter(const QString& path) const {
  return views::read_parameter(*graph_, *baseline_graph_, path.toStdString());
}

void Workbench::applyParameter(const QString& path, double value) {
  if (!graph_) return;
  try {
    auto edited = std::make_shared<ArchitectureGraph>(*graph_);
    views::write_parameter(*edited, *baseline_graph_, path.toStdString(), value);
    graph_ = std::move(edited);
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return;
  }
  Q_EMIT architectureEdited();
  if (!workload_) return;
  operators_->setRemapPending();
  startFixed();
}

void Workbench::startFixed() {
  const int generation = ++fixed_generation_;
  ++remap_generation_;  // a remap of an older graph is stale now: stop its search part-way
  stopSearch(remap_stop_);
  if (remap_watcher_) remap_watcher_->cancel();
  auto graph = graph_;
  auto workload = workload_;
  std::vector<std::string> mappings;
  for (int i = 0; i < operators_->rowCount(); ++i) {
    const auto& b = operators_->row(i).baseline;
    mappings.push_back(b && b->ok ? b->mapping_yaml : std::string());
  }
  auto* watcher = new QFutureWatcher<std::vector<OperatorOutcome>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    if (generation == fixed_generation_ && !watcher->isCanceled() &&
        watcher->future().resultCount() > 0) {
      const auto outcomes = watcher->result();
      for (size_t i = 0; i < outcomes.size(); ++i)
        if (!outcomes[i].mapping_yaml.empty() || !outcomes[i].error.empty())
          operators_->setFixed(static_cast<int>(i), outcomes[i]);
      Q_EMIT fixedReady();
      startRemap();
    } else if (generation == fixed_generation_ && watcher->isCanceled()) {
      operators_->setRemapCancelled();  // Cancel came before the mapper could start
    }
    untrack(watcher);
  });
  track(watcher, tr("Re-evaluating the current mappings"));
  watcher->setFuture(QtConcurrent::run([graph, workload, mappings] {
    std::vector<OperatorOutcome> out(mappings.size());
    for (size_t i = 0; i < mappings.size(); ++i)
      if (!mappings[i].empty())
        out[i] = evaluate_fixed_mapping(workload->operators[i], *graph, mappings[i]);
    return out;
  }));
}

void Workbench::startRemap() {
  const int generation = ++remap_generation_;
  auto stop = std::make_shared<SearchStop>();
  remap_stop_ = stop;
  // Each search starts from the mapping shown now (the last re-mapping, else the baseline), so
  // that an edit that speeds the hardware up never shows a slower operator.
  std::vector<std::string> starts;
  for (int i = 0; i < operators_->rowCount(); ++i) {
    const auto& r = operators_->row(i);
    const auto& shown = r.remapped && r.remapped->ok ? r.remapped : r.baseline;
    starts.push_back(shown && shown->ok ? shown->mapping_yaml : std::string());
  }
  auto* watcher =
      startMapping(stop, tr("Re-running the mapper on the edited graph"), std::move(starts));
  remap_watcher_ = watcher;
  connect(watcher, &QFutureWatcherBase::resultsReadyAt, this,
          [this, watcher, generation](int begin, int end) {
            if (generation != remap_generation_) return;
            for (int k = begin; k < end; ++k) {
              const IndexedOutcome r = watcher->resultAt(k);
              operators_->setRemapped(r.index, r.outcome);
            }
          });
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation, stop] {
    const bool current = generation == remap_generation_;
    if (!watcher->isCanceled() && !stop->requested) {
      if (current) Q_EMIT remapReady();
    } else {
      MapperStopReport r;
      r.mapped = stop->mapped;
      r.total = workload_ ? static_cast<int>(workload_->operators.size()) : 0;
      r.op = QString::fromStdString(stop->op);
      r.evaluations = stop->evaluations;
      r.at_most = stop->at_most;
      r.superseded = !current;
      last_stop_ = r;
      if (current) {
        operators_->setRemapCancelled();
        QString text =
            tr("re-mapping cancelled: %1 of %2 operators re-mapped").arg(r.mapped).arg(r.total);
        if (!r.op.isEmpty())
          text += tr("; the search for %1 stopped after %2 of at most %3 evaluations")
                      .arg(r.op, QLocale().toString(r.evaluations),
                           QLocale().toString(r.at_most, 'f', 0));
        report(kInfo, text);
      }
      Q_EMIT remapStopped(r);
    }
    untrack(watcher);
  });
}

bool Workbench::openResults(const QString& path) {
  std::vector<RunInfo> runs;
  std::optional<int64_t> default_run;
  try {
    ResultStore store(path.toStdString(), ResultStore::Mode::read_only);
    runs = store.runs();
    // The open graph's own runs first (their "measured" and "error" columns fill), then any
    // predicted run, then the newest (issue 22: never an empty run or an unpredicted import
    // while a better one is there).
    default_run = most_interesting_run(
        runs, baseline_graph_ ? hash_text(baseline_graph_->content_hash()) : std::string());
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  results_path_ = path;
  all_runs_.clear();
  device_names_.clear();
  // A device is a row of the devices table: the same name, kind, graph and properties.
  std::vector<std::string> device_keys;
  const std::vector<std::string> labels = run_labels(runs);  // what tells the runs apart
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInfo& r = runs[i];
    const DeviceInfo& d = r.start.device;
    const std::string key =
        d.name + '\x1f' + d.kind + '\x1f' + d.arch_hash + '\x1f' + d.properties_json;
    auto it = std::find(device_keys.begin(), device_keys.end(), key);
    if (it == device_keys.end()) {
      device_keys.push_back(key);
      device_names_ << tr("%1 (%2)").arg(QString::fromStdString(d.name),
                                         QString::fromStdString(d.kind));
      it = device_keys.end() - 1;
    }
    all_runs_.push_back({r.id,
                         tr("run %1: %2, %3 measurements (%4)")
                             .arg(r.id)
                             .arg(QString::fromStdString(labels[i]))
                             .arg(r.measurement_count)
                             .arg(QString::fromStdString(std::string(to_string(r.status)))),
                         static_cast<int>(it - device_keys.begin()),
                         static_cast<size_t>(r.measurement_count), d.arch_hash.empty(),
                         QString::fromStdString(r.start.workload),
                         QString::fromStdString(
                             read_run_settings(r.start.settings_json).workload_file.value_or("")),
                         QString::fromStdString(d.arch_hash), QString::fromStdString(d.name)});
  }
  // Two devices of one name (another graph or other properties): tell them apart.
  for (int i = 0; i < device_names_.size(); ++i)
    if (device_names_.count(device_names_[i]) > 1) device_names_[i] += tr(" #%1").arg(i + 1);
  report(kInfo, tr("results database %1: %2 runs on %3 devices")
                    .arg(path)
                    .arg(runs.size())
                    .arg(device_names_.size()));
  overlay_points_.clear();
  // The device of the default run (most_interesting_run: an empty run left by a kill is never
  // opened by default; the latest run when none has a measurement), and that run.
  const auto opened = std::find_if(all_runs_.begin(), all_runs_.end(), [&](const RunEntry& r) {
    return default_run && r.id == *default_run;
  });
  current_device_ = -1;
  if (opened != all_runs_.end())
    current_device_ = opened->device;
  else if (!all_runs_.empty())
    current_device_ = all_runs_.back().device;
  current_run_ = -1;
  filterRuns();
  Q_EMIT runsChanged();
  const auto shown =
      default_run ? std::find(run_ids_.begin(), run_ids_.end(), *default_run) : run_ids_.end();
  chooseRun(shown != run_ids_.end() ? static_cast<int>(shown - run_ids_.begin())
                                    : static_cast<int>(run_ids_.size()) - 1);
  return true;
}

void Workbench::filterRuns() {
  run_ids_.clear();
  run_names_.clear();
  for (const RunEntry& r : all_runs_)
    if (r.device == current_device_) {
      run_ids_.push_back(r.id);
      run_names_ << r.name;
    }
}

void Workbench::chooseDevice(int index) {
  if (index < 0 || index >= device_names_.size() || index == current_device_) return;
  current_device_ = index;
  current_run_ = -1;
  filterRuns();
  Q_EMIT runsChanged();
  chooseRun(static_cast<int>(run_ids_.size()) - 1);
}

QStringList Workbench::overlayRuns() const {
  QStringList names;
  for (const RunEntry& r : all_runs_) names << r.name;
  return names;
}

void Workbench::chooseRun(int index) {
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

void Workbench::chooseRunId(int64_t run_id) {
  const auto run = std::find_if(all_runs_.begin(), all_runs_.end(),
                                [&](const RunEntry& r) { return r.id == run_id; });
  if (run == all_runs_.end()) return;
  if (run->device != current_device_) {
    current_device_ = run->device;
    current_run_ = -1;
    filterRuns();
    Q_EMIT runsChanged();
  }
  const auto at = std::find(run_ids_.begin(), run_ids_.end(), run_id);
  chooseRun(static_cast<int>(at - run_ids_.begin()));
}

void Workbench::chooseOverlayRun(int index) {
  if (index < 0 || static_cast<size_t>(index) >= all_runs_.size()) {
    overlay_points_.clear();
    Q_EMIT pointsChanged();
    return;
  }
  loadRun(all_runs_[static_cast<size_t>(index)].id, true, -1);
}

void Workbench::acceptPoints(QFutureWatcher<PointsLoad>* watcher, int generation, bool overlay,
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
  untrack(watcher);
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

}  // namespace

void Workbench::loadRun(int64_t run_id, bool overlay, int run_index) {
  const int generation = ++points_generation_;
  DbInputOptions options;
  options.path = results_path_.toStdString();
  options.run = run_id;
  auto progress = std::make_shared<LoadProgress>();
  std::shared_ptr<const ArchitectureGraph> graph;  // kept alive while the worker predicts on it
  for (const RunEntry& r : all_runs_)  // known before a row is read, for a cancel right away
    if (r.id == run_id) {
      progress->total = r.rows;
      if (r.predict_on_open_graph && graph_) graph = graph_;
    }
  options.graph = graph.get();
  options.mapper = mapper_options_;
  auto* watcher = new QFutureWatcher<PointsLoad>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [this, watcher, generation, overlay, run_index, progress] {
            acceptPoints(watcher, generation, overlay, run_index, progress);
          });
  track(watcher, tr("Loading %1 run %2").arg(QFileInfo(results_path_).fileName()).arg(run_id),
        tr("rows"));
  watcher->setFuture(
      QtConcurrent::run([options, progress, graph](QPromise<PointsLoad>& promise) mutable {
        options.progress = load_progress(promise, *progress);
        PointsLoad load;
        try {
          load.input = db_input(options);
        } catch (const LoadAbandoned&) {
          return;
        } catch (const std::exception& e) {
          load.error = QString::fromStdString(e.what());
        }
        promise.addResult(std::move(load));
      }));
}

bool Workbench::openMeasurementCsv(const QString& path) {
  if (!graph_) {
    report(kError, tr("%1: open an architecture first: its rows are predicted on it").arg(path));
    return false;
  }
  const int generation = ++points_generation_;
  CsvInputOptions options;
  options.path = path.toStdString();
  options.op_type = "gemm";
  auto graph = graph_;
  results_path_ = path;
  all_runs_.clear();
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
  track(watcher, tr("Predicting the measured shapes of %1").arg(QFileInfo(path).fileName()),
        tr("rows"));
  watcher->setFuture(
      QtConcurrent::run([options, graph, progress](QPromise<PointsLoad>& promise) mutable {
        options.progress = load_progress(promise, *progress);
        PointsLoad load;
        try {
          load.input = csv_input(*graph, options);
        } catch (const LoadAbandoned&) {
          return;
        } catch (const std::exception& e) {
          load.error = QString::fromStdString(e.what());
        }
        promise.addResult(std::move(load));
      }));
  return true;
}

int Workbench::rowOfPoint(const ComparedPoint& point) const {
  const auto row = operator_of(operator_key(point), operator_keys_);
  return row ? static_cast<int>(*row) : -1;
}

void Workbench::matchMeasurements() {
  FastestMeasurements fastest;
  for (const ComparedPoint& p : points_) fastest.add(operator_key(p), p.measured_s, p.scope);
  size_t matched = 0;
  for (size_t i = 0; i < operator_keys_.size(); ++i) {
    const auto cost = fastest.of(operator_keys_[i]);
    matched += cost.has_value();
    operators_->setMeasured(static_cast<int>(i),
                            cost ? std::optional(cost->seconds) : std::nullopt,
                            cost ? cost->scope : TimingScope::device);
  }

  // Blank columns need a reason on screen: a run of another suite, or errors against a graph
  // the run was not predicted on (issue 22: Ascend + BERT open over a host database).
  const RunEntry* run = shownRun();
  const QString what = run ? tr("run %1").arg(run->id) : points_source_;
  QString note;
  if (!points_.empty() && workload_ && matched == 0) {
    note =
        tr("None of the %1 measurements of %2 (%3) is an operator of the open workload %4: "
           "\"measured\" and \"error\" stay blank.")
            .arg(points_.size())
            .arg(what, run ? run->workload : tr("a CSV"), QString::fromStdString(workload_->name));
    if (run && !run->workload_file.isEmpty())
      note += tr(" Open %1, the workload it measured.").arg(run->workload_file);
  } else if (matched > 0 && run && !run->arch_hash.isEmpty() && baseline_graph_ &&
             run->arch_hash != QString::fromStdString(hash_text(baseline_graph_->content_hash()))) {
    note = tr("%1 was measured on %2, not on the open graph %3: its \"error\" compares with "
              "the open graph's predictions.")
               .arg(what, run->device_name, QString::fromStdString(baseline_graph_->name));
  }
  if (note != measurement_note_) {
    measurement_note_ = note;
    if (!note.isEmpty()) report(kWarning, note);
    Q_EMIT measurementNoteChanged(note);
  }
}

const Workbench::RunEntry* Workbench::shownRun() const {
  if (current_run_ < 0 || static_cast<size_t>(current_run_) >= run_ids_.size()) return nullptr;
  const int64_t id = run_ids_[static_cast<size_t>(current_run_)];
  for (const RunEntry& r : all_runs_)
    if (r.id == id) return &r;
  return nullptr;
}

std::pair<std::shared_ptr<const void>, MappingEvaluation> Workbench::mappingOf(
    int row, bool remapped) const {
  if (!graph_ || !workload_ || row < 0 || row >= operators_->rowCount()) return {};
  const auto& r = operators_->row(row);
  const bool use_remapped = remapped && !r.remap_pending && r.remapped && r.remapped->ok;
  const auto& source = use_remapped ? r.remapped : r.baseline;
  if (!source || !source->ok) {
    MappingEvaluation failed;
    failed.error = source ? source->error : std::string("not predicted yet");
    return {nullptr, std::move(failed)};
  }
  auto keep = std::make_shared<
      std::pair<std::shared_ptr<const ArchitectureGraph>, std::shared_ptr<const Workload>>>(
      graph_, workload_);
  return {keep, evaluate_mapping_text(workload_->operators[static_cast<size_t>(row)], *graph_,
                                      source->mapping_yaml)};
}

bool Workbench::openSimulation(const QString& path) {
  // A simulation file is small (one trace event per task of one iteration): read it here.
  try {
    simulation_ = load_simulation_timeline(path.toStdString());
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  simulation_path_ = path;
  report(kInfo, tr("simulation %1: %2 tracks").arg(path).arg(simulation_.tracks.size()));
  Q_EMIT simulationChanged();
  return true;
}

void Workbench::setTraceTimeline(SimulationTimeline trace) {
  trace_timeline_ = std::move(trace);
  Q_EMIT simulationChanged();
}

SimulationTimeline Workbench::timeline() const {
  return views::merged_timeline(simulation_, trace_timeline_);
}

bool Workbench::saveArchitecture(const QString& path) {
  if (!graph_) return false;
  QStringList edits;
  for (int i = 0; i < undo_->index(); ++i) edits << undo_->command(i)->text();
  try {
    write_architecture(
        *graph_,
        "Edited in tilescope-gui from " + arch_path_.toStdString() +
            (edits.isEmpty() ? std::string() : "\nEdits: " + edits.join("; ").toStdString()),
        path.toStdString());
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  report(kInfo, tr("saved the graph as %1").arg(path));
  return true;
}

bool Workbench::openWorkspace(const QString& path) {
  // core's loader refuses wrong types, unknown keys and workspaces that name workspaces at their
  // place; each member then opens by its role, so that no workspace opens another.
  Workspace workspace;
  try {
    workspace = load_workspace(path.toStdString());
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  const auto file = [](const std::optional<WorkspaceMember>& member) {
    return QString::fromStdString(member->path);
  };
  bool ok = true;
  if (workspace.architecture) ok = openArchitecture(file(workspace.architecture)) && ok;
  if (workspace.workload) ok = openWorkload(file(workspace.workload)) && ok;
  if (workspace.results) {
    const QString results = file(workspace.results);
    ok = (is_sqlite_file(results.toStdString()) ? openResults(results)
                                                : openMeasurementCsv(results)) &&
         ok;
  }
  if (workspace.simulation) ok = openSimulation(file(workspace.simulation)) && ok;
  return ok;
}

bool Workbench::saveWorkspace(const QString& path) {
  const auto member = [](const QString& file) -> std::optional<WorkspaceMember> {
    if (file.isEmpty()) return std::nullopt;
    return WorkspaceMember{file.toStdString(), {}};
  };
  Workspace workspace;
  workspace.architecture = member(arch_path_);
  workspace.workload = member(workload_path_);
  workspace.results = member(results_path_);
  workspace.simulation = member(simulation_path_);
  try {
    write_workspace(workspace, path.toStdString());
  } catch (const InputError& e) {
    report(kError, tr("%1: cannot write the workspace (%2)").arg(path, e.message().c_str()));
    return false;
  } catch (const std::exception& e) {  // the working folder gone (std::filesystem::absolute)
    report(kError, tr("%1: cannot write the workspace (%2)").arg(path, e.what()));
    return false;
  }
  report(kInfo, tr("saved the workspace as %1").arg(path));
  return true;
}

}  // namespace ts::gui
