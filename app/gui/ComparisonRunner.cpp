#include "ComparisonRunner.hpp"

#include <QEventLoop>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QPromise>
#include <QTimer>
#include <QUndoStack>
#include <QtConcurrent>
#include <cmath>
#include <limits>

#include "Severity.hpp"
#include "WhatIfSession.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "common/InputError.hpp"
#include "mapper/MappingExchange.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "profile/ArchitectureReference.hpp"
#include "report/WorkloadPrediction.hpp"

namespace ts::gui {

// One added graph's predictions of the workload, or why there are none.
struct GraphPredictions {
  int id = 0;
  std::vector<Prediction> predictions;
  std::vector<std::string> mappings;  // the concrete mapping of each, as text
  QString error;
};

ComparisonRunner::ComparisonRunner(WhatIfSession* session, QObject* parent)
    : QObject(parent), session_(session), rebuild_timer_(new QTimer(this)) {
  // The mapper's results come in one operator at a time: redraw once for a burst of them.
  rebuild_timer_->setSingleShot(true);
  rebuild_timer_->setInterval(30);
  connect(rebuild_timer_, &QTimer::timeout, this, &ComparisonRunner::rebuild);
  auto* rows = session->operators();
  connect(rows, &QAbstractItemModel::dataChanged, this, &ComparisonRunner::scheduleRebuild);
  connect(rows, &QAbstractItemModel::modelReset, this, &ComparisonRunner::scheduleRebuild);
  connect(session, &WhatIfSession::architectureReplaced, this, &ComparisonRunner::scheduleRebuild);
  connect(session, &WhatIfSession::architectureEdited, this, &ComparisonRunner::scheduleRebuild);
  connect(session, &WhatIfSession::workloadReplaced, this, &ComparisonRunner::workloadReplaced);
  rebuild();
}

ComparisonRunner::~ComparisonRunner() {
  // The page that listens is being destroyed with this: say nothing more, and wait for the
  // worker without an event loop (it returns at the mapper's next look at the flag).
  blockSignals(true);
  cancelled_ = true;
  if (stop_) *stop_ = true;
  if (watcher_) {
    watcher_->cancel();
    watcher_->waitForFinished();
  }
}

bool ComparisonRunner::addGraph(const QString& source) {
  AddedGraph added;
  added.id = next_id_++;
  added.source = source;
  try {
    const std::string file =
        is_profile_reference(source.toStdString())
            ? resolve_architecture_file(source.toStdString(), SourceLocation{"profile", 0, 0})
            : source.toStdString();
    added.graph = std::make_shared<const ArchitectureGraph>(load_architecture(file));
  } catch (const std::exception& e) {
    Q_EMIT message(kError, QString::fromStdString(e.what()));
    return false;
  }
  Q_EMIT message(
      kInfo, tr("comparing with %1 (%2)").arg(QString::fromStdString(added.graph->name), source));
  graphs_.push_back(std::move(added));
  cancelled_ = false;
  predictMissing();
  rebuild();
  return true;
}

void ComparisonRunner::removeGraph(int index) {
  if (index < 0 || static_cast<size_t>(index) >= graphs_.size()) return;
  graphs_.erase(graphs_.begin() + index);
  rebuild();
}

QStringList ComparisonRunner::addedGraphs() const {
  QStringList names;
  for (size_t i = 0; i < graphs_.size(); ++i)
    names << tr("%1: %2 (%3)")
                 .arg(QChar('B' + static_cast<int>(i % 25)))
                 .arg(QString::fromStdString(graphs_[i].graph->name), graphs_[i].source);
  return names;
}

QStringList ComparisonRunner::addedGraphSources() const {
  QStringList sources;
  for (const AddedGraph& g : graphs_) sources << g.source;
  return sources;
}

bool ComparisonRunner::busy() const { return watcher_ && !watcher_->isFinished(); }

void ComparisonRunner::cancel() {
  if (!busy()) return;
  cancelled_ = true;
  if (stop_) *stop_ = true;
  watcher_->cancel();
}

void ComparisonRunner::predictAgain() {
  cancelled_ = false;
  for (AddedGraph& g : graphs_) g.error.clear();
  predictMissing();
  rebuild();
}

void ComparisonRunner::waitForIdle() {
  while (busy() || watcher_ || rebuild_timer_->isActive()) {
    QEventLoop loop;
    QTimer::singleShot(20, &loop, &QEventLoop::quit);
    loop.exec();
  }
}

void ComparisonRunner::workloadReplaced() {
  ++generation_;  // what is under way predicts the old workload
  if (stop_) *stop_ = true;
  for (AddedGraph& g : graphs_) {
    g.predictions.reset();
    g.error.clear();
  }
  cancelled_ = false;
  predictMissing();
  scheduleRebuild();
}

void ComparisonRunner::predictMissing() {
  // One run at a time; the one under way calls this again when it ends.
  if (watcher_ || cancelled_ || !session_->workload()) return;
  std::vector<std::pair<int, std::shared_ptr<const ArchitectureGraph>>> todo;
  for (const AddedGraph& g : graphs_)
    if (!g.predictions && g.error.isEmpty()) todo.emplace_back(g.id, g.graph);
  if (todo.empty()) return;
  auto workload = session_->workload();
  auto stop = std::make_shared<std::atomic<bool>>(false);
  stop_ = stop;
  OperatorPredictionOptions options;
  options.mapper = session_->mapperOptions();
  options.mapper.cancel = stop.get();
  const int generation = generation_;
  auto* watcher = new QFutureWatcher<GraphPredictions>(this);
  watcher_ = watcher;
  const QString what = tr("Predicting %1 on %2 more graph(s)")
                           .arg(QString::fromStdString(workload->name))
                           .arg(todo.size());
  connect(watcher, &QFutureWatcherBase::progressValueChanged, this, [this, watcher, what](int v) {
    if (watcher->progressMaximum() > 0) Q_EMIT progressChanged(what, v, watcher->progressMaximum());
  });
  connect(watcher, &QFutureWatcherBase::resultsReadyAt, this,
          [this, watcher, generation](int begin, int end) {
            if (generation != generation_) return;
            for (int k = begin; k < end; ++k) {
              GraphPredictions r = watcher->resultAt(k);
              for (AddedGraph& g : graphs_)
                if (g.id == r.id) {
                  if (r.error.isEmpty()) {
                    g.predictions = std::move(r.predictions);
                    g.mappings = std::move(r.mappings);
                  } else {
                    g.error = r.error;
                    Q_EMIT message(kError, r.error);
                  }
                }
            }
            scheduleRebuild();
          });
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    watcher->deleteLater();
    watcher_ = nullptr;
    if (cancelled_) Q_EMIT message(kInfo, tr("comparison: predictions cancelled"));
    Q_EMIT busyChanged(false);
    predictMissing();  // a graph added meanwhile, or a newer workload
    scheduleRebuild();
  });
  Q_EMIT busyChanged(true);
  watcher->setFuture(
      QtConcurrent::run([todo, workload, options, stop](QPromise<GraphPredictions>& promise) {
        const size_t per_graph = workload->operators.size();
        promise.setProgressRange(0, static_cast<int>(todo.size() * per_graph));
        for (size_t k = 0; k < todo.size(); ++k) {
          GraphPredictions out;
          out.id = todo[k].first;
          try {
            out.predictions =
                predict_workload(
                    *workload, *todo[k].second, options,
                    [&promise, k, per_graph](size_t done, size_t, const Operator&) {
                      promise.setProgressValue(static_cast<int>(k * per_graph + done));
                    },
                    &out.mappings)
                    .operators;
          } catch (const MapperCancelled&) {
            return;
          } catch (const std::exception& e) {
            out.error = QString::fromStdString(e.what());
          }
          if (*stop) return;
          promise.addResult(std::move(out));
        }
        promise.setProgressValue(static_cast<int>(todo.size() * per_graph));
      }));
}

