// The timeline as it zooms (issue 22): link tracks with no transfer a pixel wide fold into one
// row, and come back when zoomed in; "zoom to micro-batch" frames one micro-batch's forward and
// backward on one stage, with labels in the bars wide enough; the kinds of work have colours
// apart (forward and transfer no longer two blues). On the GPT-3 175B iteration on Selene that
// scripts/screenshots shows, simulated here as `tilescope simulate` would.
#include <QCheckBox>
#include <QTabWidget>
#include <cmath>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "Workbench.hpp"
#include "training/Cluster.hpp"
#include "training/ParallelStrategy.hpp"
#include "training/SimulationJson.hpp"
#include "training/SimulationTimeline.hpp"
#include "training/TrainingSimulation.hpp"
#include "training/TransformerModel.hpp"
#include "views/MicroBatchRange.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TimelinePlot.hpp"
#include "views/TimelineRows.hpp"
#include "views/TimelineView.hpp"

using ts::views::TimelineRow;

namespace {

ts::SimulationTimeline gpt3_on_selene() {
  const std::string dist = TILESCOPE_ROOT "/samples/dist/";
  const auto model = ts::load_transformer_model(dist + "models/gpt3-175b.yaml");
  const auto strategy = ts::load_parallel_strategy(dist + "strategies/gpt3-175b-full.yaml");
  const auto cluster = ts::load_cluster(dist + "clusters/selene.yaml");
  const ts::TrainingSimulation r = ts::simulate_training(model, strategy, cluster);
  const std::string trace = ts::simulation_trace_json(r, strategy.pp.value);
  return ts::parse_simulation_timeline(ts::simulation_file_json(model, strategy, cluster, r, trace),
                                       "gpt3-175b-selene.json");
}

// The widest part of a track's spans inside [from, to], in pixels: what a person can see of it.
double widest_pixels(const ts::TimelineTrack& track, double from, double to, double px_per_s) {
  double widest = 0;
  for (const auto& s : track.spans)
    widest = std::max(
        widest, (std::min(s.start_s + s.duration_s, to) - std::max(s.start_s, from)) * px_per_s);
  return widest;
}

int bars(const QCustomPlot& plot) {
  int n = 0;
  for (int i = 0; i < plot.itemCount(); ++i)
    if (qobject_cast<QCPItemRect*>(plot.item(i)) && plot.item(i)->objectName().isEmpty()) ++n;
  return n;
}

int labels(const QCustomPlot& plot) {
  int n = 0;
  for (int i = 0; i < plot.itemCount(); ++i)
    if (plot.item(i)->objectName() == "span label") ++n;
  return n;
}

}  // namespace

TEST_CASE("link tracks with nothing a pixel wide fold into one row", "[gui][timeline]") {
  ts::SimulationTimeline t;
  t.tracks.push_back({"stage 0 compute", {{"F mb0 c0 s0", 0.0, 0.4}, {"B mb0 c0 s0", 0.4, 0.6}}});
  // Two transfers of 0.5 ms: at 1000 px for the second, half a pixel each.
  t.tracks.push_back({"link from stage 0 (activations)", {{"send act mb0 vs0", 0.4, 0.0005}}});
  t.tracks.push_back({"link from stage 1 (gradients)", {{"send grad mb0 vs1", 0.7, 0.0005}}});
  t.tracks.push_back({"stage 1 compute", {{"F mb0 c0 s1", 0.4005, 0.4}}});
  const auto whole = ts::views::timeline_rows(t, 0, 1, 1000, false);
  // The compute rows in order, the two links as one folded row where the first was.
  REQUIRE(whole.size() == 3);
  CHECK(whole[0].track == 0);
  CHECK(whole[1].track == -1);
  CHECK(whole[1].folded == 2);
  CHECK(whole[2].track == 3);
  // Zoomed on [0.39, 0.41] over 1000 px (50000 px/s) the first transfer is 25 px wide: its row
  // is back; the second lies outside the range and stays folded.
  const auto zoomed = ts::views::timeline_rows(t, 0.39, 0.41, 50000, false);
  REQUIRE(zoomed.size() == 4);
  CHECK(zoomed[1].track == 1);
  CHECK(zoomed[2].track == -1);
  CHECK(zoomed[2].folded == 1);
  // Asked to, every link keeps its row.
  CHECK(ts::views::timeline_rows(t, 0, 1, 1000, true).size() == 4);
  // The folded row is half as high: 2 tracks + half a row = 2.5 rows, row 0's centre at 2.0.
  CHECK(ts::views::rows_height(whole) == 2.5);
  CHECK(ts::views::row_centre(whole, 0) == 2.0);
  CHECK(ts::views::row_at(whole, 1.1) == 1);
  CHECK(ts::views::row_at(whole, 0.3) == 2);
}

