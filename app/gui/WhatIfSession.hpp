#pragma once
// The what-if loop of tilescope-gui: the open architecture graph and workload suite, a row per
// operator (views::OperatorTableModel) and the undo stack of parameter edits.
//
// An edit of a graph parameter makes a new graph snapshot; every operator's current mapping is
// re-evaluated on it at once (fixedReady), then the mapper re-runs in the background
// (remapReady), the table saying which numbers are pending. Cancel (or a newer edit) stops a
// mapper search part-way through MapperOptions::cancel, not only between operators. A newer
// request makes older results stale (a generation per kind of run), which are then dropped
// rather than shown.
#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>
#include <string>
#include <vector>

#include "OutputGuard.hpp"
#include "arch/ArchitectureGraph.hpp"
#include "mapper/OperatorEvaluation.hpp"
#include "views/OperatorTableModel.hpp"
#include "workload/Operator.hpp"

class QFutureWatcherBase;
template <typename T>
class QFutureWatcher;
class QUndoStack;

namespace ts::gui {

class BackgroundWork;
struct IndexedOutcome;
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

class WhatIfSession : public QObject {
  Q_OBJECT
 public:
  // Its mapper runs are tracked by `work` (busy, progress, Cancel of the futures).
  explicit WhatIfSession(BackgroundWork* work, QObject* parent = nullptr);

  // Each returns false, and reports file:line: why through message(), when the file cannot be
  // used; what was open stays open then.
  bool openArchitecture(const QString& path);
  bool openWorkload(const QString& path);
  // The edited graph as a new file: never one the window has open (the graph it was loaded
  // from included), which is refused with the error through message().
  bool saveArchitecture(const QString& path);
  // What the window has open, for saveArchitecture (the Workbench's); without it, this
  // session's graph and workload.
  void setOpenFiles(OpenFiles open_files) { open_files_ = std::move(open_files); }

  std::shared_ptr<const ArchitectureGraph> graph() const { return graph_; }
  std::shared_ptr<const ArchitectureGraph> baselineGraph() const { return baseline_graph_; }
  std::shared_ptr<const Workload> workload() const { return workload_; }
  QString architecturePath() const { return arch_path_; }
  QString workloadPath() const { return workload_path_; }
  views::OperatorTableModel* operators() const { return operators_; }
  QUndoStack* undoStack() const { return undo_; }

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

  // Asks the running mapper searches to stop inside the search (the futures themselves are
  // cancelled through BackgroundWork).
  void stopSearches();

 Q_SIGNALS:
  void message(int severity, const QString& text);
  void architectureReplaced();
  void architectureEdited();
  void workloadReplaced();
  // The rows were made anew for another graph or workload (their measured column is empty).
  void rowsReset();
  void baselineReady();
  void fixedReady();
  void remapReady();
  void remapStopped(const ts::gui::MapperStopReport& report);  // cancelled or superseded

 private:
  void resetRows();
  void startBaseline();
  void startFixed();
  void startRemap();
  // Runs the mapper on every operator in the background; `stop` stops it part-way. `starts`,
  // per operator (empty: none), are concrete mappings each search starts from and keeps unless
  // it finds a strictly faster one.
  QFutureWatcher<IndexedOutcome>* startMapping(const std::shared_ptr<SearchStop>& stop,
                                               const QString& what,
                                               std::vector<std::string> starts = {});
  void stopSearch(const std::shared_ptr<SearchStop>& stop);
  void report(int severity, const QString& text);

  BackgroundWork* work_;
  std::shared_ptr<const ArchitectureGraph> baseline_graph_, graph_;
  std::shared_ptr<const Workload> workload_;
  QString arch_path_, workload_path_;
  OpenFiles open_files_;
  views::OperatorTableModel* operators_;
  QUndoStack* undo_;
  MapperOptions mapper_options_;
  MapperStopReport last_stop_;
  std::shared_ptr<SearchStop> baseline_stop_, remap_stop_;
  // Generations: a result whose generation is not the latest is stale and dropped.
  int baseline_generation_ = 0, fixed_generation_ = 0, remap_generation_ = 0;
  QPointer<QFutureWatcherBase> remap_watcher_;
};

}  // namespace ts::gui

Q_DECLARE_METATYPE(ts::gui::MapperStopReport)
