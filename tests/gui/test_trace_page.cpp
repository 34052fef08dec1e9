// The Trace page (issue 38): the generated 4-rank DDP step (samples/traces/bert-ddp-4rank) read
// and analysed off the GUI thread, one stacked bar per rank whose parts add up to the rank's
// wall time, the chosen rank's kernel and operator tables and launch-delay histogram, a step
// chosen from the steps every rank has; a broken trace is a message naming the file, and Cancel
// stops a read part-way with the page as it was.
#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTemporaryDir>
#include <fstream>
#include <numeric>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "TraceAnalysisSession.hpp"
#include "TracePage.hpp"
#include "Workbench.hpp"
#include "views/KernelBreakdownModels.hpp"
#include "views/LaunchDelayHistogram.hpp"
#include "views/QCustomPlotInclude.hpp"
#include "views/TraceBreakdownChart.hpp"

using ts::guitest::sample;

namespace {

const QString kDdpSample = QString(TILESCOPE_ROOT "/samples/traces/bert-ddp-4rank");

struct TraceWindow {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window{&workbench};
  ts::gui::TraceAnalysisSession& session = *workbench.traceAnalysis();
  ts::gui::TracePage& page = *window.tracePage();
  TraceWindow() {
    window.resize(1400, 900);
    window.show();
    window.pages()->setCurrentWidget(&page);
  }
};

double stacked_bar_value(QCPBars* bars, double key) {
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
    if (it->key == key) return it->value;
  FAIL("no bar at key " << key);
  return 0;
}

}  // namespace

TEST_CASE("the Trace page shows the 4-rank DDP step: bars per rank, tables, histogram, steps",
          "[gui][trace]") {
  TraceWindow w;
  // Nothing open: the empty state says what to open.
  CHECK(w.page.emptyState()->isVisible());
  CHECK(w.page.emptyState()->text().contains("folder of per-rank traces"));
  CHECK(w.page.rankBox()->count() == 0);
  ts::guitest::save_screenshot(w.window, "gui-trace-empty");

  QSignalSpy changed(&w.session, &ts::gui::TraceAnalysisSession::analysisChanged);
  REQUIRE(w.workbench.openFile(kDdpSample));  // a folder of traces is the Trace page's
  w.workbench.waitForIdle();
  REQUIRE(changed.count() == 1);
  CHECK(w.window.errorCount() == 0);
  CHECK_FALSE(w.page.emptyState()->isVisible());

  const std::vector<ts::RankAnalysis>& ranks = w.session.ranks();
  REQUIRE(ranks.size() == 4);
  CHECK(w.page.rankBox()->count() == 4);
  // The steps every rank has: the whole trace, ProfilerStep#10 and #11.
  REQUIRE(w.page.stepBox()->count() == 3);
  CHECK(w.page.stepBox()->itemText(2) == "ProfilerStep#11");

  // One bar per rank and part; a rank's four parts add up to its wall time (drawn in ms here:
  // the steps last milliseconds), and the ranks differ (the generator's straggler and slow
  // loader).
  const auto contents = ts::views::fill_trace_breakdown_chart(*w.page.breakdownPlot(), ranks,
                                                              "test", QApplication::palette());
  std::vector<double> idle;
  for (size_t i = 0; i < ranks.size(); ++i) {
    INFO("rank " << i);
    const double key = static_cast<double>(ranks.size() - i);  // rank 0 on top
    double sum = 0;
    for (ts::views::TraceTimePart part : ts::views::kTraceTimeParts) {
      QCPBars* bars = contents.bars[static_cast<size_t>(part)];
      REQUIRE(bars->data()->size() == 4);
      sum += stacked_bar_value(bars, key);
    }
    CHECK(sum == Approx(static_cast<double>(ranks[i].temporal.wall_ns()) * 1e-6));
    CHECK(ranks[i].temporal.compute_ns > 0);
    CHECK(ranks[i].temporal.communication_ns > 0);
    idle.push_back(stacked_bar_value(contents.bars[3], key));
  }
  CHECK(std::adjacent_find(idle.begin(), idle.end()) == idle.end());      // no two ranks alike
  CHECK(*std::max_element(idle.begin(), idle.end()) == Approx(idle[3]));  // the slow loader

  // The chosen rank's tables: every kind of GPU work and every launching operator, longest
  // first, the all-reduce among them as communication.
  w.page.chooseRank(2);
  const ts::RankAnalysis& r2 = ranks[2];
  REQUIRE(w.page.kernelModel()->rowCount() == static_cast<int>(r2.kernels.kernels.size()));
  CHECK(w.page.operatorModel()->rowCount() == static_cast<int>(r2.kernels.operators.size()));
  bool nccl = false;
  for (int row = 0; row < w.page.kernelModel()->rowCount(); ++row) {
    const QString name = w.page.kernelModel()->index(row, 0).data().toString();
    if (name.startsWith("ncclDevKernel_AllReduce_Sum_f16_RING_LL")) {
      nccl = true;
      CHECK(w.page.kernelModel()->index(row, 1).data().toString() == "communication");
    }
  }
  CHECK(nccl);
  // The shares of the kernels add up to the whole.
  int64_t total = 0;
  for (const ts::KernelTime& k : r2.kernels.kernels) total += k.total_ns;
  CHECK(total == r2.kernels.total_ns());
  CHECK(w.page.figuresText().contains("rank 2"));
  CHECK(w.page.figuresText().contains("of which"));  // the overlap
  CHECK(w.page.figuresText().contains("host-bound"));

  // The histogram counts every launched activity of the rank once.
  const auto histogram = ts::views::fill_launch_delay_histogram(
      *w.page.histogramPlot(), {{"rank 2", &r2.launch}}, "test", QApplication::palette());
  CHECK(histogram.counted == r2.launch.launched);
  CHECK(histogram.bins == r2.launch.histogram.size());
  ts::guitest::save_screenshot(w.window, "gui-trace-ddp");

  // A step: analysed again (not read again), each rank's window that step.
  w.page.stepBox()->setCurrentIndex(2);
  w.workbench.waitForIdle();
  REQUIRE(changed.count() == 2);
  CHECK(w.session.step() == 11);
  for (const ts::RankAnalysis& a : w.session.ranks()) {
    CHECK(a.window.step == 11);
    CHECK(a.temporal.wall_ns() < ranks.front().temporal.wall_ns() * 2);
  }
  CHECK(w.page.stepBox()->currentIndex() == 2);
  CHECK(w.page.rankBox()->currentIndex() == 2);  // the chosen rank stays chosen
}

