#pragma once
// File > Import trace… and a dropped trace: a profiler's trace (Kineto JSON or .json.gz, an
// Nsight Systems SQLite export, an msprof op_summary CSV) imported off the GUI thread into the
// open results database (or one the person picks), with a progress dialog whose Cancel stops it
// before anything is stored (the import is one transaction). Afterwards the database is
// (re)opened on the trace's run, so the correlation page shows its operators against the open
// graph, and the timeline shows its kernels beside their predictions (views/TraceTimeline).
// A run the database holds from an earlier import (the CLI's `tilescope import kineto`, or this
// action in another session) has only per-operator measurements: when the run browser shows one,
// its recorded trace is read again off the GUI thread (RecordedTrace) and drawn the same way; when
// the file is gone, the timeline page says where it was looked for.
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
struct RecordedKernels;
struct RecordedTrace;

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
  // The kernels of the run the run browser shows: those held when they are that run's, else its
  // recorded trace read again, else none (and why, when it is a trace whose file is gone).
  void rebuildTimeline();
  void drawKernels();  // kernels_ with the run browser's points when they are kernels_run_'s
  void showNoKernels(const QString& note);
  void readRecordedTrace(int64_t run, const QString& database, const RecordedTrace& trace,
                         const QString& name);
  void recordedTraceRead();
  void stopReading();  // a read under way is dropped, its result unused

  Workbench* workbench_;
  QWidget* window_;
  std::function<QString(const QString&)> chooser_;
  QPointer<QFutureWatcher<TraceImportOutcome>> watcher_;
  QProgressDialog* dialog_ = nullptr;
  QString trace_name_, database_;
  QString workload_out_;  // the workload this import writes, opened once stored; empty: none
  std::unique_ptr<QTemporaryDir> scratch_;
  // The kernels held: of run kernels_run_ of kernels_database_ (-1: none), their tracks named
  // "trace NAME: ..." by kernels_name_.
  std::vector<TraceKernelSpan> kernels_;
  QString kernels_name_, kernels_database_;
  int64_t kernels_run_ = -1;
  SimulationTimeline timeline_;
  // A stored run's trace being read again (tracked by the workbench's BackgroundWork), the run
  // it is of and its trace; a read superseded by another run's is cancelled and dropped.
  QPointer<QFutureWatcher<RecordedKernels>> reading_;
  QString reading_database_, reading_path_, reading_name_;
  int64_t reading_run_ = -1;
  // A run whose trace was not drawn for a reason that reading again would not change (a cancel,
  // a file that no longer reads) is not read again until another run is shown: "DB#RUN", and why.
  QString given_up_run_, given_up_note_;
  QStringList missing_reported_;  // the traces the log has said are gone, each said once
};

}  // namespace ts::gui
