// tilescope-gui never writes over a file it has open (app/gui/OutputGuard.hpp, core's
// common/OutputPath): a saved workspace or graph, an exported table, each refused over the open
// graph, workload or simulation with one line as the window's other errors, the file untouched;
// and a profiler's trace is not opened as a simulation, nor a simulation analysed as a trace.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>

#include "GuiTestSupport.hpp"
#include "TableExport.hpp"
#include "TraceAnalysisSession.hpp"
#include "WhatIfSession.hpp"
#include "Workbench.hpp"

using ts::guitest::sample;

namespace {

const QString kGuardSimulationFixture =
    TILESCOPE_ROOT "/tests/fixtures/output_guard/simulation.json";
const QString kGuardKinetoFixture = TILESCOPE_ROOT "/tests/fixtures/trace/kineto/bert_step.json";

QByteArray bytes_of(const QString& path) {
  QFile file(path);
  REQUIRE(file.open(QIODevice::ReadOnly));
  return file.readAll();
}

// The errors `emitter` reported while `run` ran.
template <class Emitter, class Run>
QStringList guard_errors_of(Emitter* emitter, Run&& run) {
  QStringList errors;
  const auto connection =
      QObject::connect(emitter, &Emitter::message, [&errors](int severity, const QString& text) {
        if (severity == ts::gui::kError) errors << text;
      });
  run();
  QObject::disconnect(connection);
  return errors;
}

}  // namespace

TEST_CASE("the GUI refuses to save over a file it has open", "[gui][output-guard]") {
  QTemporaryDir dir;
  // The graph names its templates relative to itself (../mappings/), as in samples/.
  REQUIRE(QDir(dir.path()).mkpath("arch"));
  REQUIRE(QDir(dir.path()).mkpath("mappings"));
  for (const QString t : {"ascend910b3-gemm-template.yaml", "ascend910b3-vector-template.yaml"})
    REQUIRE(QFile::copy(sample("mappings/" + t), dir.filePath("mappings/" + t)));
  const QString graph = dir.filePath("arch/graph.yaml"), workload = dir.filePath("workload.yaml"),
                simulation = dir.filePath("sim.json");
  REQUIRE(QFile::copy(sample("arch/ascend910b3.yaml"), graph));
  REQUIRE(QFile::copy(sample("workloads/bert-base.yaml"), workload));
  REQUIRE(QFile::copy(kGuardSimulationFixture, simulation));
  const QByteArray graph_bytes = bytes_of(graph), workload_bytes = bytes_of(workload),
                   simulation_bytes = bytes_of(simulation);

  ts::gui::Workbench workbench;
  REQUIRE(workbench.whatIf()->openArchitecture(graph));
  REQUIRE(workbench.whatIf()->openWorkload(workload));
  REQUIRE(workbench.openSimulation(simulation));
  workbench.waitForIdle();
  const std::vector<ts::NamedPath> open = workbench.openFiles();
  REQUIRE(open.size() == 3);

  SECTION("the workspace") {
    for (const QString& over : {graph, workload, simulation}) {
      bool saved = true;
      const QStringList errors =
          guard_errors_of(&workbench, [&] { saved = workbench.saveWorkspace(over); });
      CHECK_FALSE(saved);
      REQUIRE(errors.size() == 1);
      CHECK(errors.front().startsWith("the workspace: '" + over + "' is the same file as the "));
      CHECK(errors.front().contains("tilescope-gui never writes over a file it has open"));
    }
    // Through another spelling of the path too.
    const QStringList errors = guard_errors_of(&workbench, [&] {
      CHECK_FALSE(workbench.saveWorkspace(dir.path() + "/./sub/../arch/graph.yaml"));
    });
    CHECK(errors.size() == 1);
    CHECK(workbench.saveWorkspace(dir.filePath("workspace.yaml")));
  }
  SECTION("the edited graph") {
    bool saved = true;
    const QStringList errors = guard_errors_of(
        workbench.whatIf(), [&] { saved = workbench.whatIf()->saveArchitecture(graph); });
    CHECK_FALSE(saved);
    REQUIRE(errors.size() == 1);
    CHECK(errors.front() == "the saved graph: '" + graph + "' is the same file as the graph '" +
                                graph +
                                "'; tilescope-gui never writes over a file it has open: give the "
                                "saved graph another file");
    CHECK_FALSE(workbench.whatIf()->saveArchitecture(simulation));  // the workbench's files too
    CHECK(workbench.whatIf()->saveArchitecture(dir.filePath("edited.yaml")));
  }
  SECTION("a table's CSV") {
    QTableView table;
    table.setModel(workbench.whatIf()->operators());
    QString error;
    CHECK_FALSE(ts::gui::save_table_csv(*table.model(), workload, &error, open));
    CHECK(error.startsWith("the CSV export: '" + workload + "' is the same file as the workload"));
    CHECK(ts::gui::save_table_csv(*table.model(), dir.filePath("operators.csv"), &error, open));
  }
  workbench.cancel();
  workbench.waitForIdle();
  CHECK(bytes_of(graph) == graph_bytes);
  CHECK(bytes_of(workload) == workload_bytes);
  CHECK(bytes_of(simulation) == simulation_bytes);
}

TEST_CASE("the GUI opens a simulation as one and a trace as one, never one as the other",
          "[gui][output-guard]") {
  ts::gui::Workbench workbench;
  bool opened = true;
  QStringList errors =
      guard_errors_of(&workbench, [&] { opened = workbench.openSimulation(kGuardKinetoFixture); });
  CHECK_FALSE(opened);
  REQUIRE(errors.size() == 1);
  CHECK(errors.front().startsWith(kGuardKinetoFixture + ": a profiler's trace (kineto)"));
  CHECK(workbench.simulationPath().isEmpty());
  CHECK(workbench.simulation().tracks.empty());

  CHECK(workbench.openSimulation(kGuardSimulationFixture));
  CHECK_FALSE(workbench.simulation().tracks.empty());

  errors = guard_errors_of(workbench.traceAnalysis(), [&] {
    workbench.traceAnalysis()->open({kGuardSimulationFixture});
    workbench.waitForIdle();
  });
  REQUIRE(errors.size() == 1);
  CHECK(errors.front().startsWith(kGuardSimulationFixture + ": not a trace tilescope reads"));
  CHECK(workbench.traceAnalysis()->paths().isEmpty());
}
