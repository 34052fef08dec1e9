// Long work stops when asked: Cancel (or a newer edit) stops the what-if's mapper inside one
// search, not only between operators; a results database loads off the GUI thread with a
// progress figure in rows, and Cancel abandons the load and keeps what was shown.
#include <QElapsedTimer>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

#include "GuiTestSupport.hpp"
#include "MainWindow.hpp"
#include "ResultsFixture.hpp"
#include "RunBrowser.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"

using ts::guitest::sample;
using ts::views::OperatorTableModel;

namespace {

// From a given point on, the mapper searches every point of an operator's space (the budget is
// above any space): minutes per operator, so that a search is surely running when Cancel comes,
// and the evaluations it would have made are known (the space) without making them.
ts::MapperOptions unbounded_mapper() {
  ts::MapperOptions o;
  o.budget = uint64_t(1) << 62;
  return o;
}

QPushButton* cancel_button(ts::gui::MainWindow& window) {
  auto* button = window.findChild<QPushButton*>("cancel");
  REQUIRE(button);
  return button;
}

ts::gui::MapperStopReport wait_for_stop(QSignalSpy& spy) {
  REQUIRE((spy.count() > 0 || spy.wait(20000)));
  return spy.takeFirst().at(0).value<ts::gui::MapperStopReport>();
}

}  // namespace

TEST_CASE("Cancel and a newer edit stop the what-if mapper inside one search",
          "[gui][whatif][cancel]") {
  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  REQUIRE(workbench.whatIf()->openArchitecture(sample("arch/ascend910b3.yaml")));
  REQUIRE(workbench.whatIf()->openWorkload(sample("workloads/bert-base.yaml")));
  workbench.waitForIdle();  // the baseline, on the default budget
  auto* model = workbench.whatIf()->operators();
  REQUIRE(model->rowCount() == 13);
  workbench.whatIf()->setMapperOptions(unbounded_mapper());

  QSignalSpy fixed(workbench.whatIf(), &ts::gui::WhatIfSession::fixedReady);
  QSignalSpy stopped(workbench.whatIf(), &ts::gui::WhatIfSession::remapStopped);
  QSignalSpy remapped(workbench.whatIf(), &ts::gui::WhatIfSession::remapReady);

  // An edit: the fixed mappings come back, then the mapper starts its (long) search.
  workbench.whatIf()->editParameter("node:HBM.bandwidth", 0.8e12);
  REQUIRE((fixed.count() > 0 || fixed.wait(5000)));
  QTest::qWait(300);
  REQUIRE(workbench.busy());

  // A newer edit supersedes that search: it stops part-way.
  workbench.whatIf()->editParameter("node:HBM.bandwidth", 0.6e12);
  const ts::gui::MapperStopReport superseded = wait_for_stop(stopped);
  CHECK(superseded.superseded);
  REQUIRE_FALSE(superseded.op.isEmpty());
  INFO("superseded: " << superseded.op.toStdString() << " after " << superseded.evaluations
                      << " of " << superseded.at_most << " evaluations");
  CHECK(static_cast<double>(superseded.evaluations) < superseded.at_most / 10);
  WARN("a newer edit stopped the search for " << superseded.op.toStdString() << " after "
                                              << superseded.evaluations << " of "
                                              << superseded.at_most << " evaluations");

  // Cancel, as a person does, while the newer edit's search runs.
  REQUIRE((fixed.count() > 1 || fixed.wait(5000)));
  QTest::qWait(300);
  REQUIRE(workbench.busy());
  QPushButton* cancel = cancel_button(window);
  REQUIRE(cancel->isVisible());
  QTest::mouseClick(cancel, Qt::LeftButton);
  const ts::gui::MapperStopReport r = wait_for_stop(stopped);
  workbench.waitForIdle();
  CHECK_FALSE(r.superseded);
  REQUIRE_FALSE(r.op.isEmpty());
  INFO("cancelled: " << r.op.toStdString() << " after " << r.evaluations << " of " << r.at_most
                     << " evaluations");
  // Uncancelled, that search would have evaluated its whole space; it stopped inside it.
  CHECK(static_cast<double>(r.evaluations) < r.at_most / 10);
  CHECK(r.mapped < r.total);
  CHECK(remapped.count() == 0);
  WARN("Cancel stopped the search for " << r.op.toStdString() << " after " << r.evaluations
                                        << " of " << r.at_most << " evaluations; " << r.mapped
                                        << " of " << r.total << " operators were re-mapped");

  // The window says so: the rows not re-mapped say "cancelled", the log and the status bar too.
  for (int i = r.mapped; i < model->rowCount(); ++i) {
    INFO(model->row(i).name.toStdString());
    CHECK(model->data(model->index(i, OperatorTableModel::kRemapped)).toString() == "cancelled");
    CHECK(model->data(model->index(i, 0), OperatorTableModel::StatusRole).toString() ==
          "cancelled");
  }
  CHECK(window.logPanel()->toPlainText().contains("re-mapping cancelled"));
  CHECK(window.statusBar()->currentMessage().startsWith("Re-mapping cancelled"));
  CHECK_FALSE(workbench.busy());
  CHECK_FALSE(cancel->isVisible());
  // The fixed-mapping what-if of the last edit stays.
  for (int i = 0; i < model->rowCount(); ++i) CHECK(model->row(i).fixed->ok);
  CHECK(window.errorCount() == 0);
  ts::guitest::save_screenshot(window, "gui-whatif-cancelled");
}