void ComparisonRunner::scheduleRebuild() { rebuild_timer_->start(); }

bool ComparisonRunner::openGraphPredictions(std::vector<Prediction>& out,
                                            std::vector<std::string>& mappings, int& pending,
                                            int& remapping) const {
  const views::OperatorTableModel* rows = session_->operators();
  pending = remapping = 0;
  out.clear();
  mappings.clear();
  for (int i = 0; i < rows->rowCount(); ++i) {
    const views::OperatorRow& r = rows->row(i);
    // The mapper's newest choice on the current graph once it is in, else the mapping chosen
    // before the edits re-evaluated on it (what the Operators page's latency column shows).
    const bool remapped = !r.remap_pending && r.remapped && r.remapped->ok;
    const std::optional<OperatorOutcome>& shown = remapped ? r.remapped : r.fixed;
    if (r.remap_pending) ++remapping;
    if (shown && shown->ok) {
      out.push_back(shown->prediction);
      mappings.push_back(shown->mapping_yaml);
    } else if (shown && !r.remap_pending) {
      // No valid mapping on this graph: the operator stays in the table, without a time.
      Prediction failed;
      failed.op_name = r.name.toStdString();
      failed.device_us = std::numeric_limits<double>::quiet_NaN();
      failed.bound_by = "invalid";
      out.push_back(std::move(failed));
      mappings.emplace_back();
    } else {
      ++pending;
    }
  }
  return pending == 0;
}