TEST_CASE("a micro-batch's range spans its spans on the stage's tracks", "[gui][timeline]") {
  ts::SimulationTimeline t;
  // Interleaved: micro-batch 1's chunks 0 and 1 forward, then their backwards; mb10 must not
  // count as mb1, nor stage 1's spans as stage 0's.
  t.tracks.push_back({"stage 0 compute",
                      {{"F mb1 c0 s0", 0.10, 0.05},
                       {"F mb10 c0 s0", 0.20, 0.05},
                       {"F mb1 c1 s0", 0.30, 0.05},
                       {"B mb1 c1 s0", 0.60, 0.10},
                       {"B mb1 c0 s0", 0.90, 0.10}}});
  t.tracks.push_back({"stage 0 tensor-parallel collectives",
                      {{"tensor-parallel all-reduce F layer 0 mb1", 0.12, 0.01}}});
  t.tracks.push_back({"stage 1 compute", {{"F mb1 c0 s1", 0.05, 2.0}}});
  t.tracks.push_back({"link from stage 0 (activations)", {{"send act mb1 vs0", 0.0, 3.0}}});
  CHECK(ts::views::span_micro_batch("F mb10 c0 s0") == 10);
  CHECK(ts::views::span_micro_batch("optimizer step s0") == -1);
  CHECK(ts::views::track_stage("stage 12 compute") == 12);
  CHECK(ts::views::track_stage("link from stage 0 (activations)") == -1);
  CHECK(ts::views::stage_count(t) == 2);
  CHECK(ts::views::micro_batch_count(t) == 11);
  // From F mb1 c0's start (0.10) to B mb1 c0's end (0.90 + 0.10).
  const auto range = ts::views::micro_batch_range(t, 0, 1);
  REQUIRE(range);
  CHECK(range->from_s == 0.10);
  CHECK(range->to_s == Approx(1.0));
  CHECK_FALSE(ts::views::micro_batch_range(t, 0, 7));
}

TEST_CASE("the kinds of work have colours apart", "[gui][timeline]") {
  using ts::views::timeline_category_colour;
  const QStringList kinds = {"forward",    "backward",          "recompute",
                             "collective", "pipeline transfer", "optimizer"};
  for (int a = 0; a < kinds.size(); ++a)
    for (int b = a + 1; b < kinds.size(); ++b) {
      INFO(kinds[a].toStdString() << " against " << kinds[b].toStdString());
      const QColor x = timeline_category_colour(kinds[a].toStdString());
      const QColor y = timeline_category_colour(kinds[b].toStdString());
      // Okabe-Ito's closest pairs, which it keeps apart for every common colour-vision
      // deficiency: orange (230,159,0) and vermillion (213,94,0), 67 apart; blue (0,114,178)
      // and bluish green (0,158,115), 77. Two shades of one hue would be nearer (issue 22's
      // blues, (0,114,178) and (86,180,233), are 113 apart but both read "blue": see the hues).
      CHECK(std::hypot(x.red() - y.red(), x.green() - y.green(), x.blue() - y.blue()) > 60);
    }
  // Forward and transfer are not two blues: their hues are a third of the circle apart or more.
  const int forward = timeline_category_colour("forward").hslHue();
  const int transfer = timeline_category_colour("pipeline transfer").hslHue();
  const int apart = std::abs(forward - transfer);
  CHECK(std::min(apart, 360 - apart) >= 120);
}

