// The Sweep page: a sweep store made here through core (the points `tilescope sweep` computes:
// ArchitectureSweep over local threads, stored point by point), opened as a user opens it
// (Workbench::openFile, what File > Open and the command line call). What the page draws must be
// core's digest of the store (digest_sweep, rank_sensitivities), read back independently here;
// a store without sweeps says how to make one; a 1,000-point store is read off the GUI thread.
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QTemporaryDir>
#include <cmath>
#include <set>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "SweepPage.hpp"
#include "TableExport.hpp"
#include "Workbench.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "measure/ResultStore.hpp"
#include "sweep/ArchitectureSweep.hpp"
#include "sweep/SweepCost.hpp"
#include "sweep/SweepDigest.hpp"
#include "sweep/SweepThreads.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/SweepPointTableModel.hpp"
#include "workload/WorkloadLoader.hpp"

using ts::guitest::sample;

namespace {

// A skinny GEMM that streams its 32 MiB of weights from HBM (its time moves with the HBM
// bandwidth, not with L1) and a square one that is compute-bound (its time moves with L1, which
// sets its tiles, not with the bandwidth): the operators' sensitivities differ from the total's.
constexpr const char* kWorkload = R"(version: 1
kind: workload
name: two-gemms
dtype: fp16
operators:
  - {name: skinny, type: gemm, M: 16, N: 4096, K: 4096}
  - {name: square, type: gemm, M: 2048, N: 2048, K: 1024}
)";

// A 3 x 2 cross product on the Ascend graph, every point predicted with the mapper as `tilescope
// sweep --budget 200` does, stored one point at a time. An L1 of 256 B holds no tile at all (the
// cube's smallest block of A is 16 x 16 fp16, 512 B): those two points have no valid mapping (an
// infinite time).
void make_sweep_store(const QString& db) {
  const ts::ArchitectureGraph graph =
      ts::load_architecture(sample("arch/ascend910b3.yaml").toStdString());
  const ts::Workload workload = ts::parse_workload(kWorkload, "two-gemms.yaml");
  std::vector<ts::SweepAxis> axes{
      ts::parse_sweep_axis("node:L1.capacity=256B,64KiB,512KiB", graph),
      ts::parse_sweep_axis("edge:HBM->L2.bandwidth=0.8TB/s,3.2TB/s", graph)};
  const std::vector<ts::SweepValues> points = ts::sweep_points(axes, ts::SweepSampling{});
  ts::MapperOptions mapper;
  mapper.budget = 200;
  mapper.parallel = false;
  const ts::ArchitectureSweep sweep(graph, workload, axes, points, mapper);
  std::vector<size_t> all(sweep.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  ts::ResultStore store(db.toStdString());
  REQUIRE(ts::evaluate_sweep_points(sweep, all, 2, nullptr, [&](const ts::SweepPointRecord& p) {
            store.add_sweep_point(p);
          }) == 6);
}

struct SweepWindow {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  ts::gui::SweepPage* page = window.sweepPage();

  SweepWindow() {
    window.resize(1400, 860);
    window.show();
    window.pages()->setCurrentWidget(page);
  }
  void open(const QString& path) {
    REQUIRE(workbench.openFile(path));
    workbench.waitForIdle();
    page->waitForIdle();
  }
};

std::vector<double> bar_values(const ts::views::SweepSensitivityContents& c) {
  std::vector<double> out;
  for (auto it = c.bars->data()->constBegin(); it != c.bars->data()->constEnd(); ++it)
    out.push_back(it->value);
  return out;
}

// The bars a subject must get: its known elasticities in rank_sensitivities' order.
void check_bars(const ts::views::SweepSensitivityContents& shown, const ts::SweepDigest& d,
                size_t subject) {
  std::vector<std::string> order;
  std::vector<double> values;
  for (const ts::RankedSensitivity& r : ts::rank_sensitivities(d.paths, d.sensitivities[subject]))
    if (r.elasticity) {
      order.push_back(r.path);
      values.push_back(*r.elasticity);
    }
  CHECK(shown.order == order);
  const std::vector<double> bars = bar_values(shown);
  REQUIRE(bars.size() == values.size());
  for (size_t i = 0; i < bars.size(); ++i) CHECK(bars[i] == Approx(values[i]));
}

}  // namespace

