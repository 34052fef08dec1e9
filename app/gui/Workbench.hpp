#pragma once
// What tilescope-gui has open (an architecture graph, a workload suite, a results database or a
// CSV of measurements) and everything computed from it. Long work runs off the GUI thread
// (QtConcurrent) and comes back through signals as plain values; a newer request makes older
// results stale, which are then dropped rather than shown.
//
// The what-if loop: an edit of a graph parameter makes a new graph snapshot; every operator's
// current mapping is re-evaluated on it at once (fixedReady), then the mapper re-runs in the
// background (remapReady), the table saying which numbers are pending. Cancel (or a newer edit)
// stops a mapper search part-way through MapperOptions::cancel, not only between operators.
//
// A results database lists its devices (runs.device_id -> devices); choosing one offers its runs.
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <memory>
#include <vector>

#include "arch/ArchitectureGraph.hpp"
#include "correlate/Correlation.hpp"
#include "mapper/OperatorEvaluation.hpp"
#include "training/SimulationTimeline.hpp"
#include "views/OperatorTableModel.hpp"
#include "workload/Operator.hpp"

class QFutureWatcherBase;
template <typename T>
class QFutureWatcher;
class QUndoStack;

namespace ts::gui {

struct PointsLoad;
struct IndexedOutcome;
struct LoadProgress;
struct SearchStop;

// How far a background mapping run got when it was stopped.
struct MapperStopReport {
  int mapped = 0;  // operators whose new mapping came in
  int total = 0;
  QString op;               // the operator whose search was stopped part-way; empty: none
  quint64 evaluations = 0;  // made by that search before it stopped
  double at_most = 0;       // it would have made (its space, or its budget when smaller)
  bool superseded = false;  // by a newer edit, not by Cancel
};

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
  const SimulationTimeline& simulation() const { return simulation_; }
  // An imported trace's tracks (TraceImportAction), drawn after the simulation's; timeline() is
  // what the timeline page shows: both.
  void setTraceTimeline(SimulationTimeline trace);
  SimulationTimeline timeline() const;
  views::OperatorTableModel* operators() const { return operators_; }
  QUndoStack* undoStack() const { return undo_; }

  // Measurements joined with predictions, from the open database's chosen run or the CSV.
  const std::vector<ComparedPoint>& points() const { return points_; }
  const std::vector<ComparedPoint>& overlayPoints() const { return overlay_points_; }
  QString pointsSource() const { return points_source_; }
  // The devices of the open database ("NAME (KIND)"), and the runs of the chosen one.
  QStringList devices() const { return device_names_; }
  int currentDevice() const { return current_device_; }
  void chooseDevice(int index);  // offers its runs and shows the latest of them
  QStringList runs() const { return run_names_; }
  // Why the shown run's measurements do not fill the Operators page's "measured" and "error"
  // columns, or what their errors compare with (a run of another workload or graph); empty when
  // they fit the open graph and workload or nothing is shown.
  QString measurementNote() const { return measurement_note_; }
  int currentRun() const { return current_run_; }
  void chooseRun(int index);         // into runs()
  void chooseRunId(int64_t run_id);  // chooses its device, then it; an unknown id does nothing
  // Every run of the database, whatever its device (a comparison may cross devices).
  QStringList overlayRuns() const;
  void chooseOverlayRun(int index);  // into overlayRuns(); -1: none

  // The mapper's options for the suite and the what-if (the CLI's defaults unless set).
  void setMapperOptions(const MapperOptions& options) { mapper_options_ = options; }
  const MapperOptions& mapperOptions() const { return mapper_options_; }
  const MapperStopReport& lastMapperStop() const { return last_stop_; }

  // Pushes the edit on the undo stack (which applies it).
  void editParameter(const QString& path, double value);
  // Applies without the undo stack (what the undo commands call).
  void applyParameter(const QString& path, double value);
  double parameter(const QString& path) const;

