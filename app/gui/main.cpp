// tilescope-gui [workspace.yaml | files...]: the desktop workbench. With --quit-after-load or
// --screenshots it loads, waits for the background work, and exits (smoke tests, README
// pictures); each input error is printed on stderr and the exit status is 2 when an input could
// not be used.
#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QMessageBox>
#include <QTabWidget>
#include <QTimer>
#include <iostream>
#include <string>
#include <string_view>

#include "ComparePage.hpp"
#include "ComparisonRunner.hpp"
#include "DefaultInputs.hpp"
#include "MainWindow.hpp"
#include "SweepPage.hpp"
#include "Workbench.hpp"
#include "common/DataDirectory.hpp"
#include "common/InputError.hpp"
#include "profile/ArchitectureReference.hpp"
#include "profile/ProfileCostHooks.hpp"

namespace {

QtMessageHandler default_handler = nullptr;

// The offscreen platform (tests, --screenshots without a display) says on every top-level window
// that it cannot pass size hints to a window manager it does not have. That is no fault of the
// inputs, and stderr is what the smoke tests read for faults, so drop that one line.
void without_offscreen_noise(QtMsgType type, const QMessageLogContext& context,
                             const QString& text) {
  if (text.startsWith("This plugin does not support propagateSizeHints")) return;
  default_handler(type, context, text);
}

// --help and --version print text and exit: they must work where no display is (a terminal
// over ssh, a CI job), and a QApplication aborts there. A QCoreApplication answers them.
bool asks_only_for_text(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "-h" || arg == "-?" || arg == "--help" || arg == "--help-all" || arg == "-v" ||
        arg == "--version")
      return true;
  }
  return false;
}

void name_application() {
  QCoreApplication::setApplicationName("tilescope-gui");
  QCoreApplication::setOrganizationName("tilescope");
  QCoreApplication::setApplicationVersion(TILESCOPE_VERSION);
}

}  // namespace

int main(int argc, char** argv) {
  default_handler = qInstallMessageHandler(without_offscreen_noise);
  ts::provide_cost_hooks_from_profiles();  // graphs may name code plugins' cost hooks
  QCommandLineParser parser;
  parser.setApplicationDescription(
      "The tilescope workbench: architecture graphs, predictions, mappings and measurements.\n"
      "Without files it opens what scripts/run wrote in the working folder (out/host.yaml, the "
      "workload its newest host run measured, out/host-results.sqlite); when those are not "
      "there, samples/arch/ascend910b3.yaml, samples/workloads/bert-base.yaml and the newest "
      "*.sqlite in the working folder (or its out/).");
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      "files",
      QString::fromStdString(
          "a workspace.yaml, or graphs (" + std::string(ts::kArchitectureForms) +
          "), workload YAML files, results databases (.sqlite), CSVs of measured GEMMs "
          "(M,N,K,measured_us), and profiler traces (Kineto .json / .json.gz, Nsight Systems "
          ".sqlite, or a folder of per-rank traces): imported into the open database or a "
          "temporary one, and analysed on the Trace page"),
      "[workspace.yaml | files...]");
  const QCommandLineOption quit_after_load(
      "quit-after-load",
      "load the inputs, wait for the predictions, then exit (errors on stderr, status 2)");
  const QCommandLineOption screenshots(
      "screenshots", "once loaded, save a PNG of every page into DIR, then exit", "DIR");
  const QCommandLineOption compare(
      "compare",
      QString::fromStdString("add GRAPH (" + std::string(ts::kArchitectureForms) +
                             ") to the Compare page, as Add graph... does"),
      "GRAPH");
  parser.addOption(quit_after_load);
  parser.addOption(screenshots);
  parser.addOption(compare);
  if (asks_only_for_text(argc, argv)) {
    QCoreApplication text_only(argc, argv);
    name_application();
    parser.process(text_only);  // prints the help or the version and exits
  }
  QApplication app(argc, argv);
  name_application();
  parser.process(app);
  try {
    ts::check_data_environment();  // a wrong TILESCOPE_DATA: an error, not an empty workbench
  } catch (const ts::InputError& e) {
    std::cerr << e.what() << "\n";
    if (!parser.isSet(quit_after_load) && !parser.isSet(screenshots))
      QMessageBox::critical(nullptr, QStringLiteral("tilescope"), QString::fromStdString(e.what()));
    return 2;
  }

  ts::gui::Workbench workbench;
  ts::gui::MainWindow window(&workbench);
  // Without a window to look at, the errors go to stderr as the CLI prints them, one line each
  // (`file:line:col: what was expected`), and the exit status is the CLI's for bad input.
  const bool unattended = parser.isSet(quit_after_load) || parser.isSet(screenshots);
  ts::gui::ComparisonRunner* comparison = window.comparePage()->runner();
  int compare_errors = 0;
  if (unattended) {
    auto to_stderr = [](int severity, const QString& text) {
      if (severity == ts::gui::kError) std::cerr << text.toStdString() << "\n";
    };
    QObject::connect(&workbench, &ts::gui::Workbench::message, &app, to_stderr);
    QObject::connect(comparison, &ts::gui::ComparisonRunner::message, &app, to_stderr);
  }
  QStringList files = parser.positionalArguments();
  if (files.isEmpty()) files = ts::gui::default_inputs(QDir::currentPath());
  // A trace is imported (its operators on the Operators and Correlation pages, its kernels on
  // the Timeline) and analysed (the Trace page), never read as YAML.
  window.openCommandLine(files);
  for (const QString& graph : parser.values(compare))
    if (!comparison->addGraph(graph)) ++compare_errors;
  window.show();

  if (unattended) {
    QTimer::singleShot(0, &app, [&] {
      // The added graphs are predicted once the open graph's predictions are in.
      window.waitForIdle();  // the traces' imports, then what they open
      comparison->waitForIdle();
      workbench.waitForIdle();
      comparison->waitForIdle();
      window.sweepPage()->waitForIdle();  // its own read of the store's sweeps
      if (parser.isSet(screenshots)) {
        const QDir dir(parser.value(screenshots));
        QDir().mkpath(dir.path());
        for (int i = 0; i < window.pages()->count(); ++i) {
          window.pages()->setCurrentIndex(i);
          QApplication::processEvents();
          const QString name = window.pages()->tabText(i).toLower();
          window.grab().save(dir.filePath("gui-" + name + ".png"));
        }
      }
      app.exit(window.errorCount() > 0 || compare_errors > 0 ? 2 : 0);
    });
  }
  return app.exec();
}
