// The timeline page: a `tilescope simulate --out` file (tests/gui/fixtures, written by the
// simulator for gpt-22b on Selene) opens into the Gantt chart and the summary; a truncated file
// is an error with its line, not a crash.
#include <QTabWidget>
#include <QTemporaryDir>
#include <fstream>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "Workbench.hpp"
#include "common/InputError.hpp"
#include "training/Cluster.hpp"
#include "training/SimulationJson.hpp"
#include "training/SimulationTimeline.hpp"
#include "training/TrainingSimulation.hpp"
#include "training/TransformerModel.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TimelinePlot.hpp"
#include "views/TimelineView.hpp"

namespace {
const std::string kFixtures = TILESCOPE_ROOT "/tests/gui/fixtures/";
}

TEST_CASE("a simulation file reads into tracks and a summary", "[gui][timeline]") {
  const auto t = ts::load_simulation_timeline(kFixtures + "gpt-22b-selene.sim.json");
  CHECK(t.title == "gpt-22b with gpt-22b-full on selene (8 GPUs)");
  CHECK(t.iteration_s == Approx(1.1988879308607547));
  REQUIRE(t.tracks.size() == 1);
  CHECK(t.tracks[0].name == "stage 0 compute");
  REQUIRE(t.tracks[0].spans.size() == 2);
  CHECK(t.tracks[0].spans[0].label == "F mb0 c0 s0");
  CHECK(t.tracks[0].spans[1].start_s == Approx(0.30616167925525556));
  CHECK(ts::span_category(t.tracks[0].spans[1], t.tracks[0].name) == "backward");
  CHECK(t.breakdown.size() == 5);
  CHECK(t.end_s() == Approx(t.iteration_s - 0.049865490432).epsilon(1e-6));
}

TEST_CASE("a truncated simulation file is an error with its line", "[gui][timeline]") {
  try {
    ts::load_simulation_timeline(kFixtures + "truncated.sim.json");
    FAIL("no error");
  } catch (const ts::InputError& e) {
    CHECK(e.where().file == kFixtures + "truncated.sim.json");
    CHECK(e.where().line == 1);
    CHECK_THAT(e.message(), Catch::Contains("not JSON"));
  }
}

TEST_CASE("the timeline page shows an opened simulation", "[gui][timeline]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  CHECK(window.timelineView()->summaryText().contains("No simulation open"));
  REQUIRE(workbench.openFile(QString::fromStdString(kFixtures + "gpt-22b-selene.sim.json")));
  ts::views::TimelineView* view = window.timelineView();
  CHECK(view->timeline().tracks.size() == 1);
  CHECK(view->summaryText().contains("iteration 1.199 s"));
  // One bar per task (the other items are the labels of the bars wide enough for them).
  int bars = 0;
  for (int i = 0; i < view->plot()->itemCount(); ++i)
    bars += qobject_cast<QCPItemRect*>(view->plot()->item(i)) != nullptr;
  CHECK(bars == 2);
  window.pages()->setCurrentWidget(view);
  QApplication::processEvents();
  ts::guitest::save_screenshot(window, "gui-timeline");
  CHECK_FALSE(workbench.openFile(QString::fromStdString(kFixtures + "truncated.sim.json")));
  CHECK(window.errorCount() == 1);
  CHECK(view->timeline().tracks.size() == 1);  // the open one stays
}