TEST_CASE("the Sweep page draws the open store's sweep as core digests it", "[gui][sweep]") {
  QTemporaryDir dir;
  const QString db = dir.filePath("sweep.sqlite");
  make_sweep_store(db);
  // What the page must show, read back from the file here: core's digest of its one sweep.
  const ts::ResultStore store(db.toStdString(), ts::ResultStore::Mode::read_only);
  const auto keys = store.sweeps();
  REQUIRE(keys.size() == 1);
  const std::vector<ts::SweepPointRecord> stored =
      store.sweep_points(keys[0].first, keys[0].second);
  REQUIRE(stored.size() == 6);
  const ts::SweepDigest expected = ts::digest_sweep(stored);
  size_t valid = 0;
  for (const ts::SweepPointRecord& p : stored) valid += std::isfinite(p.total_s) && p.total_s > 0;
  REQUIRE(expected.paths == std::vector<std::string>{"edge:HBM->L2.bandwidth", "node:L1.capacity"});
  REQUIRE(expected.sensitivities.size() == 3);  // total, skinny, square
  REQUIRE(valid == 4);                          // the two 256 B points have no time

  SweepWindow w;
  CHECK(w.page->emptyState()->isVisibleTo(w.page));  // nothing open yet
  w.open(db);
  ts::guitest::save_screenshot(w.window, "gui-sweep");

  // The page lists the sweep (one: no choice to make) and shows it instead of the message.
  REQUIRE(w.page->sweeps().size() == 1);
  CHECK(w.page->sweepChoice()->count() == 1);
  CHECK_FALSE(w.page->sweepChoice()->isVisibleTo(w.page));
  CHECK_FALSE(w.page->emptyState()->isVisibleTo(w.page));
  CHECK(w.page->summary()->text().contains("architecture sweep: 6 points, 2 operators"));
  CHECK(w.page->summary()->text().contains("node:L1.capacity"));
  CHECK(w.page->summary()->text().contains("2 without a valid mapping"));
  // The Ascend graph gives no energy or area: no such figures.
  CHECK_FALSE(w.page->energyParetoPlot()->isVisibleTo(w.page));
  CHECK_FALSE(w.page->areaParetoPlot()->isVisibleTo(w.page));

  // Pareto: a point per valid point of the store; the front is digest_sweep's, point by point
  // (cost in MiB: bytes / 1048576; time in us).
  const ts::views::SweepParetoContents& pareto = w.page->paretoContents();
  REQUIRE(pareto.points);
  CHECK(pareto.points->data()->size() == static_cast<int>(valid));
  CHECK(pareto.left_out == stored.size() - valid);
  REQUIRE(pareto.front->data()->size() == static_cast<int>(expected.front.size()));
  for (size_t i = 0; i < expected.front.size(); ++i) {
    const auto point = pareto.front->data()->at(static_cast<int>(i));
    CHECK(point->key == Approx(expected.front[i].cost / 1048576.0));
    CHECK(point->value == Approx(expected.front[i].total_s * 1e6));
  }

  // Sensitivity of the total: rank_sensitivities' order and values.
  REQUIRE(w.page->subjectChoice()->count() == 3);
  CHECK(w.page->subjectChoice()->itemText(0) == "suite total");
  CHECK(w.page->subjectChoice()->itemText(1) == "skinny");
  check_bars(w.page->sensitivityContents(), expected, 0);
  const std::vector<double> total_bars = bar_values(w.page->sensitivityContents());
  REQUIRE_FALSE(total_bars.empty());

  // Another subject: the skinny GEMM's bars, which are not the total's (see kWorkload).
  w.page->subjectChoice()->setCurrentIndex(1);
  check_bars(w.page->sensitivityContents(), expected, 1);
  CHECK(bar_values(w.page->sensitivityContents()) != total_bars);
  CHECK(w.page->sensitivityPlot()->plottableCount() == 1);  // the total's bars are gone

  // The table: a row per stored point, "yes" on exactly the front's points, and it exports.
  const ts::views::SweepPointTableModel* model = w.page->model();
  REQUIRE(model->rowCount() == 6);
  std::set<std::string> front;
  for (const ts::SweepPointRecord& p : expected.front) front.insert(p.parameters_json);
  int yes = 0;
  for (int r = 0; r < model->rowCount(); ++r) {
    const bool on = model->data(model->index(r, model->frontColumn())).toString() == "yes";
    CHECK(on == (front.count(model->sweep().points[static_cast<size_t>(r)].parameters_json) > 0));
    yes += on;
    // A point without a time says which operator has no valid mapping.
    const bool timed = std::isfinite(model->sweep().points[static_cast<size_t>(r)].total_s);
    CHECK(model->data(model->index(r, model->noteColumn())).toString().isEmpty() == timed);
  }
  CHECK(yes == static_cast<int>(expected.front.size()));
  // 256 B, 64 KiB and 512 KiB each appear in two rows, written in the parameter's unit.
  const QString csv = ts::gui::table_csv(*w.page->table()->model());
  CHECK(csv.startsWith("edge:HBM->L2.bandwidth,node:L1.capacity,suite time (us),memory (MiB)"));
  CHECK(csv.count("512 KiB") == 2);

  // The graph gives no energy: the memory bytes are the cost, and the summary says why.
  CHECK(w.page->summary()->text().contains("Pareto cost: memory bytes"));
  REQUIRE(w.page->costChoice()->count() >= 3);  // memory bytes, then each parameter
  CHECK(w.page->costChoice()->itemText(0) == "memory bytes");
  // A parameter as the cost: the figure's x axis is the L1 capacity (KiB), the front the points
  // no other beats in time and L1.
  const int l1 = w.page->costChoice()->findText("node:L1.capacity");
  REQUIRE(l1 > 0);
  w.page->costChoice()->setCurrentIndex(l1);
  const std::vector<ts::SweepPointRecord> l1_front =
      ts::pareto_front(stored, ts::SweepCost{ts::SweepFigure::parameter, "node:L1.capacity"});
  REQUIRE(w.page->paretoContents().front->data()->size() == static_cast<int>(l1_front.size()));
  CHECK(
      w.page->paretoContents().front->data()->at(0)->key ==
      Approx(*ts::sweep_cost_value(l1_front[0], {ts::SweepFigure::parameter, "node:L1.capacity"}) /
             1024));
  w.page->costChoice()->setCurrentIndex(0);

  // The window's graph is the sweep's base graph once the Ascend graph is open: the page names
  // HBM's port, which caps the edge's 3.2 TB/s at 1.6 TB/s (sweep_axis_caps), as `sweep` warns.
  w.open(sample("arch/ascend910b3.yaml"));
  REQUIRE(w.page->sweeps().size() == 1);
  REQUIRE(w.page->sweeps()[0].caps.has_value());
  REQUIRE(w.page->sweeps()[0].caps->size() == 1);
  CHECK(w.page->warnings()->isVisibleTo(w.page));
  CHECK(w.page->warnings()->text().contains(
      "edge:HBM->L2.bandwidth: values above 1.6 TB/s are capped by node HBM's port "
      "(node:HBM.bandwidth = 1.6 TB/s); 3.2 TB/s gives what 1.6 TB/s does"));
  // Another graph is not the sweep's: no caps claimed.
  w.open(sample("arch/nvidia-h200.yaml"));
  REQUIRE(w.page->sweeps().size() == 1);
  CHECK_FALSE(w.page->sweeps()[0].caps.has_value());
  CHECK_FALSE(w.page->warnings()->text().contains("capped"));
}