  // The row's current mapping evaluated on the current graph, for the mapping view. The first
  // of the pair keeps the graph and operator it points into alive.
  // With `remapped`, the mapper's new choice on the edited graph instead, once it is in.
  std::pair<std::shared_ptr<const void>, MappingEvaluation> mappingOf(int row,
                                                                      bool remapped = false) const;
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
  void runsChanged();  // devices(), runs() or overlayRuns()
  void measurementNoteChanged(const QString& note);
  void busyChanged(bool busy);
  void baselineReady();
  void fixedReady();
  void remapReady();
  void remapStopped(const ts::gui::MapperStopReport& report);  // cancelled or superseded
  // A load of measurements was cancelled after `rows` of `total` rows; what was shown stays.
  void pointsLoadCancelled(qint64 rows, qint64 total);

 private:
  void resetRows();
  void startBaseline();
  void startFixed();
  void startRemap();
  // run_index: into runs(), the one shown once loaded (not for an overlay).
  void loadRun(int64_t run_id, bool overlay, int run_index);
  void filterRuns();
  // A finished load of measured points: reported, and kept unless a newer load superseded it.
  void acceptPoints(QFutureWatcher<PointsLoad>* watcher, int generation, bool overlay,
                    int run_index, const std::shared_ptr<LoadProgress>& progress);
  // Runs the mapper on every operator in the background; `stop` stops it part-way. `starts`,
  // per operator (empty: none), are concrete mappings each search starts from and keeps unless
  // it finds a strictly faster one.
  QFutureWatcher<IndexedOutcome>* startMapping(const std::shared_ptr<SearchStop>& stop,
                                               const QString& what,
                                               std::vector<std::string> starts = {});
  void stopSearch(const std::shared_ptr<SearchStop>& stop);
  void matchMeasurements();
  void track(QFutureWatcherBase* watcher, const QString& what, const QString& unit = {});
  void untrack(QFutureWatcherBase* watcher);
  void report(int severity, const QString& text);

  std::shared_ptr<const ArchitectureGraph> baseline_graph_, graph_;
  std::shared_ptr<const Workload> workload_;
  std::vector<OperatorKey> operator_keys_;  // the rows' operators, as measurements name them
  QString arch_path_, workload_path_, results_path_, simulation_path_;
  SimulationTimeline simulation_, trace_timeline_;
  views::OperatorTableModel* operators_;
  QUndoStack* undo_;
  std::vector<ComparedPoint> points_, overlay_points_;
  QString points_source_;
  QString measurement_note_;
  struct RunEntry {
    int64_t id = 0;
    QString name;
    int device = 0;
    size_t rows = 0;  // measurements
    // The run's device names no graph (an imported trace): it has no stored predictions, so its
    // measurements are predicted on the open graph.
    bool predict_on_open_graph = false;
    QString workload;       // the suite it measured
    QString workload_file;  // as the run recorded it; empty when it did not
    QString arch_hash;      // the graph its predictions were stored for; empty: none
    QString device_name;
  };
  const RunEntry* shownRun() const;  // of current_run_, null for a CSV or none
  std::vector<RunEntry> all_runs_;
  QStringList device_names_;
  int current_device_ = -1;
  std::vector<int64_t> run_ids_;  // of the current device
  QStringList run_names_;
  int current_run_ = -1;
  MapperOptions mapper_options_;
  MapperStopReport last_stop_;
  std::shared_ptr<SearchStop> baseline_stop_, remap_stop_;
  // Generations: a result whose generation is not the latest is stale and dropped.
  int baseline_generation_ = 0, fixed_generation_ = 0, remap_generation_ = 0,
      points_generation_ = 0;
  QList<QPointer<QFutureWatcherBase>> running_;
  QPointer<QFutureWatcherBase> remap_watcher_;
};

}  // namespace ts::gui

Q_DECLARE_METATYPE(ts::gui::MapperStopReport)
