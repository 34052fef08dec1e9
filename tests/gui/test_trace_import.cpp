// Traces opened from the GUI (TraceImportAction): the committed Kineto fixture imported through
// the entry the File > Import trace menu calls, its run shown on the correlation page against
// the open graph and its kernels on the timeline; Cancel in the progress dialog leaves the
// database byte for byte as it was; a dropped Nsight Systems export (an SQLite file, like a
// results database) is imported as a trace, not opened as a store.
#include <QApplication>
#include <QCryptographicHash>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QUrl>
#include <cmath>
#include <fstream>

#include "../SqlFixture.hpp"
#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "RunBrowser.hpp"
#include "TraceImportAction.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "measure/ResultStore.hpp"
#include "trace/TraceFileKind.hpp"
#include "views/CorrelationView.hpp"
#include "views/TimelineView.hpp"

using ts::guitest::sample;

namespace {

QString trace_fixture(const QString& relative) {
  return QString(TILESCOPE_ROOT "/tests/fixtures/trace/") + relative;
}

QByteArray file_hash(const QString& path) {
  QFile file(path);
  REQUIRE(file.open(QIODevice::ReadOnly));
  return QCryptographicHash::hash(file.readAll(), QCryptographicHash::Sha256);
}

const ts::TimelineTrack* track_named(const ts::SimulationTimeline& timeline,
                                     const std::string& name) {
  for (const ts::TimelineTrack& t : timeline.tracks)
    if (t.name == name) return &t;
  return nullptr;
}

// A Kineto trace of `kernels` kernels (no CPU side), large enough that reading it takes many
// progress reports (KinetoTrace reports every 65,536 events).
QString write_large_trace(const QString& path, int kernels) {
  std::ofstream out(path.toStdString());
  out << "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  for (int i = 0; i < kernels; ++i)
    out << (i ? ",\n" : "") << R"({"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", )"
        << R"("pid": 0, "tid": 7, "ts": )" << 100 + 2 * i
        << R"(, "dur": 1.5, "args": {"device": 0, "stream": 7, "correlation": )" << 1000 + i
        << "}}";
  out << "\n]}\n";
  return path;
}

}  // namespace

TEST_CASE("a Kineto trace imported from the GUI shows on the correlation page and the timeline",
          "[gui][trace]") {
  QTemporaryDir dir;
  const QString db = dir.filePath("results.sqlite");
  ts::gui::Workbench workbench;
  ts::gui::RunBrowser& browser = *workbench.runBrowser();
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  // Empty states before anything is imported.
  CHECK(window.timelineView()->summaryText().contains("no trace imported"));
  CHECK(window.timelineView()->timeline().tracks.empty());
  // The trace ran on an A100: its operators are predicted on that graph.
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/nvidia-a100.yaml")));
  workbench.waitForIdle();

  ts::gui::TraceImportAction* traces = window.traceImport();
  traces->setDatabaseChooser([&](const QString&) { return db; });
  QSignalSpy finished(traces, &ts::gui::TraceImportAction::finished);
  REQUIRE(traces->importTrace(trace_fixture("kineto/bert_step.json")));
  REQUIRE(finished.wait(30000));
  INFO(finished.front().at(2).toString().toStdString());
  CHECK(finished.front().at(0).toBool());        // stored
  CHECK_FALSE(finished.front().at(1).toBool());  // not cancelled
  workbench.waitForIdle();                       // the run's points, predicted on the open graph
  CHECK(window.errorCount() == 0);

  // The run appears, and is the one shown.
  CHECK(browser.resultsPath() == db);
  REQUIRE(browser.currentRun() >= 0);
  CHECK(browser.runs()[browser.currentRun()].contains("import:kineto"));
  CHECK(browser.runs()[browser.currentRun()].contains("NVIDIA A100-SXM4-80GB"));

  // The correlation page has a row per stored measurement: one per distinct (operator, kernel).
  ts::ResultStore store(db.toStdString(), ts::ResultStore::Mode::read_only);
  const auto runs = store.runs();
  REQUIRE(runs.size() == 1);
  REQUIRE(runs[0].measurement_count > 0);
  CHECK(browser.points().size() == static_cast<size_t>(runs[0].measurement_count));
  CHECK(static_cast<long long>(window.correlationView()->contents().count) ==
        static_cast<long long>(runs[0].measurement_count));
  for (const ts::ComparedPoint& p : browser.points()) {
    CHECK(p.measured_s > 0);
    CHECK(std::isfinite(p.predicted_s));
  }

  // The timeline: the fixture's 18 kernels, all on GPU 0 stream 7 (README), in a track group of
  // their own, and beside them the same kernels lasting their predictions.
  const ts::SimulationTimeline& timeline = window.timelineView()->timeline();
  const ts::TimelineTrack* measured =
      track_named(timeline, "trace bert_step: GPU 0 stream 7 measured");
  REQUIRE(measured);
  CHECK(measured->spans.size() == 18);
  CHECK(measured->spans.front().start_s == 0);  // drawn from the first kernel
  // bert_step.json's first kernel: ts 130.0, dur 41.0 microseconds.
  CHECK(measured->spans.front().duration_s == Approx(41e-6));
  const ts::TimelineTrack* predicted =
      track_named(timeline, "trace bert_step: GPU 0 stream 7 predicted");
  REQUIRE(predicted);
  CHECK(predicted->spans.size() == 18);  // every kernel's operator was stored and predicted
  CHECK(window.timelineView()->summaryText().contains("18 kernels on 1 streams"));
  window.pages()->setCurrentWidget(window.timelineView());
  QApplication::processEvents();
  ts::guitest::save_screenshot(window, "gui-trace-timeline");
  window.pages()->setCurrentWidget(window.correlationView());
  QApplication::processEvents();
  ts::guitest::save_screenshot(window, "gui-trace-correlation");
}

