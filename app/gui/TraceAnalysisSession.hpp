#pragma once
// The trace tilescope-gui has open for the Trace page: a Kineto JSON (.json / .json.gz), an
// Nsight Systems SQLite export, or a folder of per-rank traces, read by core's load_trace and
// analysed by analyse_trace, both off the GUI thread (tracked by the workbench's BackgroundWork:
// its progress line and Cancel). The trace stays loaded, so that choosing another step only
// re-analyses. A newer load or step makes older results stale; they are dropped, not shown.
#include <QObject>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <vector>

#include "trace/TraceAnalysis.hpp"

template <typename T>
class QFutureWatcher;

namespace ts::gui {

class BackgroundWork;
struct TraceAnalysisOutcome;

class TraceAnalysisSession : public QObject {
  Q_OBJECT
 public:
  explicit TraceAnalysisSession(BackgroundWork* work, QObject* parent = nullptr);

  // Starts reading `paths` (files, or one folder of per-rank traces) as one trace; its
  // analysis of the whole trace follows. Errors (a file that is no trace, two files of one rank)
  // come through message() naming the file; what was open stays open then.
  void open(const QStringList& paths);
  // Re-analyses the open trace over ProfilerStep#step (-1: the whole trace).
  void chooseStep(int64_t step);

  bool isOpen() const { return trace_ != nullptr; }
  QStringList paths() const { return paths_; }
  int64_t step() const { return step_; }
  // ProfilerStep numbers every rank has, in order.
  const std::vector<int64_t>& steps() const { return steps_; }
  const std::vector<RankAnalysis>& ranks() const { return ranks_; }

 Q_SIGNALS:
  void message(int severity, const QString& text);
  // A load or a step's analysis came in: paths(), steps() and ranks() are the new ones.
  void analysisChanged();

 private:
  void start(std::shared_ptr<const Trace> loaded, const QStringList& paths, int64_t step);
  // `fresh`: a new trace was read (its notes are logged), not the open one analysed again.
  void accept(QFutureWatcher<TraceAnalysisOutcome>* watcher, int generation,
              const QStringList& paths, int64_t step, bool fresh);

  BackgroundWork* work_;
  std::shared_ptr<const Trace> trace_;
  QStringList paths_;
  int64_t step_ = -1;
  std::vector<int64_t> steps_;
  std::vector<RankAnalysis> ranks_;
  int generation_ = 0;
};

// Whether `path` is what the Trace page opens: a trace file tilescope reads, or a folder
// holding such files (one per rank).
bool is_trace_path(const QString& path);

}  // namespace ts::gui
