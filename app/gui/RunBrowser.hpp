#pragma once
// The measurements tilescope-gui has open: a results database (its devices, runs.device_id ->
// devices, and the runs of the chosen one) or a CSV of measured GEMMs, and the measured points
// of the chosen run and of an overlay run, loaded off the GUI thread. A newer load makes older
// ones stale, which are then dropped rather than shown.
//
// The chosen run's points fill the "measured" column of the what-if session's operator rows, by
// core's rule of which operator a measurement is of (core/measure/MeasuredCost).
#include <QObject>
#include <QStringList>
#include <memory>
#include <vector>

#include "correlate/Correlation.hpp"
#include "measure/MeasurementRecord.hpp"
#include "measure/RunCatalog.hpp"

template <typename T>
class QFutureWatcher;

namespace ts::gui {

class BackgroundWork;
class WhatIfSession;
struct PointsLoad;
struct LoadProgress;

class RunBrowser : public QObject {
  Q_OBJECT
 public:
  // Its loads are tracked by `work`; `session` gives the graph a run is predicted on and the
  // operator rows its measurements fill.
  RunBrowser(WhatIfSession* session, BackgroundWork* work, QObject* parent = nullptr);

  // Each returns false, and reports file:line: why through message(), when the file cannot be
  // used; what was open stays open then.
  bool openResults(const QString& path);         // a results database, loaded in the background
  bool openMeasurementCsv(const QString& path);  // M,N,K,measured_us GEMMs, predicted here
  QString resultsPath() const { return results_path_; }

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
  // The run whose points are shown (of currentRun()); null for a CSV or none.
  const CatalogRun* shownRun() const;
  void chooseRun(int index);         // into runs()
  void chooseRunId(int64_t run_id);  // chooses its device, then it; an unknown id does nothing
  // Every run of the database, whatever its device (a comparison may cross devices).
  QStringList overlayRuns() const;
  void chooseOverlayRun(int index);  // into overlayRuns(); -1: none

  // The row of the operator that a measured point is of, or -1.
  int rowOfPoint(const ComparedPoint& point) const;

 Q_SIGNALS:
  void message(int severity, const QString& text);
  void pointsChanged();
  void runsChanged();  // devices(), runs() or overlayRuns()
  void measurementNoteChanged(const QString& note);
  // A load of measurements was cancelled after `rows` of `total` rows; what was shown stays.
  void pointsLoadCancelled(qint64 rows, qint64 total);

 private:
  // The session's rows were made anew: which operators they are, as measurements name them.
  void rowsReset();
  // run_index: into runs(), the one shown once loaded (not for an overlay).
  void loadRun(int64_t run_id, bool overlay, int run_index);
  void filterRuns();
  // A finished load of measured points: reported, and kept unless a newer load superseded it.
  void acceptPoints(QFutureWatcher<PointsLoad>* watcher, int generation, bool overlay,
                    int run_index, const std::shared_ptr<LoadProgress>& progress);
  void matchMeasurements();
  void report(int severity, const QString& text);

  WhatIfSession* session_;
  BackgroundWork* work_;
  std::vector<OperatorKey> operator_keys_;  // the rows' operators, as measurements name them
  QString results_path_;
  std::vector<ComparedPoint> points_, overlay_points_;
  QString points_source_;
  QString measurement_note_;
  // The open database's devices and runs, grouped and named by core (measure/RunCatalog).
  RunCatalog catalog_;
  QStringList device_names_;
  int current_device_ = -1;
  std::vector<int64_t> run_ids_;  // of the current device
  QStringList run_names_;
  int current_run_ = -1;
  // A result whose generation is not the latest is stale and dropped.
  int points_generation_ = 0;
};

}  // namespace ts::gui