TEST_CASE("cancelling a trace import in the GUI leaves the database as it was", "[gui][trace]") {
  QTemporaryDir dir;
  const QString db = dir.filePath("results.sqlite");
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.show();
  ts::gui::TraceImportAction* traces = window.traceImport();
  traces->setDatabaseChooser([&](const QString&) { return db; });
  QSignalSpy finished(traces, &ts::gui::TraceImportAction::finished);
  // A database with a run in it: the first import, left to finish.
  REQUIRE(traces->importTrace(trace_fixture("kineto/bert_step.json")));
  REQUIRE(finished.wait(30000));
  REQUIRE(finished.takeFirst().at(0).toBool());
  workbench.waitForIdle();
  const QByteArray before = file_hash(db);

  // 200,000 kernels (about 30 MB): the read is far from done when Cancel is pressed.
  const QString large = write_large_trace(dir.filePath("large.json"), 200000);
  REQUIRE(traces->importTrace(large));
  CHECK(traces->busy());
  QProgressDialog* dialog = traces->progressDialog();
  REQUIRE(dialog);
  auto* cancel = dialog->findChild<QPushButton*>();
  REQUIRE(cancel);
  cancel->click();
  REQUIRE(finished.wait(30000));
  CHECK_FALSE(finished.front().at(0).toBool());
  CHECK(finished.front().at(1).toBool());
  CHECK_FALSE(traces->busy());
  CHECK(traces->progressDialog() == nullptr);
  CHECK(file_hash(db) == before);
  ts::ResultStore store(db.toStdString(), ts::ResultStore::Mode::read_only);
  CHECK(store.runs().size() == 1);
}

TEST_CASE("a dropped Nsight Systems export is imported as a trace, not opened as a store",
          "[gui][trace]") {
  QTemporaryDir dir;
  const QString report = dir.filePath("report.sqlite");
  ts::test::build_sqlite_from_sql(trace_fixture("nsys/export-2024.sql").toStdString(),
                                  report.toStdString());
  // Both are SQLite files; only the export has the kernel and string tables.
  const QString db = dir.filePath("results.sqlite");
  { ts::ResultStore created(db.toStdString()); }
  CHECK(ts::trace_format_of(report.toStdString()) == "nsys");
  CHECK(ts::trace_format_of(db.toStdString()).empty());
  CHECK(ts::trace_format_of(trace_fixture("kineto/bert_step.json.gz").toStdString()) == "kineto");
  CHECK(ts::trace_format_of(trace_fixture("kineto/bert_step_async_flows.json").toStdString()) ==
        "kineto");
  CHECK(ts::trace_format_of(trace_fixture("msprof/op_summary_cann8.csv").toStdString()) ==
        "msprof");
  CHECK(ts::trace_format_of(
            QString(TILESCOPE_ROOT "/tests/gui/fixtures/gpt-22b-selene.sim.json").toStdString())
            .empty());

  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.show();
  REQUIRE(workbench.openFile(db));  // the open database takes the trace
  workbench.waitForIdle();
  ts::gui::TraceImportAction* traces = window.traceImport();
  QSignalSpy finished(traces, &ts::gui::TraceImportAction::finished);

  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(report)});
  // As a drag does it: the enter makes the window the drop's target, then the drop.
  QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &enter);
  REQUIRE(enter.isAccepted());
  QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &drop);
  INFO(window.logPanel()->toPlainText().toStdString());
  REQUIRE((finished.count() > 0 || finished.wait(30000)));
  INFO(finished.front().at(2).toString().toStdString());
  CHECK(finished.front().at(0).toBool());
  workbench.waitForIdle();
  CHECK(workbench.runBrowser()->resultsPath() == db);  // the export was not opened as the store
  ts::ResultStore store(db.toStdString(), ts::ResultStore::Mode::read_only);
  const auto runs = store.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].start.collector == "import:nsys");
  CHECK_FALSE(window.traceImport()->timeline().tracks.empty());
}