TEST_CASE("a broken trace on the Trace page is a message naming the file", "[gui][trace]") {
  TraceWindow w;
  QSignalSpy messages(&w.workbench, &ts::gui::Workbench::message);
  const QString broken = TILESCOPE_ROOT "/tests/fixtures/trace/kineto/bert_step_truncated.json";
  w.session.open({broken});
  w.workbench.waitForIdle();
  CHECK(w.window.errorCount() == 1);
  bool named = false;
  for (const QList<QVariant>& m : messages)
    if (m.at(0).toInt() == ts::gui::kError && m.at(1).toString().contains(broken)) named = true;
  CHECK(named);
  CHECK_FALSE(w.session.isOpen());
  CHECK(w.page.emptyState()->isVisible());  // the page as it was

  // A folder without traces is refused by name, not read as YAML.
  QTemporaryDir empty;
  CHECK_FALSE(w.workbench.openFile(empty.path()));
  CHECK(w.window.errorCount() == 2);
}

TEST_CASE("Cancel stops reading a large trace; the Trace page keeps what it showed",
          "[gui][trace]") {
  TraceWindow w;
  w.session.open({TILESCOPE_ROOT "/tests/fixtures/trace/kineto/two_streams.json"});
  w.workbench.waitForIdle();
  REQUIRE(w.session.ranks().size() == 1);
  CHECK(w.session.ranks().front().rank == 3);  // two_streams.json's distributedInfo

  QTemporaryDir dir;
  const QString large = dir.filePath("large.json");
  {
    std::ofstream out(large.toStdString());
    out << "{\"schemaVersion\": 1, \"traceEvents\": [\n";
    for (int i = 0; i < 400000; ++i)
      out << (i ? ",\n" : "")
          << R"({"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, )"
          << R"("tid": 7, "ts": )" << 100 + 2 * i
          << R"(, "dur": 1.5, "args": {"device": 0, "stream": 7, "correlation": )" << i << "}}";
    out << "\n]}\n";
  }
  QSignalSpy changed(&w.session, &ts::gui::TraceAnalysisSession::analysisChanged);
  w.session.open({large});
  CHECK(w.workbench.busy());
  w.workbench.cancel();
  w.workbench.waitForIdle();
  CHECK(changed.count() == 0);
  CHECK(w.session.paths().front().endsWith("two_streams.json"));
  CHECK(w.session.ranks().front().rank == 3);
  CHECK(w.window.errorCount() == 0);
}