TEST_CASE("the Sweep page draws the energy and area fronts where the graph gives the figures",
          "[gui][sweep][energy]") {
  // The Timeloop/Accelergy Eyeriss-like graph gives energy and area for every node: a small int8
  // GEMM over two global-buffer capacities and one and two global buffers (an instance count
  // moves the area; a capacity does not).
  QTemporaryDir dir;
  const QString db = dir.filePath("energy.sqlite");
  {
    const ts::ArchitectureGraph graph =
        ts::load_architecture(sample("arch/timeloop-eyeriss_like.yaml").toStdString());
    const ts::Workload workload = ts::parse_workload(R"(version: 1
kind: workload
name: small
dtype: int8
operators:
  - {name: g, type: gemm, M: 64, N: 64, K: 64}
)",
                                                     "small.yaml");
    std::vector<ts::SweepAxis> axes{
        ts::parse_sweep_axis("node:shared_glb.capacity=8KiB,64KiB", graph),
        ts::parse_sweep_axis("node:shared_glb.instances=1,2", graph)};
    ts::MapperOptions mapper;
    mapper.budget = 64;
    mapper.parallel = false;
    const ts::ArchitectureSweep sweep(graph, workload, axes,
                                      ts::sweep_points(axes, ts::SweepSampling{}), mapper);
    std::vector<size_t> all(sweep.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    ts::ResultStore store(db.toStdString());
    REQUIRE(ts::evaluate_sweep_points(sweep, all, 2, nullptr, [&](const ts::SweepPointRecord& p) {
              store.add_sweep_point(p);
            }) == 4);
  }
  const ts::ResultStore store(db.toStdString(), ts::ResultStore::Mode::read_only);
  const auto keys = store.sweeps();
  REQUIRE(keys.size() == 1);
  const ts::SweepDigest expected =
      ts::digest_sweep(store.sweep_points(keys[0].first, keys[0].second));
  REQUIRE(expected.energy_known);
  REQUIRE(expected.area_known);

  SweepWindow w;
  w.open(db);
  ts::guitest::save_screenshot(w.window, "gui-sweep-energy");
  // Energy known at every point: it is the Pareto cost, in the first figure; the area beside it.
  CHECK(expected.cost == ts::SweepCost{ts::SweepFigure::energy, {}});
  CHECK(w.page->costChoice()->itemText(0) == "suite energy");
  CHECK(w.page->summary()->text().contains("Pareto cost: suite energy, known at every point"));
  CHECK_FALSE(w.page->energyParetoPlot()->isVisibleTo(w.page));
  REQUIRE(w.page->areaParetoPlot()->isVisibleTo(w.page));
  // Room to be seen, not only shown (a splitter gives a row shown late none of its own).
  CHECK(w.page->areaParetoPlot()->height() >= 100);
  CHECK(w.page->areaParetoPlot()->width() >= 200);
  CHECK(w.page->summary()->text().contains("on the energy front"));
  // Energy in uJ and area in mm^2 against time in us, the fronts digest_sweep's point by point.
  const auto check_front = [](const ts::views::SweepParetoContents& shown,
                              const std::vector<ts::SweepPointRecord>& front, bool energy) {
    REQUIRE(shown.front);
    CHECK(shown.points->data()->size() == 4);
    REQUIRE(shown.front->data()->size() == static_cast<int>(front.size()));
    for (size_t i = 0; i < front.size(); ++i) {
      const auto point = shown.front->data()->at(static_cast<int>(i));
      CHECK(point->key == Approx((energy ? *front[i].energy_j : *front[i].area_m2) * 1e6));
      CHECK(point->value == Approx(front[i].total_s * 1e6));
    }
  };
  check_front(w.page->paretoContents(), expected.energy_front, true);
  check_front(w.page->areaParetoContents(), expected.area_front, false);
  // The memory bytes chosen as the cost: the energy gets its own figure again.
  w.page->costChoice()->setCurrentIndex(w.page->costChoice()->findText("memory bytes"));
  REQUIRE(w.page->energyParetoPlot()->isVisibleTo(w.page));
  CHECK(w.page->energyParetoPlot()->height() >= 100);
  check_front(w.page->energyParetoContents(), expected.energy_front, true);
  REQUIRE(w.page->paretoContents().front->data()->size() ==
          static_cast<int>(expected.front.size()));
}

