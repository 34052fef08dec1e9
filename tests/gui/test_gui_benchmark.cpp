// Run on purpose: tilescope_gui_tests "[!benchmark]". Requirement 3 of the GUI issue: a results
// database with 100,000 measurements opens into the correlation view (read, join, first drawn
// plot) in under 2 s and stays interactive: a sequence of pan and zoom steps, each redrawn.
// Each figure is the minimum over repetitions (the least disturbed by whatever else the machine
// runs); the measurements are made-up values around the Ascend graph's own predictions for
// BERT-base (the size matters here, not the values).
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "ResultsFixture.hpp"
#include "RunBrowser.hpp"
#include "Workbench.hpp"
#include "correlate/CorrelationData.hpp"
#include "views/CorrelationView.hpp"
#include "views/QCustomPlotInclude.hpp"

namespace {

constexpr size_t kMeasurements = 100000;
constexpr int kRepetitions = 3;
constexpr int kSteps = 20;

double ms_since(const QElapsedTimer& clock) {
  return static_cast<double>(clock.nsecsElapsed()) / 1e6;
}

}  // namespace

TEST_CASE("100,000 measurements open into the correlation view", "[gui][!benchmark]") {
  QTemporaryDir dir;
  const QString db = dir.filePath("large.sqlite");
  QElapsedTimer clock;
  clock.start();
  ts::guitest::make_large_database(db, kMeasurements);
  WARN("writing the database: " << clock.elapsed() << " ms");

  // The engine's part alone: read the run and join each measurement with its prediction; and of
  // that, reading the rows (what the GUI's progress figure counts).
  double core_ms = 1e300, rows_ms = 1e300;
  size_t joined = 0;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    clock.restart();
    ts::DbInputOptions options;
    options.path = db.toStdString();
    joined = ts::db_input(options).points.size();
    core_ms = std::min(core_ms, ms_since(clock));
    clock.restart();
    const ts::ResultStore store(db.toStdString(), ts::ResultStore::Mode::read_only);
    REQUIRE(store.measurements(*store.default_run()).size() == kMeasurements);
    rows_ms = std::min(rows_ms, ms_since(clock));
  }
  REQUIRE(joined == kMeasurements);

  // Open into a window that shows the correlation page: from the call to the end of the first
  // replot that draws the new points (QCustomPlot::afterReplot), the GUI thread free meanwhile.
  double open_ms = 1e300, step_ms = 1e300, worst_step_ms = 0;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    ts::gui::Workbench workbench;
    ts::gui::MainWindow window(&workbench);
    window.resize(1400, 860);
    window.show();
    window.pages()->setCurrentWidget(window.correlationView());
    QApplication::processEvents();
    auto* view = window.correlationView();
    auto* plot = view->plot();
    bool loaded = false;
    double drawn_ms = -1;
    QObject::connect(workbench.runBrowser(), &ts::gui::RunBrowser::pointsChanged,
                     [&] { loaded = true; });
    QObject::connect(plot, &QCustomPlot::afterReplot, [&] {
      if (loaded && drawn_ms < 0) drawn_ms = ms_since(clock);
    });
    clock.restart();
    REQUIRE(workbench.runBrowser()->openResults(db));
    QElapsedTimer limit;
    limit.start();
    while (drawn_ms < 0 && limit.elapsed() < 60000)
      QApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    REQUIRE(drawn_ms >= 0);
    workbench.waitForIdle();
    REQUIRE(workbench.runBrowser()->points().size() == kMeasurements);
    CHECK(view->contents().count == kMeasurements);
    open_ms = std::min(open_ms, drawn_ms);

    // Interactive: pan and zoom steps, as the mouse wheel and a drag make them, each redrawn.
    double steps_ms = 0;
    for (int i = 0; i < kSteps; ++i) {
      clock.restart();
      plot->xAxis->scaleRange(i % 2 ? 1.25 : 0.8);
      plot->yAxis->scaleRange(i % 2 ? 1.25 : 0.8);
      plot->xAxis->moveRange(i % 4 < 2 ? 0.05 : -0.05);
      plot->yAxis->moveRange(i % 4 < 2 ? 0.05 : -0.05);
      plot->replot(QCustomPlot::rpImmediateRefresh);
      const double one = ms_since(clock);
      steps_ms += one;
      worst_step_ms = std::max(worst_step_ms, one);
    }
    step_ms = std::min(step_ms, steps_ms / kSteps);
  }
  WARN("minimum of " << kRepetitions << " repetitions, " << kMeasurements << " measurements:\n"
                     << "  core db_input (read and join, no GUI): " << core_ms << " ms, of which "
                     << "reading the rows " << rows_ms << " ms\n"
                     << "  open into the correlation view, to the first drawn plot: " << open_ms
                     << " ms\n"
                     << "  pan or zoom step with its redraw: " << step_ms << " ms (mean of "
                     << kSteps << " steps; slowest single step " << worst_step_ms << " ms)\n"
                     << "  targets (docs/gui.md): open under 2000 ms, a step under 100 ms");
}
