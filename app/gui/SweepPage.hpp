#pragma once
// The Sweep page: the sweeps stored in the open results database (`tilescope sweep --db`,
// docs/sweep.md). For the chosen sweep, the Pareto figure of time against the chosen cost (by
// default the sweep's: the suite energy where every point has it, else the graph's area, else
// the memory proxy; the Cost box names another, as `sweep --cost` does), the other figures every
// point has beside it, and the sensitivity bars of the chosen subject (the suite total or one
// operator), drawn by views/SweepPlots as `tilescope report --sweep` draws them, and the table of
// its points. Above them, what acts on nothing: axes the graph caps (where the window's graph is
// the sweep's: sweep_axis_caps, as `sweep` warns before its points), axes along which the total
// never moves (sweep_axis_plateaus) and parameters the fit cannot tell apart. The store is read
// and digested off the GUI thread; a newer read makes an older one stale. Without a sweep in the
// store a message says how to make one.
#include <QPointer>
#include <QWidget>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "OutputGuard.hpp"
#include "sweep/SweepDigest.hpp"
#include "views/SweepPlots.hpp"

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QSplitter;
class QTableView;
class QCustomPlot;
template <typename T>
class QFutureWatcher;

namespace ts::views {
class SweepPointTableModel;
}

namespace ts::gui {

class RunBrowser;

// One sweep of a store: its keys and what the views draw of its points.
struct StoredSweep {
  std::string sweep_key, workload_hash;
  SweepDigest digest;
  // Where the window's graph is the sweep's base graph (stored_sweep_caps): its capped axes.
  std::optional<std::vector<SweepAxisCap>> caps;
};

// What a read of a store gives: its sweeps, latest point first (ResultStore::sweeps), or why
// it could not be read.
struct SweepStoreRead {
  QString path;
  std::vector<StoredSweep> sweeps;
  QString error;
};

class SweepPage : public QWidget {
  Q_OBJECT
 public:
  explicit SweepPage(RunBrowser* runs, QWidget* parent = nullptr);

  QComboBox* sweepChoice() const { return sweep_choice_; }
  QComboBox* subjectChoice() const { return subject_choice_; }
  // What the first figure sets time against: the sweep's cost (first), then memory, energy,
  // area and EDP where known, and each varied parameter with numbers for values.
  QComboBox* costChoice() const { return cost_choice_; }
  // What acts on nothing, one line each (hidden when there is nothing to say).
  QLabel* warnings() const { return warnings_; }
  QCustomPlot* paretoPlot() const { return pareto_; }
  QCustomPlot* sensitivityPlot() const { return sensitivity_; }
  // Shown only where the chosen sweep's points all have the figure (SweepDigest::energy_known,
  // area_known).
  QCustomPlot* energyParetoPlot() const { return energy_pareto_; }
  QCustomPlot* areaParetoPlot() const { return area_pareto_; }
  QTableView* table() const { return table_; }
  views::SweepPointTableModel* model() const { return model_; }
  QLabel* emptyState() const { return empty_; }
  QLabel* summary() const { return summary_; }
  // What the figures hold now (their graphs and bars belong to the plots).
  const views::SweepParetoContents& paretoContents() const { return pareto_contents_; }
  const views::SweepParetoContents& energyParetoContents() const { return energy_pareto_contents_; }
  const views::SweepParetoContents& areaParetoContents() const { return area_pareto_contents_; }
  const views::SweepSensitivityContents& sensitivityContents() const {
    return sensitivity_contents_;
  }
  const std::vector<StoredSweep>& sweeps() const { return sweeps_; }

  // Reads the open results database's sweeps again (a sweep still running adds points).
  void reload();
  // A read is under way, or its result has not come back to the GUI thread yet.
  bool busy() const;
  void waitForIdle();  // tests
  // What the table's CSV export never writes over (the window's open files); without it, the
  // results database the sweeps are read from.
  void setOpenFiles(OpenFiles open_files) { open_files_ = std::move(open_files); }
  // The window's architecture graph (none: nullptr): where it is a sweep's base graph, the page
  // names what caps that sweep's axes. Reads the store again when it changes.
  void setArchitecture(std::shared_ptr<const ArchitectureGraph> graph);

 Q_SIGNALS:
  void message(int severity, const QString& text);

 protected:
  void changeEvent(QEvent* event) override;

 private:
  void resultsMaybeReplaced();
  void accept(const SweepStoreRead& read);
  void showSweep(int index);
  void drawPareto();
  void drawSensitivity();
  void showWarnings(const StoredSweep& sweep);
  SweepCost chosenCost() const;
  void showEmpty(const QString& text);

  RunBrowser* runs_;
  OpenFiles open_files_;
  QString shown_path_;                                // the store read last (or being read)
  int generation_ = 0;                                // a read of an older one is stale
  QPointer<QFutureWatcher<SweepStoreRead>> reading_;  // the latest read, while it runs
  std::vector<StoredSweep> sweeps_;
  std::shared_ptr<const ArchitectureGraph> graph_;
  std::vector<SweepCost> costs_;  // the Cost box's entries, in order
  QComboBox* sweep_choice_;
  QComboBox* subject_choice_;
  QComboBox* cost_choice_;
  QLabel* warnings_;
  QLabel* sweep_label_;
  QLabel* summary_;
  QLabel* empty_;
  QSplitter* split_;
  QCustomPlot* pareto_;
  QCustomPlot* sensitivity_;
  QCustomPlot* energy_pareto_;
  QCustomPlot* area_pareto_;
  QSplitter* figure_fronts_;  // the energy and area figures, a row under the others
  QSplitter* figure_rows_;    // the first row of figures over figure_fronts_
  QTableView* table_;
  views::SweepPointTableModel* model_;
  QSortFilterProxyModel* proxy_;
  views::SweepParetoContents pareto_contents_;
  views::SweepParetoContents energy_pareto_contents_, area_pareto_contents_;
  views::SweepSensitivityContents sensitivity_contents_;
};

}  // namespace ts::gui
