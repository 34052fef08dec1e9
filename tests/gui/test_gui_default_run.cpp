// Issue 18: a results database opens on its default run (ResultStore::default_run, the latest
// that holds a measurement), never on an empty run left by a `measure` killed at its start.
#include <QTemporaryDir>

#include "GuiTestSupport.hpp"
#include "ResultsFixture.hpp"
#include "RunBrowser.hpp"
#include "Workbench.hpp"
#include "measure/ResultStore.hpp"

TEST_CASE("results open on the latest run with a measurement, not on an empty one",
          "[gui][correlation]") {
  // Run 1 on chip A (13 operators), run 2 on chip B (5), run 3 on chip A begun and never
  // measured: the default is run 2, so chip B is the device shown, with its one run and 5 points.
  QTemporaryDir dir;
  const QString db = dir.filePath("killed-at-start.sqlite");
  {
    const ts::guitest::BertOnAscend in;
    ts::ResultStore store(db.toStdString());
    ts::guitest::add_run(store, in, "chip A", 13);
    ts::guitest::add_run(store, in, "chip B", 5);
    store.begin_run(ts::guitest::run_start(in, "chip A"));
  }
  ts::gui::Workbench workbench;
  ts::gui::RunBrowser& browser = *workbench.runBrowser();
  REQUIRE(browser.openResults(db));
  workbench.waitForIdle();
  REQUIRE(browser.devices() == QStringList{"chip A (synthetic)", "chip B (synthetic)"});
  CHECK(browser.currentDevice() == 1);
  REQUIRE(browser.runs().size() == 1);
  CHECK(browser.runs()[0].startsWith("run 2: "));
  CHECK(browser.currentRun() == 0);
  CHECK(browser.points().size() == 5);
}
