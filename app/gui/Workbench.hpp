#pragma once
// What tilescope-gui has open (an architecture graph, a workload suite, a results database or a
// CSV of measurements) and everything computed from it. Long work runs off the GUI thread
// (QtConcurrent) and comes back through signals as plain values; a newer request makes older
// results stale, which are then dropped rather than shown.
//
// The what-if loop: an edit of a graph parameter makes a new graph snapshot; every operator's
// current mapping is re-evaluated on it at once (fixedReady), then the mapper re-runs in the
// background (remapReady), the table saying which numbers are pending.
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <memory>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "measure/Correlation.hpp"
#include "views/OperatorEvaluation.hpp"
#include "views/OperatorTableModel.hpp"
#include "views/SimulationTimeline.hpp"
#include "workload/Operator.hpp"

class QFutureWatcherBase;
template <typename T>
class QFutureWatcher;
class QUndoStack;

namespace ts::gui {

struct PointsLoad;

class Workbench : public QObject {
  Q_OBJECT
 public:
  enum Severity { kInfo, kWarning, kError };

  explicit Workbench(QObject* parent = nullptr);
  ~Workbench() override;

  // Each returns false, and reports file:line: why through message(), when the file cannot be
  // used; what was open stays open then.
  // By kind: architecture, workload, workspace, results database, CSV, simulation JSON.
  bool openFile(const QString& path);
  bool openArchitecture(const QString& path);
  bool openWorkload(const QString& path);
  bool openResults(const QString& path);         // a results database, loaded in the background
  bool openMeasurementCsv(const QString& path);  // M,N,K,measured_us GEMMs, predicted here
  bool openWorkspace(const QString& path);
  bool openSimulation(const QString& path);  // `tilescope simulate --out` JSON or a Chrome trace
  bool saveWorkspace(const QString& path);
  bool saveArchitecture(const QString& path);  // the edited graph as a new file

  std::shared_ptr<const ArchitectureGraph> graph() const { return graph_; }
  std::shared_ptr<const ArchitectureGraph> baselineGraph() const { return baseline_graph_; }
  std::shared_ptr<const Workload> workload() const { return workload_; }
  QString architecturePath() const { return arch_path_; }
  QString workloadPath() const { return workload_path_; }
  QString resultsPath() const { return results_path_; }
  QString simulationPath() const { return simulation_path_; }
  const views::SimulationTimeline& simulation() const { return simulation_; }
  views::OperatorTableModel* operators() const { return operators_; }
  QUndoStack* undoStack() const { return undo_; }

  // Measurements joined with predictions, from the open database's chosen run or the CSV.
  const std::vector<ComparedPoint>& points() const { return points_; }
  const std::vector<ComparedPoint>& overlayPoints() const { return overlay_points_; }
  QString pointsSource() const { return points_source_; }
  QStringList runs() const { return run_names_; }
  int currentRun() const { return current_run_; }
  void chooseRun(int index);
  void chooseOverlayRun(int index);  // -1: none

  // Pushes the edit on the undo stack (which applies it).
  void editParameter(const QString& path, double value);
  // Applies without the undo stack (what the undo commands call).
  void applyParameter(const QString& path, double value);
  double parameter(const QString& path) const;

  // The row's current mapping evaluated on the current graph, for the mapping view. The first
  // of the pair keeps the graph and operator it points into alive.
  // With `remapped`, the mapper's new choice on the edited graph instead, once it is in.
  std::pair<std::shared_ptr<const void>, views::MappingEvaluation> mappingOf(
      int row, bool remapped = false) const;
  // The row of the operator that a measured point is of, or -1.
  int rowOfPoint(const ComparedPoint& point) const;

  bool busy() const;
  void cancel();
  // Blocks until no background work is left (tests, --quit-after-load).
  void waitForIdle();

 Q_SIGNALS:
  void message(int severity, const QString& text);
  void architectureReplaced();
  void architectureEdited();
  void workloadReplaced();
  void pointsChanged();
  void simulationChanged();
  void progressChanged(const QString& what, int done, int total);
  void busyChanged(bool busy);
  void baselineReady();
  void fixedReady();
  void remapReady();

 private:
  void resetRows();
  void startBaseline();
  void startFixed();
  void startRemap();
  void loadRun(int index, bool overlay);
  // A finished load of measured points: reported, and kept unless a newer load superseded it.
  void acceptPoints(QFutureWatcher<PointsLoad>* watcher, int generation, bool overlay);
  void matchMeasurements();
  void track(QFutureWatcherBase* watcher, const QString& what);
  void untrack(QFutureWatcherBase* watcher);
  void report(int severity, const QString& text);

  std::shared_ptr<const ArchitectureGraph> baseline_graph_, graph_;
  std::shared_ptr<const Workload> workload_;
  QString arch_path_, workload_path_, results_path_, simulation_path_;
  views::SimulationTimeline simulation_;
  views::OperatorTableModel* operators_;
  QUndoStack* undo_;
  std::vector<ComparedPoint> points_, overlay_points_;
  QString points_source_;
  std::vector<int64_t> run_ids_;
  QStringList run_names_;
  int current_run_ = -1;
  // Generations: a result whose generation is not the latest is stale and dropped.
  int baseline_generation_ = 0, fixed_generation_ = 0, remap_generation_ = 0,
      points_generation_ = 0;
  QList<QPointer<QFutureWatcherBase>> running_;
  QPointer<QFutureWatcherBase> remap_watcher_;
};

}  // namespace ts::gui
