#include "WhatIfSession.hpp"

#include <QFutureWatcher>
#include <QLocale>
#include <QPromise>
#include <QUndoStack>
#include <QtConcurrent>
#include <algorithm>
#include <atomic>

#include "BackgroundWork.hpp"
#include "EditParameterCommand.hpp"
#include "Severity.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "arch/ArchitectureWriter.hpp"
#include "views/ArchitectureParameter.hpp"
#include "workload/WorkloadLoader.hpp"

namespace ts::gui {

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

WhatIfSession::WhatIfSession(BackgroundWork* work, QObject* parent)
    : QObject(parent),
      work_(work),
      operators_(new views::OperatorTableModel(this)),
      undo_(new QUndoStack(this)) {}

void WhatIfSession::report(int severity, const QString& text) { Q_EMIT message(severity, text); }

bool WhatIfSession::openArchitecture(const QString& path) {
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

bool WhatIfSession::openWorkload(const QString& path) {
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

void WhatIfSession::resetRows() {
  std::vector<views::OperatorRow> rows;
  if (workload_)
    for (const Operator& op : workload_->operators) {
      views::OperatorRow r;
      r.name = QString::fromStdString(op.name);
      r.type = QString::fromStdString(std::string(to_string(op.type)));
      r.op_class = QString::fromStdString(std::string(to_string(op.primary_class())));
      r.shape = QString::fromStdString(op.shape_text());
      rows.push_back(std::move(r));
    }
  operators_->setRows(std::move(rows));
  Q_EMIT rowsReset();  // the run browser fills the measured column before the mapper starts
  if (graph_ && workload_) startBaseline();
}

QFutureWatcher<IndexedOutcome>* WhatIfSession::startMapping(const std::shared_ptr<SearchStop>& stop,
                                                            const QString& what,
                                                            std::vector<std::string> starts) {
  auto graph = graph_;
  auto workload = workload_;
  auto* watcher = new QFutureWatcher<IndexedOutcome>(this);
  work_->track(watcher, what, tr("operators"));
  watcher->setFuture(
      QtConcurrent::run([graph, workload, stop, options = mapper_options_,
                         starts = std::move(starts)](QPromise<IndexedOutcome>& promise) {
        map_suite(promise, *graph, *workload, options, *stop, starts);
      }));
  return watcher;
}

void WhatIfSession::startBaseline() {
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
    work_->untrack(watcher);
  });
}

void WhatIfSession::editParameter(const QString& path, double value) {
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

double WhatIfSession::parameter(const QString& path) const {
  return views::read_parameter(*graph_, *baseline_graph_, path.toStdString());
}

void WhatIfSession::applyParameter(const QString& path, double value) {
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

void WhatIfSession::startFixed() {
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
    work_->untrack(watcher);
  });
  work_->track(watcher, tr("Re-evaluating the current mappings"));
  watcher->setFuture(QtConcurrent::run([graph, workload, mappings] {
    std::vector<OperatorOutcome> out(mappings.size());
    for (size_t i = 0; i < mappings.size(); ++i)
      if (!mappings[i].empty())
        out[i] = evaluate_fixed_mapping(workload->operators[i], *graph, mappings[i]);
    return out;
  }));
}

void WhatIfSession::startRemap() {
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
    work_->untrack(watcher);
  });
}

std::pair<std::shared_ptr<const void>, MappingEvaluation> WhatIfSession::mappingOf(
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

bool WhatIfSession::saveArchitecture(const QString& path) {
  if (!graph_) return false;
  const std::vector<NamedPath> open =
      open_files_ ? open_files_()
                  : std::vector<NamedPath>{{"the graph", arch_path_.toStdString()},
                                           {"the workload", workload_path_.toStdString()}};
  if (const QString refused = output_over_open_files(path, tr("the saved graph"), open);
      !refused.isEmpty()) {
    report(kError, refused);
    return false;
  }
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

void WhatIfSession::stopSearches() {
  stopSearch(baseline_stop_);
  stopSearch(remap_stop_);
}

void WhatIfSession::stopSearch(const std::shared_ptr<SearchStop>& stop) {
  if (stop) stop->requested = true;
}

}  // namespace ts::gui
