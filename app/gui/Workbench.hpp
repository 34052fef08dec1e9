#pragma once
// What tilescope-gui has open, by part: the what-if session (an architecture graph, a workload
// suite, their operator rows and edits), the run browser (a results database or a CSV of
// measurements), a simulation's timeline and a trace's analyses (the Trace page). The workbench
// opens a file by its kind into the part it belongs to, saves and loads a workspace of them, and is
// the one busy state and Cancel of the work they run off the GUI thread (which comes back through
// signals as plain values).
#include <QObject>
#include <QString>

#include "OutputGuard.hpp"
#include "Severity.hpp"
#include "training/SimulationTimeline.hpp"

namespace ts::gui {

class BackgroundWork;
class RunBrowser;
class TraceAnalysisSession;
class WhatIfSession;

class Workbench : public QObject {
  Q_OBJECT
 public:
  explicit Workbench(QObject* parent = nullptr);
  ~Workbench() override;

  WhatIfSession* whatIf() const { return what_if_; }
  RunBrowser* runBrowser() const { return runs_; }
  TraceAnalysisSession* traceAnalysis() const { return trace_analysis_; }

  // Each returns false, and reports file:line: why through message(), when the file cannot be
  // used; what was open stays open then.
  // By kind: architecture, workload, workspace, results database, CSV, simulation JSON, a
  // folder of per-rank traces (the Trace page; a trace file is MainWindow's to import).
  bool openFile(const QString& path);
  bool openWorkspace(const QString& path);
  // `tilescope simulate --out` JSON or `--timeline`'s Chrome trace; a profiler's trace (which
  // is Chrome-trace JSON too) is refused: File > Import trace and the Trace page read those.
  bool openSimulation(const QString& path);
  // Refused (false, the error through message()) when `path` is a file open here (openFiles).
  bool saveWorkspace(const QString& path);
  // Every file open in the parts, named for messages ("the graph"): what the window never
  // writes over (OutputGuard.hpp).
  std::vector<NamedPath> openFiles() const;

  QString simulationPath() const { return simulation_path_; }
  const SimulationTimeline& simulation() const { return simulation_; }
  // An imported trace's tracks (TraceImportAction), drawn after the simulation's; timeline() is
  // what the timeline page shows: both. `note`: why the shown run's kernels are not drawn (its
  // trace is gone, could not be read), for the timeline page to say; empty when nothing is amiss.
  void setTraceTimeline(SimulationTimeline trace, QString note = {});
  SimulationTimeline timeline() const;
  QString traceTimelineNote() const { return trace_note_; }
  BackgroundWork* backgroundWork() const { return work_; }

  // Of the work of both parts.
  bool busy() const;
  void cancel();
  // Blocks until no background work is left (tests, --quit-after-load).
  void waitForIdle();

 Q_SIGNALS:
  // Every message of the workbench and of its parts.
  void message(int severity, const QString& text);
  void simulationChanged();
  void progressChanged(const QString& what, int done, int total);
  void busyChanged(bool busy);

 private:
  void report(int severity, const QString& text);

  BackgroundWork* work_;
  WhatIfSession* what_if_;
  RunBrowser* runs_;
  TraceAnalysisSession* trace_analysis_;
  QString simulation_path_;
  SimulationTimeline simulation_, trace_timeline_;
  QString trace_note_;
};

}  // namespace ts::gui