TEST_CASE("GPT-3 175B on Selene: no empty link rows at full scale, zoom to a micro-batch",
          "[gui][timeline][slow]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  ts::views::TimelineView* view = window.timelineView();
  window.pages()->setCurrentWidget(view);
  QApplication::processEvents();
  view->setTimeline(gpt3_on_selene());
  QApplication::processEvents();
  view->relayout();
  const ts::SimulationTimeline& t = view->timeline();
  QCustomPlot& plot = *view->plot();

  // 8 stages, each a compute, a collectives, an optimizer and a host (CPU) track and two links
  // (activations, gradients): 48 tracks with spans, 16 of them links.
  REQUIRE(t.tracks.size() == 48);
  int links = 0;
  for (const auto& track : t.tracks) links += ts::is_link_track(track.name);
  REQUIRE(links == 16);

  // At the iteration's scale (18.4 s over about 1200 px, 15 ms a pixel) the longest transfer
  // (0.29 ms) is a fiftieth of a pixel: every link folds; the other 32 tracks keep their rows.
  const QCPRange range = plot.xAxis->range();
  const double px_per_s = plot.axisRect()->width() / range.size();
  int drawn = 0, folded = 0;
  for (const TimelineRow& row : view->rows()) {
    if (row.track < 0) {
      folded += row.folded;
      continue;
    }
    ++drawn;
    const ts::TimelineTrack& track = t.tracks[static_cast<size_t>(row.track)];
    INFO(track.name);
    CHECK_FALSE(ts::is_link_track(track.name));
    CHECK(widest_pixels(track, range.lower, range.upper, px_per_s) > 0);
  }
  CHECK(drawn == 32);
  CHECK(folded == 16);
  // And none of the folded links had a transfer a pixel wide to show.
  for (const auto& track : t.tracks)
    if (ts::is_link_track(track.name))
      CHECK(widest_pixels(track, range.lower, range.upper, px_per_s) < 1.0);
  CHECK(view->rows().size() == 33);
  size_t spans_drawn = 0;
  for (const TimelineRow& row : view->rows())
    if (row.track >= 0) spans_drawn += t.tracks[static_cast<size_t>(row.track)].spans.size();
  CHECK(bars(plot) == static_cast<int>(spans_drawn));
  ts::guitest::save_screenshot(window, "gui-timeline-gpt3");

  // Micro-batch 0 on stage 0, from the trace: "F mb0 c0 s0" starts at 0 and the last of its
  // backwards, "B mb0 c0 s0", ends at 2.580 + 0.065 = 2.645 s (its steps carry Megatron's batch,
  // loss and exchange work since issue 42; the A100 graph's HBM streams at 1.734 TB/s).
  double from = 1e9, to = 0;
  for (const auto& track : t.tracks)
    if (track.name.rfind("stage 0 ", 0) == 0)
      for (const auto& s : track.spans)
        if ((s.label + " ").find(" mb0 ") != std::string::npos) {
          from = std::min(from, s.start_s);
          to = std::max(to, s.start_s + s.duration_s);
        }
  CHECK(from == 0.0);
  CHECK(to == Approx(2.645).epsilon(0.01));
  REQUIRE(view->zoomToMicroBatch(0, 0));
  QApplication::processEvents();
  CHECK(plot.xAxis->range().lower == from);
  CHECK(plot.xAxis->range().upper == to);
  // The backwards (65 ms, some 30 px here) carry labels, each inside its bar.
  CHECK(labels(plot) > 0);
  ts::guitest::save_screenshot(window, "gui-timeline-micro-batch");

  // Zoomed onto a transfer (send act mb0 vs0, 0.29 ms at 25.1 ms), its link's row comes back.
  plot.xAxis->setRange(0.0240, 0.0255);
  view->relayout();
  bool link_row = false;
  for (const TimelineRow& row : view->rows())
    link_row |= row.track >= 0 &&
                t.tracks[static_cast<size_t>(row.track)].name == "link from stage 0 (activations)";
  CHECK(link_row);
  // "Whole iteration" folds them again; "show every link track" unfolds all 48.
  view->showWholeIteration();
  CHECK(view->rows().size() == 33);
  view->unfoldLinksToggle()->setChecked(true);
  CHECK(view->rows().size() == 48);
}