TEST_CASE("the Sweep page says how to make a sweep when the store holds none", "[gui][sweep]") {
  QTemporaryDir dir;
  const QString db = dir.filePath("no-sweep.sqlite");
  { ts::ResultStore store(db.toStdString()); }  // a results store, schema and all, no points
  SweepWindow w;
  w.open(db);
  CHECK(w.page->sweeps().empty());
  CHECK(w.page->emptyState()->isVisibleTo(w.page));
  CHECK(w.page->emptyState()->text().contains("no-sweep.sqlite holds no sweep"));
  CHECK(w.page->emptyState()->text().contains("tilescope sweep --arch"));
  CHECK_FALSE(w.page->paretoPlot()->isVisibleTo(w.page));
  CHECK_FALSE(w.page->table()->isVisibleTo(w.page));
}

TEST_CASE("the Sweep page reads a 1\\,000-point store off the GUI thread", "[gui][sweep]") {
  // Hand-made points (test values): a sweep of 40 L1 sizes x 25 bandwidths, then a later one of
  // 2 x 2, time T = 1 ms x l1^-0.5 x bw^-1 and cost rising with L1.
  QTemporaryDir dir;
  const QString db = dir.filePath("large.sqlite");
  {
    ts::ResultStore store(db.toStdString());
    const auto add_sweep = [&store](const std::string& key, int l1_values, int bw_values) {
      for (int l1 = 1; l1 <= l1_values; ++l1)
        for (int bw = 1; bw <= bw_values; ++bw) {
          ts::SweepPointRecord p;
          p.sweep_key = key;
          p.workload_hash = key;
          p.parameters_json = "{\"edge:HBM->L2.bandwidth\":" + std::to_string(bw * 1e11) +
                              ",\"node:L1.capacity\":" + std::to_string(l1 * 65536) + "}";
          p.total_s = 1e-3 / std::sqrt(l1) / bw;
          p.cost = l1 * 65536.0;
          p.operators = {{"op", p.total_s, 0, "HBM"}};
          store.add_sweep_point(p);
        }
    };
    store.write_all([&] {
      add_sweep("large", 40, 25);
      add_sweep("small", 2, 2);
    });
  }
  SweepWindow w;
  QElapsedTimer clock;
  clock.start();
  REQUIRE(w.workbench.openFile(db));
  const qint64 open_ms = clock.elapsed();
  // openFile returned with the read still pending: the page's result arrives through the event
  // loop, so nothing of it was read on this (the GUI) thread.
  CHECK(w.page->busy());
  CHECK(w.page->sweeps().empty());
  CHECK(w.page->emptyState()->text().contains("Reading the sweeps of large.sqlite"));
  w.workbench.waitForIdle();
  w.page->waitForIdle();
  CHECK_FALSE(w.page->busy());
  WARN("1,004 sweep points: openFile returned after "
       << open_ms << " ms, the page showed them after " << clock.elapsed() << " ms");

  // Two sweeps: the choice lists them, the one with the latest point first and shown.
  REQUIRE(w.page->sweeps().size() == 2);
  QComboBox* choice = w.page->sweepChoice();
  CHECK(choice->isVisibleTo(w.page));
  REQUIRE(choice->count() == 2);
  CHECK(choice->itemText(0).contains("4 points"));
  CHECK(choice->itemText(1).contains("1000 points"));
  CHECK(w.page->model()->rowCount() == 4);
  choice->setCurrentIndex(1);
  CHECK(w.page->paretoContents().points->data()->size() == 1000);
  // Cost rises with L1 alone and time falls with it: at each L1 the fastest point (bw 25) is on
  // the front, 40 points.
  CHECK(w.page->paretoContents().front->data()->size() == 40);
  CHECK(w.page->model()->rowCount() == 1000);
  // ln T = ln 1 ms - 0.5 ln l1 - ln bw exactly: the bars are bandwidth -1, then L1 -0.5.
  CHECK(w.page->sensitivityContents().order ==
        std::vector<std::string>{"edge:HBM->L2.bandwidth", "node:L1.capacity"});
  const std::vector<double> bars = bar_values(w.page->sensitivityContents());
  REQUIRE(bars.size() == 2);
  CHECK(bars[0] == Approx(-1.0));
  CHECK(bars[1] == Approx(-0.5));

  // Reload reads the file again and keeps the sweep chosen.
  w.page->reload();
  w.page->waitForIdle();
  CHECK(choice->currentIndex() == 1);
  CHECK(w.page->model()->rowCount() == 1000);
}