TEST_CASE("memory over time draws under the Gantt chart and follows its zoom", "[gui][timeline]") {
  ts::SimulationTimeline t;
  t.title = "two stages";
  t.tracks.push_back({"stage 0 compute", {{"F mb0 c0 s0", 0.0, 0.5}, {"B mb0 c0 s0", 0.5, 1.0}}});
  // Stage 0 holds 40 GiB, 52 during its forward's activations; stage 1 peaks at 61.5.
  t.counters.push_back({"memory stage 0", "GiB", {{0.0, 40.0}, {0.5, 52.0}, {1.5, 40.0}}});
  t.counters.push_back({"memory stage 1", "GiB", {{0.0, 40.0}, {0.7, 61.5}, {1.2, 40.0}}});
  QCustomPlot plot;
  plot.resize(900, 600);
  ts::views::fill_timeline_plot(plot, t, plot.palette());
  REQUIRE(plot.axisRectCount() == 2);
  QCPAxisRect* strip = plot.axisRect(1);
  CHECK(strip->axis(QCPAxis::atLeft)->label() == "memory (GiB)");
  // One step line per stage, holding the samples as given; the axis shows the highest one.
  REQUIRE(plot.graphCount() >= 2);
  int lines = 0;
  double highest = 0;
  for (int i = 0; i < plot.graphCount(); ++i) {
    QCPGraph* g = plot.graph(i);
    if (g->keyAxis() != strip->axis(QCPAxis::atBottom)) continue;
    ++lines;
    CHECK(g->lineStyle() == QCPGraph::lsStepLeft);
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
      highest = std::max(highest, it->value);
  }
  CHECK(lines == 2);
  CHECK(highest == 61.5);
  CHECK(strip->axis(QCPAxis::atLeft)->range().upper > 61.5);
  // Zooming the chart's time axis moves the strip's with it.
  plot.xAxis->setRange(0.25, 0.75);
  CHECK(strip->axis(QCPAxis::atBottom)->range().lower == 0.25);
  CHECK(strip->axis(QCPAxis::atBottom)->range().upper == 0.75);
  // A timeline without counters (a bare trace) goes back to one rect, nothing left over.
  t.counters.clear();
  ts::views::fill_timeline_plot(plot, t, plot.palette());
  CHECK(plot.axisRectCount() == 1);
  for (int i = 0; i < plot.graphCount(); ++i) CHECK(plot.graph(i)->keyAxis() == plot.xAxis);
  // And a second fill with counters again gives one strip, not two.
  t.counters.push_back({"memory stage 0", "GiB", {{0.0, 40.0}}});
  ts::views::fill_timeline_plot(plot, t, plot.palette());
  ts::views::fill_timeline_plot(plot, t, plot.palette());
  CHECK(plot.axisRectCount() == 2);
}

TEST_CASE("a small run's host track: the CPU's issuing per stage, drawn in its colour",
          "[gui][timeline][host]") {
  // GPT 0.355B with tp 8 on one DGX A100 (samples/dist; docs/dist.md "What sets the pace of a
  // small run"), simulated and written as `simulate --out` writes it, opened in the GUI.
  const std::string dist = TILESCOPE_ROOT "/samples/dist/";
  const ts::TransformerModel m = ts::load_transformer_model(dist + "models/gpt-355m.yaml");
  const ts::ParallelStrategy s = ts::load_parallel_strategy(dist + "strategies/gpt-355m-tp8.yaml");
  const ts::Cluster c = ts::load_cluster(dist + "clusters/dgx-a100.yaml");
  const ts::TrainingSimulation r = ts::simulate_training(m, s, c);
  const QTemporaryDir dir;
  const std::string path = dir.path().toStdString() + "/small.sim.json";
  {
    std::ofstream out(path);
    out << ts::simulation_file_json(m, s, c, r, ts::simulation_trace_json(r, s.pp.value));
  }
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  REQUIRE(workbench.openFile(QString::fromStdString(path)));
  const ts::SimulationTimeline& t = window.timelineView()->timeline();
  const ts::TimelineTrack* host = nullptr;
  for (const ts::TimelineTrack& track : t.tracks)
    if (track.name == "stage 0 host (CPU)") host = &track;
  REQUIRE(host != nullptr);
  // 16 forwards and 16 backwards issued, then the optimizer step's.
  REQUIRE(host->spans.size() == 33);
  for (const ts::TimelineSpan& span : host->spans)
    CHECK(ts::span_category(span, host->name) == "host");
  CHECK(ts::views::timeline_category_colour("host") !=
        ts::views::timeline_category_colour("other"));
  // The breakdown names the GPU's wait for its host, and it is not nothing here.
  double idle = 0;
  for (const auto& [what, seconds] : t.breakdown)
    if (what == "host-bound idle") idle = seconds;
  CHECK(idle > 0.05 * t.iteration_s);
}
