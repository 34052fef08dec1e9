#include "TraceAnalysisSession.hpp"

#include <QFileInfo>
#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent>
#include <algorithm>
#include <set>
#include <stdexcept>

#include "BackgroundWork.hpp"
#include "Severity.hpp"
#include "trace/TraceFileKind.hpp"
#include "trace/TraceImport.hpp"
#include "trace/TraceLoad.hpp"

namespace ts::gui {

// What the worker hands back: the trace read (or the one it analysed again), its analysis, or
// why neither.
struct TraceAnalysisOutcome {
  std::shared_ptr<const Trace> trace;
  std::vector<RankAnalysis> ranks;
  bool cancelled = false;
  QString error;
};

namespace {

constexpr int kTraceReadSteps = 1000;

// The ProfilerStep numbers every rank has: a step is offered when analyse_trace can take it.
std::vector<int64_t> steps_every_rank_has(const Trace& trace) {
  std::vector<int64_t> steps;
  for (size_t r = 0; r < trace.ranks.size(); ++r) {
    std::set<int64_t> here;
    for (const TraceIteration& it : trace.ranks[r].iterations) here.insert(it.number);
    if (r == 0) {
      steps.assign(here.begin(), here.end());
    } else {
      std::erase_if(steps, [&](int64_t s) { return !here.count(s); });
    }
  }
  return steps;
}

bool is_analysed_format(const std::string& format) {
  return format == "kineto" || format == "nsys";
}

}  // namespace

bool is_trace_path(const QString& path) {
  const QFileInfo info(path);
  if (!info.exists()) return false;
  if (!info.isDir()) return is_analysed_format(trace_format_of(path.toStdString()));
  try {
    for (const std::string& file : trace_files_of(path.toStdString()))
      if (is_analysed_format(trace_format_of(file))) return true;
  } catch (const std::exception&) {
    // A folder without traces is not the Trace page's to open.
  }
  return false;
}

TraceAnalysisSession::TraceAnalysisSession(BackgroundWork* work, QObject* parent)
    : QObject(parent), work_(work) {}

void TraceAnalysisSession::open(const QStringList& paths) {
  if (paths.isEmpty()) return;
  start(nullptr, paths, -1);
}

void TraceAnalysisSession::chooseStep(int64_t step) {
  if (!trace_ || step == step_) return;
  start(trace_, paths_, step);
}

void TraceAnalysisSession::start(std::shared_ptr<const Trace> loaded, const QStringList& paths,
                                 int64_t step) {
  const int generation = ++generation_;
  std::vector<std::string> files;
  for (const QString& p : paths) files.push_back(p.toStdString());
  const QString name =
      paths.size() == 1 ? QFileInfo(paths.front()).fileName() : tr("%1 traces").arg(paths.size());
  const QString what = loaded
                           ? tr("Analysing %1, %2")
                                 .arg(name, step < 0 ? tr("the whole trace")
                                                     : QStringLiteral("ProfilerStep#%1").arg(step))
                           : tr("Reading the trace %1").arg(name);
  auto* watcher = new QFutureWatcher<TraceAnalysisOutcome>(this);
  const bool fresh = loaded == nullptr;
  connect(watcher, &QFutureWatcherBase::finished, this,
          [=, this] { accept(watcher, generation, paths, step, fresh); });
  work_->track(watcher, what);
  watcher->setFuture(QtConcurrent::run([loaded, files,
                                        step](QPromise<TraceAnalysisOutcome>& promise) {
    promise.setProgressRange(0, kTraceReadSteps);
    TraceAnalysisOutcome out;
    try {
      out.trace = loaded;
      if (!out.trace)
        out.trace = std::make_shared<const Trace>(load_trace(files, [&](double fraction) {
          // Reading is nearly all of the work; the analyses are the last step of the bar.
          promise.setProgressValue(
              static_cast<int>(std::clamp(fraction, 0.0, 1.0) * 0.95 * kTraceReadSteps));
          return !promise.isCanceled();  // false stops the reader: TraceImportCancelled
        }));
      out.ranks = analyse_trace(*out.trace, step);
      promise.setProgressValue(kTraceReadSteps);
    } catch (const TraceImportCancelled&) {
      out.cancelled = true;
    } catch (const std::out_of_range& e) {  // a rank without the step: say which trace
      out.error =
          QString::fromStdString(files.front() + (files.size() > 1 ? " ...: " : ": ") + e.what());
    } catch (const std::exception& e) {  // InputError names the file and what was expected
      out.error = QString::fromStdString(e.what());
    }
    promise.addResult(std::move(out));
  }));
}

void TraceAnalysisSession::accept(QFutureWatcher<TraceAnalysisOutcome>* watcher, int generation,
                                  const QStringList& paths, int64_t step, bool fresh) {
  const bool latest = generation == generation_;
  const bool cancelled = watcher->isCanceled() || watcher->future().resultCount() == 0;
  TraceAnalysisOutcome out = latest && !cancelled ? watcher->result() : TraceAnalysisOutcome{};
  work_->untrack(watcher);
  if (!latest) return;  // a newer load or step superseded it
  const QString what = paths.join(", ");
  if (cancelled || out.cancelled) {
    Q_EMIT message(kInfo,
                   tr("reading of %1 cancelled; the Trace page shows what it showed").arg(what));
    return;
  }
  if (!out.error.isEmpty()) {
    Q_EMIT message(kError, out.error);
    return;
  }
  trace_ = std::move(out.trace);
  ranks_ = std::move(out.ranks);
  paths_ = paths;
  step_ = step;
  steps_ = steps_every_rank_has(*trace_);
  if (fresh) {
    for (const RankAnalysis& a : ranks_)
      for (const std::string& note : a.notes)
        Q_EMIT message(kWarning, QString::fromStdString(a.file + ": " + note));
    Q_EMIT message(kInfo, tr("trace %1: %2 ranks, %3 steps every rank has")
                              .arg(what)
                              .arg(ranks_.size())
                              .arg(steps_.size()));
  }
  Q_EMIT analysisChanged();
}

}  // namespace ts::gui