TEST_CASE("the Sweep page shows a strategy grid's memory and the points that do not fit",
          "[gui][sweep]") {
  // Hand-made points of a grid (test values): tp 1, 2, 4 x schedule 1f1b, gpipe; time tp x 1 s,
  // peak memory 16 GiB / tp, and tp 1 runs out of memory (the simulator's bound_by). Every tp is
  // a trade of time against memory, so tp 1 would be on the front if it fitted.
  QTemporaryDir dir;
  const QString db = dir.filePath("grid.sqlite");
  {
    ts::ResultStore store(db.toStdString());
    for (int tp : {1, 2, 4})
      for (const char* schedule : {"1f1b", "gpipe"}) {
        ts::SweepPointRecord p;
        p.sweep_key = "grid";
        p.workload_hash = "model";
        p.parameters_json = "{\"cluster-content\":\"c\",\"schedule\":\"" + std::string(schedule) +
                            "\",\"tp\":" + std::to_string(tp) + "}";
        p.total_s = 1.0 * tp;
        p.cost = 16.0 * 1024 * 1024 * 1024 / tp;
        p.operators = {{"compute", p.total_s, 0,
                        tp == 1 ? "out of memory: 17179869184 bytes per GPU at the peak, the "
                                  "device has 8589934592"
                                : ""}};
        store.add_sweep_point(p);
      }
  }
  SweepWindow w;
  w.open(db);
  REQUIRE(w.page->sweeps().size() == 1);
  const ts::SweepDigest& d = w.page->sweeps()[0].digest;
  REQUIRE(d.strategy_grid);
  CHECK(w.page->summary()->text().contains("strategy grid: 6 points, varying schedule, tp"));
  CHECK(w.page->summary()->text().contains("2 out of memory"));
  CHECK(w.page->subjectChoice()->itemText(0) == "iteration total");
  // The schedule changes no time here: the page says so (sweep_axis_plateaus), as `sweep` does.
  CHECK(w.page->warnings()->isVisibleTo(w.page));
  CHECK(w.page->warnings()->text().contains(
      "schedule: no value changes the iteration time: 1f1b and gpipe give the same at every "
      "combination of the other parameters"));
  // The schedule is a name: no sensitivity, no bar; T = tp x 1 s at every point, so tp's is
  // d ln T / d ln tp = +1.
  CHECK(w.page->sensitivityContents().order == std::vector<std::string>{"tp"});
  CHECK(w.page->sensitivityContents().unknown == 1);
  REQUIRE(bar_values(w.page->sensitivityContents()).size() == 1);
  CHECK(bar_values(w.page->sensitivityContents())[0] == Approx(1.0));
  // The front: tp 2 (2 s, 8 GiB) and tp 4 (4 s, 4 GiB), one of each pair tied in both; tp 1 is
  // left out, as it does not fit.
  CHECK(w.page->paretoContents().front->data()->size() == 2);
  const ts::views::SweepPointTableModel* model = w.page->model();
  CHECK(model->headerData(model->costColumn(), Qt::Horizontal).toString() ==
        "peak memory per GPU (GiB)");
  int out_of_memory = 0;
  for (int r = 0; r < model->rowCount(); ++r) {
    const QString note = model->data(model->index(r, model->noteColumn())).toString();
    if (!note.startsWith("out of memory")) continue;
    ++out_of_memory;
    CHECK(model->data(model->index(r, model->frontColumn())).toString() == "no");
    CHECK(model->data(model->index(r, model->costColumn())).toString() == "16.000");
    CHECK(model->data(model->index(r, 1)).toString() == "1");  // tp, a plain number
  }
  CHECK(out_of_memory == 2);
}
