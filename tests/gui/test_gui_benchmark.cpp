// Run on purpose: tilescope_gui_tests "[!benchmark]". A results database with 100,000
// measurements opens into the correlation view (load, join, draw) and is panned and zoomed; the
// figures are printed. The measurements are made-up values around the Ascend graph's own
// predictions for BERT-base (the size matters here, not the values).
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <random>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "Workbench.hpp"
#include "arch/ArchitectureLoader.hpp"
#include "mapper/OperatorPrediction.hpp"
#include "measure/CorrelationData.hpp"
#include "measure/OperatorIdentity.hpp"
#include "measure/PredictionRecordOf.hpp"
#include "measure/ResultStore.hpp"
#include "views/CorrelationView.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "workload/WorkloadLoader.hpp"

TEST_CASE("100,000 measurements open into the correlation view", "[gui][!benchmark]") {
  constexpr size_t kMeasurements = 100000;
  QTemporaryDir dir;
  const QString db = dir.filePath("large.sqlite");
  QElapsedTimer clock;
  clock.start();
  {
    const ts::ArchitectureGraph graph =
        ts::load_architecture(ts::guitest::sample("arch/ascend910b3.yaml").toStdString());
    const ts::Workload workload =
        ts::load_workload(ts::guitest::sample("workloads/bert-base.yaml").toStdString());
    ts::ResultStore store(db.toStdString());
    ts::RunStart start;
    start.collector = "benchmark";
    start.workload = workload.name;
    start.settings_json = "{}";
    start.device = {graph.name, "synthetic", ts::hash_text(graph.content_hash()), "{}"};
    const int64_t run = store.begin_run(start);
    std::vector<ts::Measurement> ops;
    for (const ts::Operator& op : workload.operators) {
      const ts::Prediction p = ts::predict_operator(op, graph, {});
      const ts::PredictionRecord rec =
          ts::prediction_record(p, ts::operator_key(op, workload.name), std::nullopt, graph, "");
      store.add_prediction(rec);
      ts::Measurement m;
      m.op = rec.op;
      m.scope = ts::TimingScope::device;
      m.repetitions = 10;
      m.checked = true;
      m.median_ns = p.latency_us * 1e3;
      ops.push_back(m);
    }
    std::mt19937 random(7);
    std::lognormal_distribution<double> noise(0, 0.15);
    for (size_t i = 0; i < kMeasurements; ++i) {
      ts::Measurement m = ops[i % ops.size()];
      m.implementation = "synthetic" + std::to_string(i / ops.size() % 50);
      m.median_ns = m.min_ns = m.median_ns * noise(random);
      store.add_measurement(run, m);
    }
    store.finish_run(run, ts::RunStatus::complete);
  }
  WARN("writing the database: " << clock.elapsed() << " ms");

  // The engine's part alone: read the run and join each measurement with its prediction.
  clock.restart();
  ts::DbInputOptions options;
  options.path = db.toStdString();
  const size_t joined = ts::db_input(options).points.size();
  WARN("core db_input (read and join, no GUI): " << clock.elapsed() << " ms for " << joined
                                                 << " points");

  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  window.pages()->setCurrentWidget(window.correlationView());
  clock.restart();
  REQUIRE(workbench.openResults(db));
  workbench.waitForIdle();
  auto* plot = window.correlationView()->plot();
  plot->replot();
  const qint64 open_ms = clock.elapsed();
  REQUIRE(workbench.points().size() == kMeasurements);
  CHECK(window.correlationView()->contents().count == kMeasurements);
  WARN("open, join, draw " << kMeasurements << " measurements: " << open_ms << " ms");

  // Interactive: a pan and a zoom step redraw the plot.
  clock.restart();
  constexpr int kSteps = 20;
  for (int i = 0; i < kSteps; ++i) {
    plot->xAxis->scaleRange(i % 2 ? 1.25 : 0.8);
    plot->yAxis->moveRange(i % 2 ? 0.01 : -0.01);
    plot->replot();
  }
  WARN("pan and zoom: " << clock.elapsed() / kSteps << " ms per redraw");
  CHECK(open_ms < 2000);
}
