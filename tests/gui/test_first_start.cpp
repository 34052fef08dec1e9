// The first start (issue 22): with scripts/run's outputs in the working folder, tilescope-gui
// opens out/host.yaml, the workload its run measured and out/host-results.sqlite, on the run
// predicted on that graph, so that "measured" and "error" fill; without them it falls back to
// Ascend + BERT and says on screen why a database's measurements do not fill the columns.
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QStatusBar>
#include <QTemporaryDir>

#include "DefaultInputs.hpp"
#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "ResultsFixture.hpp"
#include "RunBrowser.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "measure/ResultStore.hpp"
#include "measure/RunSettings.hpp"

using ts::guitest::sample;

namespace {

// A run of `in.workload` on `in.graph` recording `workload_file`: its first `count` operators
// measured at 1.25 x the graph's prediction (stored under the graph's hash). `imported`: a
// device that names no graph, as a trace import stores.
int64_t add_measured_run(ts::ResultStore& store, const ts::guitest::BertOnAscend& in,
                         const std::string& workload_file, size_t count, bool imported = false) {
  ts::RunStart start = ts::guitest::run_start(in, imported ? "A100 trace" : in.graph.name);
  ts::RunSettings settings;
  settings.workload_file = workload_file;
  start.settings_json = ts::run_settings_json(settings);
  if (imported) {
    start.collector = "import:kineto";
    start.device.kind = "imported-trace";
    start.device.arch_hash.clear();
  }
  const int64_t run = store.begin_run(start);
  for (size_t i = 0; i < std::min(count, in.workload.operators.size()); ++i) {
    ts::Measurement m = ts::guitest::predicted_measurement(store, in, in.workload.operators[i]);
    m.median_ns = m.min_ns = m.median_ns * 1.25;
    store.add_measurement(run, m);
  }
  store.finish_run(run, ts::RunStatus::complete);
  return run;
}

QString copy_into(const QString& from, const QDir& dir, const QString& name) {
  const QString to = dir.filePath(name);
  QDir().mkpath(QFileInfo(to).path());
  REQUIRE(QFile::copy(from, to));
  return to;
}

}  // namespace

TEST_CASE("the first start opens scripts/run's graph, its run's workload and its database",
          "[gui][first-start]") {
  // out/host.yaml stands for a calibrated host graph (here the A100 sample); the database holds
  // run 1 on it (6 of BERT's operators), run 2 on the Ascend graph (all 13, newer) and run 3, an
  // imported trace (newest, no stored predictions). The open graph's run is run 1.
  QTemporaryDir tmp;
  const QDir dir(tmp.path());
  const QString graph = copy_into(sample("arch/nvidia-a100.yaml"), dir, "out/host.yaml");
  // The graph names its mapping templates relative to itself (../mappings).
  for (const QString& name : QDir(sample("mappings")).entryList({"*.yaml"}, QDir::Files))
    copy_into(sample("mappings/" + name), dir, "mappings/" + name);
  const QString workload =
      copy_into(sample("workloads/bert-base.yaml"), dir, "workloads/bert-base.yaml");
  const QString db = dir.filePath("out/host-results.sqlite");
  ts::guitest::BertOnAscend on_host;
  on_host.graph = ts::load_architecture(graph.toStdString());
  const ts::guitest::BertOnAscend on_ascend;
  {
    ts::ResultStore store(db.toStdString());
    REQUIRE(add_measured_run(store, on_host, "workloads/bert-base.yaml", 6) == 1);
    add_measured_run(store, on_ascend, "workloads/elsewhere.yaml", 13);
    add_measured_run(store, on_host, "workloads/elsewhere.yaml", 13, true);
  }

  const QStringList files = ts::gui::default_inputs(dir.path());
  CHECK(files == QStringList{graph, workload, db});

  ts::gui::Workbench workbench;

  ts::gui::RunBrowser& browser = *workbench.runBrowser();
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  for (const QString& file : files) REQUIRE(workbench.openFile(file));
  workbench.waitForIdle();
  CHECK(window.errorCount() == 0);
  REQUIRE(browser.currentRun() >= 0);
  CHECK(browser.runs()[browser.currentRun()].startsWith("run 1: "));

  // The Operators page: the six measured operators have "measured" (1.25 x the prediction) and
  // "error" = 1 / 1.25 - 1 = -20.0 %; the seventh has neither.
  auto* model = workbench.whatIf()->operators();
  REQUIRE(model->rowCount() == 13);
  for (int row = 0; row < 6; ++row) {
    INFO("row " << row);
    REQUIRE(model->row(row).measured_s);
    REQUIRE(model->row(row).baseline);
    CHECK(*model->row(row).measured_s ==
          Approx(model->row(row).baseline->prediction.device_us * 1.25e-6).epsilon(1e-6));
    CHECK(model->data(model->index(row, ts::views::OperatorTableModel::kError)).toString() ==
          "-20.0 %");
  }
  CHECK_FALSE(model->row(6).measured_s);
  CHECK(browser.measurementNote().isEmpty());
  ts::guitest::save_screenshot(window, "first-start-host");
}

TEST_CASE("without scripts/run's outputs the first start falls back and explains blank columns",
          "[gui][first-start]") {
  // Only a database of another suite (ViT-B/16 on the Ascend graph) in out/: the defaults are
  // Ascend + BERT, which share no operator with it, and the window says so.
  QTemporaryDir tmp;
  const QDir dir(tmp.path());
  QDir().mkpath(dir.filePath("out"));
  const QString db = dir.filePath("out/vit.sqlite");
  ts::guitest::BertOnAscend vit;
  vit.workload = ts::load_workload(sample("workloads/vit-b16.yaml").toStdString());
  {
    ts::ResultStore store(db.toStdString());
    add_measured_run(store, vit, "samples/workloads/vit-b16.yaml", 5);
  }
  const QStringList files = ts::gui::default_inputs(dir.path());
  REQUIRE(files.size() == 3);
  CHECK(files[0].endsWith("/arch/ascend910b3.yaml"));
  CHECK(files[1].endsWith("/workloads/bert-base.yaml"));
  CHECK(files[2] == db);

  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  for (const QString& file : files) REQUIRE(workbench.openFile(file));
  workbench.waitForIdle();
  CHECK(workbench.runBrowser()->points().size() == 5);
  for (int row = 0; row < workbench.whatIf()->operators()->rowCount(); ++row)
    CHECK_FALSE(workbench.whatIf()->operators()->row(row).measured_s);
  const QString note = workbench.runBrowser()->measurementNote();
  CHECK(note.contains("None of the 5 measurements of run 1 (vit-b16)"));
  CHECK(note.contains("open workload bert-base"));
  CHECK(note.contains("samples/workloads/vit-b16.yaml"));
  // On screen: in the status bar, not only in the log.
  auto* shown = window.statusBar()->findChild<QLabel*>("measurementNote");
  REQUIRE(shown);
  CHECK(shown->text() == note);
  CHECK(shown->isVisible());

  // Opening the suite it measured fills the columns, and the note goes.
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/vit-b16.yaml")));
  workbench.waitForIdle();
  CHECK(workbench.whatIf()->operators()->row(0).measured_s);
  CHECK(workbench.runBrowser()->measurementNote().isEmpty());
  CHECK_FALSE(shown->isVisible());
}
