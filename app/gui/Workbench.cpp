#include "Workbench.hpp"

#include <yaml-cpp/yaml.h>

#include <QDir>
#include <QEventLoop>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QPromise>
#include <QTimer>
#include <QUndoStack>
#include <QtConcurrent>
#include <fstream>

#include "EditParameterCommand.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "measure/CorrelationData.hpp"
#include "measure/ResultStore.hpp"
#include "views/ArchitectureParameter.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::gui {

// The loaded points of one run (or the CSV), or why there are none.
struct PointsLoad {
  CorrelationInput input;
  QString error;
};

namespace {

struct IndexedOutcome {
  int index = 0;
  views::OperatorOutcome outcome;
};

// The mapper's budget in the GUI: the CLI's default, so that the table agrees with `predict`.
MapperOptions gui_mapper() { return MapperOptions{}; }

QString kind_of_yaml(const QString& path) {
  try {
    const YAML::Node root = YAML::LoadFile(path.toStdString());
    if (root.IsMap() && root["kind"]) return QString::fromStdString(root["kind"].as<std::string>());
  } catch (const std::exception&) {
  }
  return {};
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
  const QFileInfo info(path);
  if (!info.exists()) {
    report(kError, tr("%1: no such file").arg(path));
    return false;
  }
  const QString suffix = info.suffix().toLower();
  if (is_sqlite_file(path.toStdString())) return openResults(path);
  if (suffix == "csv") return openMeasurementCsv(path);
  if (suffix == "json") return openSimulation(path);
  const QString kind = kind_of_yaml(path);
  if (kind == "architecture") return openArchitecture(path);
  if (kind == "workload") return openWorkload(path);
  if (kind == "workspace") return openWorkspace(path);
  report(kError, tr("%1:1:1: not a file tilescope-gui opens (expected kind: architecture, "
                    "workload or workspace, a results database, a CSV of measurements or a "
                    "simulation .json)")
                     .arg(path));
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
  if (workload_)
    for (const Operator& op : workload_->operators) {
      views::OperatorRow r;
      r.name = QString::fromStdString(op.name);
      r.type = QString::fromStdString(op.type);
      r.op_class = QString::fromStdString(std::string(to_string(op.primary_class())));
      r.shape = QString::fromStdString(op.shape_text());
      rows.push_back(std::move(r));
    }
  operators_->setRows(std::move(rows));
  matchMeasurements();
  if (graph_ && workload_) startBaseline();
}

void Workbench::track(QFutureWatcherBase* watcher, const QString& what) {
  const bool was_busy = busy();
  running_.append(watcher);
  connect(watcher, &QFutureWatcherBase::progressValueChanged, this,
          [this, watcher, what](int value) {
            Q_EMIT progressChanged(what, value, watcher->progressMaximum());
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
  for (const auto& w : running_)
    if (w) w->cancel();
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

void Workbench::startBaseline() {
  const int generation = ++baseline_generation_;
  ++fixed_generation_;
  ++remap_generation_;
  if (remap_watcher_) remap_watcher_->cancel();
  auto graph = graph_;
  auto workload = workload_;
  auto* watcher = new QFutureWatcher<IndexedOutcome>(this);
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
                    r.index, views::evaluate_fixed_mapping(
                                 workload_->operators[static_cast<size_t>(r.index)], *graph_,
                                 r.outcome.mapping_yaml));
            }
          });
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    if (generation == baseline_generation_ && !watcher->isCanceled()) {
      report(kInfo, tr("predicted %1 operators").arg(operators_->rowCount()));
      Q_EMIT baselineReady();
    }
    untrack(watcher);
  });
  track(watcher,
        tr("Mapping %1 on %2")
            .arg(QString::fromStdString(workload->name), QString::fromStdString(graph->name)));
  watcher->setFuture(QtConcurrent::run([graph, workload](QPromise<IndexedOutcome>& promise) {
    const int n = static_cast<int>(workload->operators.size());
    promise.setProgressRange(0, n);
    for (int i = 0; i < n; ++i) {
      if (promise.isCanceled()) return;
      promise.addResult(IndexedOutcome{
          i,
          views::map_operator(workload->operators[static_cast<size_t>(i)], *graph, gui_mapper())});
      promise.setProgressValue(i + 1);
    }
  }));
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
  ++remap_generation_;  // a remap of an older graph is stale now
  if (remap_watcher_) remap_watcher_->cancel();
  auto graph = graph_;
  auto workload = workload_;
  std::vector<std::string> mappings;
  for (int i = 0; i < operators_->rowCount(); ++i) {
    const auto& b = operators_->row(i).baseline;
    mappings.push_back(b && b->ok ? b->mapping_yaml : std::string());
  }
  auto* watcher = new QFutureWatcher<std::vector<views::OperatorOutcome>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    if (generation == fixed_generation_ && !watcher->isCanceled() &&
        watcher->future().resultCount() > 0) {
      const auto outcomes = watcher->result();
      for (size_t i = 0; i < outcomes.size(); ++i)
        if (!outcomes[i].mapping_yaml.empty() || !outcomes[i].error.empty())
          operators_->setFixed(static_cast<int>(i), outcomes[i]);
      Q_EMIT fixedReady();
      startRemap();
    }
    untrack(watcher);
  });
  track(watcher, tr("Re-evaluating the current mappings"));
  watcher->setFuture(QtConcurrent::run([graph, workload, mappings] {
    std::vector<views::OperatorOutcome> out(mappings.size());
    for (size_t i = 0; i < mappings.size(); ++i)
      if (!mappings[i].empty())
        out[i] = views::evaluate_fixed_mapping(workload->operators[i], *graph, mappings[i]);
    return out;
  }));
}

