#pragma once
// File > Import trace… and a dropped trace: a profiler's trace (Kineto JSON or .json.gz, an
// Nsight Systems SQLite export, an msprof op_summary CSV) imported off the GUI thread into the
// open results database (or one the person picks), with a progress dialog whose Cancel stops it
// before anything is stored (the import is one transaction). Afterwards the database is
// (re)opened on the trace's run, so the correlation page shows its operators against the open
// graph, and the timeline shows its kernels beside their predictions (views/TraceTimeline).
#include <QObject>
#include <QPointer>
#include <QString>
#include <functional>
#include <memory>
#include <vector>

#include "trace/TraceImport.hpp"
#include "training/SimulationTimeline.hpp"

class QProgressDialog;
class QTemporaryDir;
class QWidget;
template <typename T>
class QFutureWatcher;

namespace ts::gui {

class Workbench;
struct TraceImportOutcome;

class TraceImportAction : public QObject {
  Q_OBJECT
 public:
  // `window`: the parent of the dialogs.
  TraceImportAction(Workbench* workbench, QWidget* window);
  ~TraceImportAction() override;

  // The menu entry: asks for a trace file, then importTrace.
  void chooseAndImport();
  // A file handed to the window (a drop, File > Open): imported when it is a trace (the
  // format read from its content, an nsys export told from a results database by its tables),
  // and true then; false when it is not a trace, for the caller to open as before.
  bool importIfTrace(const QString& path);
  // Starts the import of `trace` (a trace_format_of format) into the database the chooser gives;
  // false when it is not a trace, another import runs, or no database was chosen.
  // When no workload is open, the trace's operators are also written as a workload (in a
  // temporary folder of this action) and opened once stored, so that the Operators page shows
  // them predicted on the open graph.
  bool importTrace(const QString& trace);
  // A trace named on tilescope-gui's command line: no dialog; into the open results database, or
  // else into a temporary one that lasts as long as the window (the log says where).
  bool importWithoutAsking(const QString& trace);
  // Blocks, spinning the event loop, until no import is running and the last one's results were
  // taken (--screenshots, tests).
  void waitForIdle();

  // Where an import goes: by default the open results database, else one the person picks in
  // a save dialog ("" to give up). Tests set their own.
  void setDatabaseChooser(std::function<QString(const QString& trace)> chooser);
  bool busy() const;
  void cancel();  // what the progress dialog's Cancel does
  QProgressDialog* progressDialog() const { return dialog_; }
  // The last imported trace's tracks, as the timeline draws them.
  const SimulationTimeline& timeline() const { return timeline_; }

 Q_SIGNALS:
  // Once an import ends: stored (the database reopened on its run), cancelled (the store as it
  // was) or failed (`text` says why: file:line: what was expected).
  void finished(bool stored, bool cancelled, const QString& text);

 private:
  QString chooseDatabase(const QString& trace) const;
  QString scratchPath(const QString& name);  // in the action's temporary folder, made at need
  void done();
  void rebuildTimeline();  // with the run browser's points, once they are loaded

  Workbench* workbench_;
  QWidget* window_;
  std::function<QString(const QString&)> chooser_;
  QPointer<QFutureWatcher<TraceImportOutcome>> watcher_;
  QProgressDialog* dialog_ = nullptr;
  QString trace_name_, database_;
  QString workload_out_;  // the workload this import writes, opened once stored; empty: none
  std::unique_ptr<QTemporaryDir> scratch_;
  std::vector<TraceKernelSpan> kernels_;
  SimulationTimeline timeline_;
};

}  // namespace ts::gui