TEST_CASE("a results database loads with a progress figure in rows, and Cancel stops it",
          "[gui][cancel][slow]") {
  constexpr qint64 kRows = 50000;
  QTemporaryDir dir;
  const QString db = dir.filePath("progress.sqlite");
  ts::guitest::make_large_database(db, kRows);

  ts::gui::Workbench workbench;

  ts::gui::RunBrowser& browser = *workbench.runBrowser();
  ts::gui::MainWindow window(&workbench);
  window.resize(1400, 860);
  window.show();
  auto* bar = window.findChild<QProgressBar*>("progress");
  REQUIRE(bar);

  // Progress arrives while the rows are read (off the GUI thread), in the status bar's bar.
  struct Seen {
    QString what;
    int done, total, bar_value, bar_maximum;
  };
  std::vector<Seen> seen;
  const auto watch =
      QObject::connect(&workbench, &ts::gui::Workbench::progressChanged,
                       [&](const QString& what, int done, int total) {
                         seen.push_back({what, done, total, bar->value(), bar->maximum()});
                       });
  REQUIRE(browser.openResults(db));
  CHECK(workbench.busy());  // openResults returned before the rows were read
  workbench.waitForIdle();
  QObject::disconnect(watch);
  REQUIRE(browser.points().size() == static_cast<size_t>(kRows));
  REQUIRE_FALSE(seen.empty());
  // A first figure may come before the first block of rows is read (on a loaded machine the
  // reader starts late): "0 of 50,000 rows" is true, so only the order and the range are fixed,
  // and some figure must show rows read.
  CHECK(std::any_of(seen.begin(), seen.end(), [](const Seen& s) { return s.done > 0; }));
  for (size_t i = 0; i < seen.size(); ++i) {
    const Seen& s = seen[i];
    INFO(s.what.toStdString());
    CHECK(s.total == kRows);
    CHECK(s.done >= 0);
    CHECK(s.done <= kRows);
    if (i > 0) CHECK(s.done >= seen[i - 1].done);
    CHECK(s.bar_maximum == kRows);  // the window's bar shows rows loaded of the total
    CHECK(s.bar_value == s.done);
    CHECK(s.what.contains("rows"));
  }
  WARN(seen.size() << " progress signals while loading " << kRows << " rows, the first at "
                   << seen.front().done << " rows: \"" << seen.front().what.toStdString() << "\"");

  // Load it again and press Cancel at once, as the reading starts: the load stops part-way
  // (at its next look, every 1,024 rows) and what was shown stays.
  QSignalSpy cancelled(workbench.runBrowser(), &ts::gui::RunBrowser::pointsLoadCancelled);
  QSignalSpy changed(workbench.runBrowser(), &ts::gui::RunBrowser::pointsChanged);
  REQUIRE(browser.openResults(db));
  QPushButton* cancel = cancel_button(window);
  REQUIRE(cancel->isVisible());
  QTest::mouseClick(cancel, Qt::LeftButton);
  REQUIRE((cancelled.count() > 0 || cancelled.wait(20000)));
  workbench.waitForIdle();
  const qint64 rows = cancelled.at(0).at(0).toLongLong();
  const qint64 total = cancelled.at(0).at(1).toLongLong();
  WARN("Cancel pressed as the load started: it stopped at " << rows << " of " << total << " rows");
  CHECK(total == kRows);
  CHECK(rows < kRows);
  CHECK(changed.count() == 0);
  CHECK(browser.points().size() == static_cast<size_t>(kRows));  // the earlier load stays
  CHECK(window.logPanel()->toPlainText().contains("loading cancelled after"));
  CHECK(window.statusBar()->currentMessage().startsWith("Loading cancelled"));
  CHECK_FALSE(workbench.busy());
  CHECK(window.errorCount() == 0);
}
