// A trace on tilescope-gui's command line (issue 38, must-show 7): `tilescope-gui graph.yaml
// trace.json.gz` imports the trace (no dialog: a temporary database) instead of reading it as
// YAML, so that its operators show on the Operators page (a workload of what ran, predicted on
// the graph) and the Correlation page, its kernels on the Timeline, and its analysis on the
// Trace page. The same through --screenshots: each of those pages' PNG decodes and differs from
// the picture of the same page without the trace.
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "RunBrowser.hpp"
#include "TraceAnalysisSession.hpp"
#include "TracePage.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"
#include "views/CorrelationView.hpp"
#include "views/KernelBreakdownModels.hpp"
#include "views/TimelineView.hpp"
#include "views/TraceBreakdownChart.hpp"

using ts::guitest::sample;

namespace {

const QString kBertStepGz = TILESCOPE_ROOT "/tests/fixtures/trace/kineto/bert_step.json.gz";

struct GuiRunResult {
  int code = -1;
  QString err;
};

GuiRunResult run_screenshots(const QString& dir, const QStringList& files) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert("QT_QPA_PLATFORM", "offscreen");
  p.setProcessEnvironment(env);
  p.setWorkingDirectory(TILESCOPE_ROOT);
  p.start(TILESCOPE_GUI_BINARY, QStringList{"--screenshots", dir} + files);
  REQUIRE(p.waitForFinished(300000));
  return {p.exitCode(), QString::fromLocal8Bit(p.readAllStandardError())};
}

// Pixels (on a 4-pixel grid) where two pictures of the same size differ.
int pixels_changed(const QImage& a, const QImage& b) {
  int changed = 0;
  for (int y = 0; y < a.height(); y += 4)
    for (int x = 0; x < a.width(); x += 4)
      if (a.pixel(x, y) != b.pixel(x, y)) ++changed;
  return changed;
}

// Pixels (on a 2-pixel grid) of exactly `colour`.
int pixels_of(const QImage& image, QColor colour) {
  int found = 0;
  for (int y = 0; y < image.height(); y += 2)
    for (int x = 0; x < image.width(); x += 2)
      if (image.pixelColor(x, y).rgb() == colour.rgb()) ++found;
  return found;
}

}  // namespace

TEST_CASE(
    "a trace on the command line shows on the Operators, Correlation, Timeline and Trace "
    "pages",
    "[gui][trace]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  window.openCommandLine({sample("arch/nvidia-a100.yaml"), kBertStepGz});
  window.waitForIdle();
  CHECK(window.errorCount() == 0);

  // Operators: the workload of what ran, every row predicted on the A100 graph.
  const auto* rows = workbench.whatIf()->operators();
  REQUIRE(workbench.whatIf()->workload());
  CHECK(rows->rowCount() > 0);
  CHECK(workbench.whatIf()->architecturePath().endsWith("nvidia-a100.yaml"));
  // Correlation: the trace's run, from the temporary database, its points predicted.
  CHECK(workbench.runBrowser()->resultsPath().endsWith("bert_step.sqlite"));
  REQUIRE_FALSE(workbench.runBrowser()->points().empty());
  CHECK(window.correlationView()->contents().count == workbench.runBrowser()->points().size());
  // Timeline: the fixture's 18 kernels measured, and predicted beside them.
  CHECK(window.timelineView()->summaryText().contains("18 kernels on 1 streams"));
  // Trace: its one rank analysed.
  REQUIRE(workbench.traceAnalysis()->ranks().size() == 1);
  CHECK(workbench.traceAnalysis()->ranks().front().kernels.kernels.size() > 0);
  CHECK(window.tracePage()->kernelModel()->rowCount() > 0);
}

TEST_CASE("tilescope-gui --screenshots graph.yaml trace.json.gz draws the trace on its pages",
          "[gui][trace][screenshots][slow]") {
  QTemporaryDir dir;
  const GuiRunResult empty =
      run_screenshots(dir.filePath("empty"), {sample("arch/nvidia-a100.yaml")});
  REQUIRE(empty.code == 0);
  const GuiRunResult traced =
      run_screenshots(dir.filePath("traced"), {sample("arch/nvidia-a100.yaml"), kBertStepGz});
  INFO(traced.err.toStdString());
  REQUIRE(traced.code == 0);
  CHECK_FALSE(traced.err.contains("error"));
  for (const QString page : {"operators", "correlation", "timeline", "trace"}) {
    INFO(page.toStdString());
    const QImage with(dir.filePath("traced/gui-" + page + ".png"));
    const QImage without(dir.filePath("empty/gui-" + page + ".png"));
    REQUIRE_FALSE(with.isNull());
    REQUIRE_FALSE(without.isNull());
    CHECK(with.size() == without.size());
    CHECK(with != without);  // not the empty state
    // Not a line of text changed: a good part of the page (a table, a plot) is drawn anew.
    const int grid = (with.width() / 4) * (with.height() / 4);
    CHECK(pixels_changed(with, without) > grid / 20);
    if (page == "trace") {
      // The stacked bar in the breakdown's colours, which the empty state does not have.
      CHECK(pixels_of(with, ts::views::trace_time_part_colour(ts::views::TraceTimePart::compute)) >
            500);
      CHECK(pixels_of(without,
                      ts::views::trace_time_part_colour(ts::views::TraceTimePart::compute)) == 0);
    }
  }
}
