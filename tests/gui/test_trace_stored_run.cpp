// A trace imported with the CLI and opened later in the GUI (issue 38, item 0: "an imported
// run's kernels show on the Timeline"): `tilescope import kineto T --db runs.sqlite --arch G`,
// then `tilescope-gui G runs.sqlite`. The database holds per-operator measurements, not kernel
// times, so the window reads the trace the run recorded again (off the GUI thread, from the
// database's folder when the import ran elsewhere) and draws its kernels with their operators as
// File > Import draws them; a database whose trace was moved away says where the trace was looked
// for, once in the log and on the Timeline, and nothing crashes.
#include <QApplication>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <set>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "RunBrowser.hpp"
#include "TraceImportAction.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "views/TimelineView.hpp"

// A named namespace: the GUI tests are compiled in unity batches, where other files' helpers
// of the same names would clash.
namespace stored_run {

using ts::guitest::sample;

const QString kBertStep = TILESCOPE_ROOT "/tests/fixtures/trace/kineto/bert_step.json";
const std::string kMeasuredTrack = "trace bert_step: GPU 0 stream 7 measured";
const std::string kPredictedTrack = "trace bert_step: GPU 0 stream 7 predicted";

// `tilescope ARGS` run in `folder`, as a person would from a shell there.
void run_tilescope_in(const QString& folder, const QStringList& args) {
  QProcess p;
  p.setWorkingDirectory(folder);
  p.start(TILESCOPE_BUILD_DIR "/app/tilescope", args);
  REQUIRE(p.waitForFinished(120000));
  INFO(QString::fromLocal8Bit(p.readAllStandardError()).toStdString());
  REQUIRE(p.exitCode() == 0);
}

// A folder with bert_step.json and runs.sqlite, the trace imported by the CLI run in that
// folder, so that the run records the trace as "bert_step.json", relative to it.
void import_with_cli(const QTemporaryDir& dir) {
  REQUIRE(QFile::copy(kBertStep, dir.filePath("bert_step.json")));
  run_tilescope_in(dir.path(), {"import", "kineto", "bert_step.json", "--db", "runs.sqlite",
                                "--arch", sample("arch/nvidia-a100.yaml")});
}

const ts::TimelineTrack* stored_run_track(const ts::SimulationTimeline& timeline,
                                          const std::string& name) {
  for (const ts::TimelineTrack& t : timeline.tracks)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> span_labels(const ts::TimelineTrack& track) {
  std::vector<std::string> out;
  for (const ts::TimelineSpan& s : track.spans) out.push_back(s.label);
  return out;
}

}  // namespace stored_run

using namespace stored_run;

TEST_CASE("a run imported with the CLI shows its kernels on the Timeline", "[gui][trace]") {
  QTemporaryDir dir;
  import_with_cli(dir);

  // tilescope-gui G runs.sqlite, started in another folder than the import (the build's).
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  window.openCommandLine({sample("arch/nvidia-a100.yaml"), dir.filePath("runs.sqlite")});
  window.waitForIdle();
  CHECK(window.errorCount() == 0);
  ts::gui::RunBrowser& browser = *workbench.runBrowser();
  REQUIRE(browser.currentRun() >= 0);
  CHECK(browser.runs()[browser.currentRun()].contains("import:kineto"));

  // The fixture's 18 kernels, all on GPU 0 stream 7, each with its operator: the stored
  // operator's name, as the run's measurements name it, so that each meets its prediction.
  const ts::SimulationTimeline& timeline = window.timelineView()->timeline();
  const ts::TimelineTrack* measured = stored_run_track(timeline, kMeasuredTrack);
  REQUIRE(measured);
  CHECK(measured->spans.size() == 18);
  CHECK(measured->spans.front().start_s == 0);
  CHECK(measured->spans.front().duration_s == Approx(41e-6));  // ts 130.0, dur 41.0 us
  std::set<std::string> stored;
  for (const ts::ComparedPoint& p : browser.points()) stored.insert(p.op_name);
  REQUIRE_FALSE(stored.empty());
  for (const ts::TimelineSpan& span : measured->spans) {
    INFO(span.label);
    const auto open = span.label.rfind(" (");
    REQUIRE(open != std::string::npos);
    CHECK(stored.count(span.label.substr(open + 2, span.label.size() - open - 3)) == 1);
  }
  const ts::TimelineTrack* predicted = stored_run_track(timeline, kPredictedTrack);
  REQUIRE(predicted);
  CHECK(predicted->spans.size() == 18);
  CHECK(window.timelineView()->summaryText().contains("18 kernels on 1 streams"));
  CHECK(window.timelineNote()->isHidden());
  CHECK(window.logPanel()->toPlainText().contains("18 kernels read from"));
  window.pages()->setCurrentWidget(window.timelineView());
  QApplication::processEvents();
  ts::guitest::save_screenshot(window, "gui-trace-stored-run-timeline");

  // The same tracks as an import from the GUI draws: one way of naming a kernel's operator.
  QTemporaryDir other;
  ts::gui::Workbench imported;
  ts::gui::MainWindow imported_window(&imported);
  REQUIRE(imported.whatIf()->openArchitecture(sample("arch/nvidia-a100.yaml")));
  imported.waitForIdle();
  ts::gui::TraceImportAction* traces = imported_window.traceImport();
  traces->setDatabaseChooser([&](const QString&) { return other.filePath("gui.sqlite"); });
  QSignalSpy finished(traces, &ts::gui::TraceImportAction::finished);
  REQUIRE(traces->importTrace(kBertStep));
  REQUIRE(finished.wait(30000));
  imported.waitForIdle();
  const ts::SimulationTimeline& from_gui = imported_window.timelineView()->timeline();
  REQUIRE(stored_run_track(from_gui, kMeasuredTrack));
  REQUIRE(stored_run_track(from_gui, kPredictedTrack));
  CHECK(span_labels(*stored_run_track(from_gui, kMeasuredTrack)) == span_labels(*measured));
  CHECK(span_labels(*stored_run_track(from_gui, kPredictedTrack)) == span_labels(*predicted));
}

TEST_CASE("a run whose trace was moved away says so on the Timeline", "[gui][trace]") {
  QTemporaryDir dir;
  import_with_cli(dir);
  QTemporaryDir elsewhere;
  REQUIRE(QFile::rename(dir.filePath("bert_step.json"), elsewhere.filePath("bert_step.json")));

  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.show();
  window.openCommandLine({sample("arch/nvidia-a100.yaml"), dir.filePath("runs.sqlite")});
  window.waitForIdle();
  CHECK(window.errorCount() == 0);  // a warning, not an error: the run's measurements still show
  REQUIRE(workbench.runBrowser()->currentRun() >= 0);
  CHECK_FALSE(workbench.runBrowser()->points().empty());

  CHECK(window.timelineView()->timeline().tracks.empty());
  const QString note = window.timelineNote()->text();
  INFO(note.toStdString());
  CHECK_FALSE(window.timelineNote()->isHidden());
  CHECK(note.contains("cannot be drawn"));
  CHECK(note.contains("its trace is not at"));
  CHECK(note.contains(dir.filePath("bert_step.json")));  // beside the database, where it was
  window.pages()->setCurrentWidget(window.timelineView());
  QApplication::processEvents();
  ts::guitest::save_screenshot(window, "gui-trace-stored-run-missing");
  // The log names the missing file once, however often the run's points are loaded again.
  const auto missing_lines = [&] {
    return window.logPanel()->toPlainText().count("its trace bert_step.json is missing");
  };
  CHECK(missing_lines() == 1);
  workbench.runBrowser()->chooseRun(workbench.runBrowser()->currentRun());
  workbench.waitForIdle();
  CHECK(missing_lines() == 1);
  CHECK(window.timelineNote()->text() == note);

  // Put back, the run's kernels are drawn when it is shown again, and the note goes.
  REQUIRE(QFile::rename(elsewhere.filePath("bert_step.json"), dir.filePath("bert_step.json")));
  workbench.runBrowser()->chooseRun(workbench.runBrowser()->currentRun());
  workbench.waitForIdle();
  const ts::TimelineTrack* measured =
      stored_run_track(window.timelineView()->timeline(), kMeasuredTrack);
  REQUIRE(measured);
  CHECK(measured->spans.size() == 18);
  CHECK(window.timelineNote()->isHidden());
}
