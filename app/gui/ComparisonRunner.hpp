#pragma once
// What the Compare page compares: the open graph (the session's, with its edits) against graphs
// the user adds (files or profiles), on the open workload. Built with core's
// compare_architectures, so that its figures are those of `tilescope compare`.
//
// The open graph's predictions are the session's own rows (the mapper's choice on the graph as
// loaded; after an edit, the same mappings re-evaluated at once, then the mapper's new choice as
// each comes in), so an edit in the inspector moves the comparison live without mapping twice.
// Each added graph is predicted once per workload, off the GUI thread (predict_workload, as
// `tilescope compare` does), with progress and Cancel; a newer workload stops the older search.
// Once every graph's predictions are in, each graph also tries the mappings found on the others,
// as `compare` does, so that a graph that dominates another is never shown slower because of
// where its search ended (while the edited graph is re-mapped, the exchange waits).
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/Prediction.hpp"
#include "arch/ArchitectureGraph.hpp"
#include "report/ArchitectureComparison.hpp"

class QFutureWatcherBase;
class QTimer;

namespace ts::gui {

class WhatIfSession;

class ComparisonRunner : public QObject {
  Q_OBJECT
 public:
  explicit ComparisonRunner(WhatIfSession* session, QObject* parent = nullptr);
  ~ComparisonRunner() override;

  // A `kind: architecture` file or profile:NAME[/VARIANT]; false, with the loader's
  // `file:line:col: what` through message(), when it cannot be used.
  bool addGraph(const QString& source);
  void removeGraph(int index);  // into addedGraphs()
  // "B: NVIDIA H200 SXM5 (samples/arch/nvidia-h200.yaml)", one per added graph.
  QStringList addedGraphs() const;
  // The added graphs' sources as given: files (or profile:NAME), open while they are compared.
  QStringList addedGraphSources() const;

  // The comparison once every graph's predictions are in; none before (state() says why).
  const std::optional<ArchitectureComparison>& comparison() const { return comparison_; }
  // Why there is no comparison, or what is still moving (re-mapping pending); "" otherwise.
  QString state() const { return state_; }

  bool busy() const;
  void cancel();        // stops the added graphs' predictions part-way (inside a search)
  void predictAgain();  // after a cancel or a failure: predicts what is missing
  void waitForIdle();   // tests

 Q_SIGNALS:
  void comparisonChanged();  // comparison() or state()
  void message(int severity, const QString& text);
  void progressChanged(const QString& what, int done, int total);
  void busyChanged(bool busy);

 private:
  struct AddedGraph {
    int id = 0;
    QString source;
    std::shared_ptr<const ArchitectureGraph> graph;
    std::optional<std::vector<Prediction>> predictions;  // for the open workload
    std::vector<std::string> mappings;  // the concrete mapping of each prediction, as text
    QString error;                                       // why there are none
  };
  void workloadReplaced();
  void predictMissing();
  void scheduleRebuild();
  void rebuild();
  // The open graph's row predictions; false while some are not in yet (`pending` counts them).
  bool openGraphPredictions(std::vector<Prediction>& out, std::vector<std::string>& mappings,
                            int& pending, int& remapping) const;

  WhatIfSession* session_;
  std::vector<AddedGraph> graphs_;
  int next_id_ = 0;
  int generation_ = 0;  // a newer workload makes the predictions under way stale
  bool cancelled_ = false;
  std::shared_ptr<std::atomic<bool>> stop_;
  QPointer<QFutureWatcherBase> watcher_;
  QTimer* rebuild_timer_;
  std::optional<ArchitectureComparison> comparison_;
  QString state_;
};

}  // namespace ts::gui