void Workbench::startRemap() {
  const int generation = ++remap_generation_;
  auto graph = graph_;
  auto workload = workload_;
  auto* watcher = new QFutureWatcher<IndexedOutcome>(this);
  remap_watcher_ = watcher;
  connect(watcher, &QFutureWatcherBase::resultsReadyAt, this,
          [this, watcher, generation](int begin, int end) {
            if (generation != remap_generation_) return;
            for (int k = begin; k < end; ++k) {
              const IndexedOutcome r = watcher->resultAt(k);
              operators_->setRemapped(r.index, r.outcome);
            }
          });
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
    if (generation == remap_generation_ && !watcher->isCanceled()) Q_EMIT remapReady();
    untrack(watcher);
  });
  track(watcher, tr("Re-running the mapper on the edited graph"));
  watcher->setFuture(QtConcurrent::run([graph, workload](QPromise<IndexedOutcome>& promise) {
    const int n = static_cast<int>(workload->operators.size());
    promise.setProgressRange(0, n);
    for (int i = 0; i < n; ++i) {
      if (promise.isCanceled()) return;
      promise.addResult(IndexedOutcome{
          i,
          views::map_operator(workload->operators[static_cast<size_t>(i)], *graph, gui_mapper())});
      promise.setProgressValue(i + 1);
    }
  }));
}

bool Workbench::openResults(const QString& path) {
  std::vector<RunInfo> runs;
  try {
    ResultStore store(path.toStdString(), ResultStore::Mode::read_only);
    runs = store.runs();
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  results_path_ = path;
  run_ids_.clear();
  run_names_.clear();
  for (const RunInfo& r : runs) {
    run_ids_.push_back(r.id);
    // The device is part of the name: choosing a run is choosing the device it ran on.
    run_names_ << tr("run %1: %2 on %3, %4, %5 measurements (%6)")
                      .arg(r.id)
                      .arg(QString::fromStdString(r.start.workload),
                           QString::fromStdString(r.start.device.name),
                           QString::fromStdString(r.start.collector))
                      .arg(r.measurement_count)
                      .arg(QString::fromStdString(std::string(to_string(r.status))));
  }
  report(kInfo, tr("results database %1: %2 runs").arg(path).arg(runs.size()));
  overlay_points_.clear();
  loadRun(static_cast<int>(run_ids_.size()) - 1, false);  // the latest run
  return true;
}

void Workbench::chooseRun(int index) { loadRun(index, false); }

void Workbench::chooseOverlayRun(int index) {
  if (index < 0) {
    overlay_points_.clear();
    Q_EMIT pointsChanged();
    return;
  }
  loadRun(index, true);
}

void Workbench::acceptPoints(QFutureWatcher<PointsLoad>* watcher, int generation, bool overlay) {
  // A newer load (another run, another file) may have started meanwhile: only the newest counts.
  if (generation == points_generation_ && !watcher->isCanceled() &&
      watcher->future().resultCount() > 0) {
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
        matchMeasurements();
      }
      Q_EMIT pointsChanged();
    }
  }
  untrack(watcher);
}