void ComparisonRunner::rebuild() {
  rebuild_timer_->stop();
  comparison_.reset();
  const auto graph = session_->graph();
  const auto workload = session_->workload();
  if (!graph || !workload) {
    state_ =
        tr("Open an architecture graph and a workload first (File > Open, or drop them "
           "here): the open graph is compared with the graphs you add.");
  } else if (graphs_.empty()) {
    state_ = tr("Nothing to compare yet. Add a second graph (Add graph…: a kind: architecture "
                "YAML file, or Add profile) to see %1 on it beside %2, operator by operator.")
                 .arg(QString::fromStdString(workload->name), QString::fromStdString(graph->name));
  } else {
    std::vector<Prediction> open;
    std::vector<std::vector<std::string>> mappings(1);
    int pending = 0, remapping = 0;
    QStringList waiting;
    if (!openGraphPredictions(open, mappings.front(), pending, remapping))
      waiting << tr("%1 (%2 of %3 operators to go)")
                     .arg(QString::fromStdString(graph->name))
                     .arg(pending)
                     .arg(session_->operators()->rowCount());
    for (const AddedGraph& g : graphs_)
      if (!g.predictions)
        waiting << (g.error.isEmpty()
                        ? QString::fromStdString(g.graph->name)
                        : tr("%1 failed: %2").arg(QString::fromStdString(g.graph->name), g.error));
    if (!waiting.isEmpty()) {
      state_ = (cancelled_ ? tr("Predictions cancelled (Predict again resumes): ")
                           : tr("Predicting: ")) +
               waiting.join("; ");
    } else {
      const bool edited = session_->undoStack()->index() > 0;
      std::vector<ComparedGraph> compared;
      compared.push_back(ComparedGraph{"",
                                       graph->name + (edited ? " (edited)" : ""),
                                       session_->architecturePath().toStdString(),
                                       std::move(open),
                                       {}});
      for (const AddedGraph& g : graphs_) {
        compared.push_back(
            ComparedGraph{"", g.graph->name, g.source.toStdString(), *g.predictions, {}});
        mappings.push_back(g.mappings);
      }
      // As `compare` does, once the edited graph's new mappings are all in.
      if (remapping == 0) {
        std::vector<const ArchitectureGraph*> graphs{graph.get()};
        std::vector<std::vector<Prediction>*> predictions{&compared.front().predictions};
        for (size_t g = 0; g < graphs_.size(); ++g) {
          graphs.push_back(graphs_[g].graph.get());
          predictions.push_back(&compared[g + 1].predictions);
        }
        exchange_suite_mappings(workload->operators, graphs, predictions, mappings);
      }
      try {
        comparison_ = compare_architectures(workload->name, std::move(compared));
        state_ = remapping > 0 ? tr("Re-mapping the edited graph: %1 operators show the mapping "
                                    "chosen before the edits until the mapper's new choice is in")
                                     .arg(remapping)
                               : QString();
        // As `compare` warns: a search cut short by its budget may have missed a faster mapping.
        QStringList notes;
        for (const std::string& note :
             unconverged_graph_notes(*comparison_, session_->mapperOptions().budget))
          notes << QString::fromStdString(note);
        if (!notes.isEmpty())
          state_ += (state_.isEmpty() ? QString() : QString("; ")) + notes.join("; ");
      } catch (const std::exception& e) {
        state_ = QString::fromStdString(e.what());
      }
    }
  }
  Q_EMIT comparisonChanged();
}

}  // namespace ts::gui
