#pragma once
// tilescope-gui's window: one page per view (operators, architecture, mapping, correlation), a
// log panel for errors (file:line: what), a status bar with progress and Cancel. The current
// operator is shared: choosing it on any page (a table row, a point of the correlation plot)
// shows it on every other.
#include <QMainWindow>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTabWidget;
class QMenu;

namespace ts::views {
class CorrelationView;
class TimelineView;
}  // namespace ts::views

namespace ts::gui {

class Workbench;
class OperatorsPage;
class ArchitecturePage;
class MappingPage;
class ComparePage;
class SweepPage;
class TraceImportAction;
class TracePage;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(Workbench* workbench, QWidget* parent = nullptr);

  QTabWidget* pages() const { return pages_; }
  OperatorsPage* operatorsPage() const { return operators_; }
  ArchitecturePage* architecturePage() const { return architecture_; }
  MappingPage* mappingPage() const { return mapping_; }
  views::CorrelationView* correlationView() const { return correlation_; }
  views::TimelineView* timelineView() const { return timeline_; }
  // Above the timeline: why the shown run's kernels are not drawn (Workbench::traceTimelineNote).
  QLabel* timelineNote() const { return timeline_note_; }
  ComparePage* comparePage() const { return compare_; }
  SweepPage* sweepPage() const { return sweep_; }
  TracePage* tracePage() const { return trace_; }
  QPlainTextEdit* logPanel() const { return log_; }
  TraceImportAction* traceImport() const { return traces_; }
  int errorCount() const { return errors_; }

  // The files of tilescope-gui's command line: graphs, workloads, databases first, then the
  // traces, each imported without a dialog (TraceImportAction::importWithoutAsking) into the
  // database just opened or a temporary one, and shown on the Trace page.
  void openCommandLine(const QStringList& paths);
  // Blocks until the imports, the trace analyses and the predictions are in (--screenshots).
  void waitForIdle();

  void selectOperator(int row);  // in the what-if session's operator model; -1: none
  int currentOperator() const { return current_; }

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildMenus();
  void log(int severity, const QString& text);
  void showPoints();
  void showRuns();  // the correlation page's device, run and comparison choices
  void openFiles(const QStringList& paths);
  // A profiler trace is imported (TraceImportAction) and shown on the Trace page, a folder of
  // per-rank traces shown there; any other file opens as before.
  void openOrImport(const QString& path);
  void rememberRecent(const QString& path);
  void fillRecentMenu();
  void fillProfileMenu(QMenu* menu);
  // The Compare page (issue 22): its tab, its log and progress lines.
  void addComparePage();
  // The Sweep page (issue 23): the open database's sweeps; its log lines.
  void addSweepPage();
  // Context menus on every plot (PNG / SVG / PDF) and table (copy, CSV).
  void installExports();
  // Help > Documentation, Help > About tilescope.
  void buildHelpMenu();

  Workbench* workbench_;
  QTabWidget* pages_;
  OperatorsPage* operators_;
  ArchitecturePage* architecture_;
  MappingPage* mapping_;
  views::CorrelationView* correlation_;
  views::TimelineView* timeline_;
  QLabel* timeline_note_;
  ComparePage* compare_ = nullptr;
  SweepPage* sweep_ = nullptr;
  TracePage* trace_;
  QPlainTextEdit* log_;
  QLabel* status_;
  QProgressBar* progress_;
  QPushButton* cancel_;
  QMenu* recent_ = nullptr;
  TraceImportAction* traces_;
  int errors_ = 0;
  int current_ = -1;
  bool selecting_ = false;
};

}  // namespace ts::gui