void Workbench::loadRun(int index, bool overlay) {
  if (index < 0 || static_cast<size_t>(index) >= run_ids_.size()) {
    if (!overlay) {
      points_.clear();
      points_source_.clear();
      current_run_ = -1;
      matchMeasurements();
      Q_EMIT pointsChanged();
    }
    return;
  }
  if (!overlay) current_run_ = index;
  const int generation = ++points_generation_;
  DbInputOptions options;
  options.path = results_path_.toStdString();
  options.run = run_ids_[static_cast<size_t>(index)];
  auto* watcher = new QFutureWatcher<PointsLoad>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [this, watcher, generation, overlay] { acceptPoints(watcher, generation, overlay); });
  track(watcher, tr("Loading %1").arg(QFileInfo(results_path_).fileName()));
  watcher->setFuture(QtConcurrent::run([options] {
    PointsLoad load;
    try {
      load.input = db_input(options);
    } catch (const std::exception& e) {
      load.error = QString::fromStdString(e.what());
    }
    return load;
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
  run_ids_.clear();
  run_names_ = QStringList{QFileInfo(path).fileName()};
  current_run_ = 0;
  overlay_points_.clear();
  auto* watcher = new QFutureWatcher<PointsLoad>(this);
  connect(watcher, &QFutureWatcherBase::finished, this,
          [this, watcher, generation] { acceptPoints(watcher, generation, false); });
  track(watcher, tr("Predicting the measured shapes of %1").arg(QFileInfo(path).fileName()));
  watcher->setFuture(QtConcurrent::run([options, graph](QPromise<PointsLoad>& promise) mutable {
    PointsLoad load;
    options.progress = [&promise](size_t done, size_t total) {
      promise.setProgressRange(0, static_cast<int>(total));
      promise.setProgressValue(static_cast<int>(done));
    };
    try {
      load.input = csv_input(*graph, options);
    } catch (const std::exception& e) {
      load.error = QString::fromStdString(e.what());
    }
    promise.addResult(std::move(load));
  }));
  return true;
}

int Workbench::rowOfPoint(const ComparedPoint& point) const {
  const QString shape = QString::fromStdString(point.shape);
  const int by_name = operators_->findOperator(QString::fromStdString(point.op_name), shape);
  if (by_name >= 0) return by_name;
  // A measurement of the same shape and class under another name (a CSV of GEMM shapes).
  for (int i = 0; i < operators_->rowCount(); ++i)
    if (operators_->row(i).shape == shape &&
        operators_->row(i).op_class == QString::fromStdString(point.op_class))
      return i;
  return -1;
}

void Workbench::matchMeasurements() {
  std::vector<const ComparedPoint*> best(static_cast<size_t>(operators_->rowCount()), nullptr);
  for (const ComparedPoint& p : points_) {
    const int row = rowOfPoint(p);
    if (row < 0) continue;
    // Several implementations or mappings of one operator: the fastest is what the operator
    // costs (as `simulate --operator-times db:` takes it).
    auto& b = best[static_cast<size_t>(row)];
    if (!b || p.measured_s < b->measured_s) b = &p;
  }
  for (size_t i = 0; i < best.size(); ++i)
    operators_->setMeasured(static_cast<int>(i),
                            best[i] ? std::optional(best[i]->measured_s) : std::nullopt,
                            best[i] ? best[i]->scope : TimingScope::device);
}

std::pair<std::shared_ptr<const void>, views::MappingEvaluation> Workbench::mappingOf(
    int row, bool remapped) const {
  if (!graph_ || !workload_ || row < 0 || row >= operators_->rowCount()) return {};
  const auto& r = operators_->row(row);
  const bool use_remapped = remapped && !r.remap_pending && r.remapped && r.remapped->ok;
  const auto& source = use_remapped ? r.remapped : r.baseline;
  if (!source || !source->ok) {
    views::MappingEvaluation failed;
    failed.error = source ? source->error : std::string("not predicted yet");
    return {nullptr, std::move(failed)};
  }
  auto keep = std::make_shared<
      std::pair<std::shared_ptr<const ArchitectureGraph>, std::shared_ptr<const Workload>>>(
      graph_, workload_);
  return {keep, views::evaluate_mapping_text(workload_->operators[static_cast<size_t>(row)],
                                             *graph_, source->mapping_yaml)};
}

bool Workbench::openSimulation(const QString& path) {
  // A simulation file is small (one trace event per task of one iteration): read it here.
  try {
    simulation_ = views::load_simulation_timeline(path.toStdString());
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  simulation_path_ = path;
  report(kInfo, tr("simulation %1: %2 tracks").arg(path).arg(simulation_.tracks.size()));
  Q_EMIT simulationChanged();
  return true;
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
  // kind: workspace; architecture / workload / results as paths relative to the file.
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.toStdString());
  } catch (const YAML::Exception& e) {
    report(kError, QString("%1:%2:%3: %4")
                       .arg(path)
                       .arg(e.mark.line + 1)
                       .arg(e.mark.column + 1)
                       .arg(QString::fromStdString(e.msg)));
    return false;
  }
  const QDir dir = QFileInfo(path).dir();
  bool ok = true;
  for (const char* key : {"architecture", "workload", "results", "simulation"}) {
    if (!root[key]) continue;
    const QString file = dir.filePath(QString::fromStdString(root[key].as<std::string>()));
    ok = (std::string(key) == "architecture" ? openArchitecture(file)
          : std::string(key) == "workload"   ? openWorkload(file)
                                             : openFile(file)) &&
         ok;
  }
  return ok;
}

bool Workbench::saveWorkspace(const QString& path) {
  const QDir dir = QFileInfo(path).dir();
  std::ofstream out(path.toStdString());
  out << "version: 1\nkind: workspace\n";
  if (!arch_path_.isEmpty())
    out << "architecture: " << dir.relativeFilePath(arch_path_).toStdString() << "\n";
  if (!workload_path_.isEmpty())
    out << "workload: " << dir.relativeFilePath(workload_path_).toStdString() << "\n";
  if (!results_path_.isEmpty())
    out << "results: " << dir.relativeFilePath(results_path_).toStdString() << "\n";
  if (!simulation_path_.isEmpty())
    out << "simulation: " << dir.relativeFilePath(simulation_path_).toStdString() << "\n";
  out.close();
  if (!out) {
    report(kError, tr("%1: cannot write the workspace").arg(path));
    return false;
  }
  report(kInfo, tr("saved the workspace as %1").arg(path));
  return true;
}

}  // namespace ts::gui
