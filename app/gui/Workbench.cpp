#include "Workbench.hpp"

#include <QFileInfo>
#include <optional>

#include "BackgroundWork.hpp"
#include "RunBrowser.hpp"
#include "TraceAnalysisSession.hpp"
#include "WhatIfSession.hpp"
#include "common/WorkspaceFile.hpp"
#include "common/YamlSource.hpp"
#include "correlate/CorrelationData.hpp"
#include "measure/ResultStore.hpp"
#include "profile/ArchitectureReference.hpp"
#include "trace/TraceFileKind.hpp"
#include "views/TraceTimeline.hpp"

namespace ts::gui {

Workbench::Workbench(QObject* parent)
    : QObject(parent),
      work_(new BackgroundWork(this)),
      what_if_(new WhatIfSession(work_, this)),
      runs_(new RunBrowser(what_if_, work_, this)),
      trace_analysis_(new TraceAnalysisSession(work_, this)) {
  connect(what_if_, &WhatIfSession::message, this, &Workbench::message);
  connect(trace_analysis_, &TraceAnalysisSession::message, this, &Workbench::message);
  connect(runs_, &RunBrowser::message, this, &Workbench::message);
  connect(work_, &BackgroundWork::progressChanged, this, &Workbench::progressChanged);
  connect(work_, &BackgroundWork::busyChanged, this, &Workbench::busyChanged);
  what_if_->setOpenFiles([this] { return openFiles(); });
}

Workbench::~Workbench() {
  cancel();
  waitForIdle();
}

void Workbench::report(int severity, const QString& text) { Q_EMIT message(severity, text); }

bool Workbench::openFile(const QString& path) {
  // `profile:NAME[/VARIANT]` (the "Open profile" menu, or a command line) opens that graph.
  if (is_profile_reference(path.toStdString())) {
    std::string file;
    try {
      file = resolve_architecture_file(path.toStdString(), SourceLocation{"profile", 0, 0});
    } catch (const InputError& e) {
      report(kError, QString::fromStdString(e.what()));
      return false;
    }
    return what_if_->openArchitecture(QString::fromStdString(file));
  }
  const QFileInfo info(path);
  if (!info.exists()) {
    report(kError, tr("%1: no such file").arg(path));
    return false;
  }
  if (info.isDir()) {
    if (is_trace_path(path)) {
      trace_analysis_->open({path});
      return true;
    }
    report(kError, tr("%1: a folder without traces; expected a folder of per-rank traces "
                      "(.json, .json.gz, .sqlite)")
                       .arg(path));
    return false;
  }
  const QString suffix = info.suffix().toLower();
  if (is_sqlite_file(path.toStdString())) return runs_->openResults(path);
  if (suffix == "csv") return runs_->openMeasurementCsv(path);
  if (suffix == "json") return openSimulation(path);
  // YAML that does not parse is reported where the parser stopped (a file:1:1 here hid the
  // line at fault). A file without a kind, or of a kind the GUI does not open, gets the message
  // below, which lists what the GUI opens (core's own lists what `validate` checks).
  std::optional<YamlSource> source;
  try {
    source = YamlSource::load(path.toStdString());
  } catch (const InputError& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  std::string kind;
  SourceLocation kind_at{path.toStdString(), 1, 1};
  try {
    kind = kind_of(*source);
    kind_at = source->where(source->root()["kind"]);
  } catch (const InputError& e) {
    kind_at = e.where();
  }
  source.reset();  // each loader reads the file itself
  if (kind == "architecture") return what_if_->openArchitecture(path);
  if (kind == "workload") return what_if_->openWorkload(path);
  if (kind == "workspace") return openWorkspace(path);
  report(kError, tr("%1: not a file tilescope-gui opens (expected kind: architecture, workload "
                    "or workspace, a results database, a CSV of measurements or a simulation "
                    ".json)")
                     .arg(QString::fromStdString(format_location(kind_at))));
  return false;
}

bool Workbench::openSimulation(const QString& path) {
  // A profiler's trace is Chrome-trace JSON as a simulation's timeline is: drawn as one, its
  // kernels would be pipeline stages. Told apart by what only profilers write (TraceFileKind).
  if (const std::string format = trace_format_of(path.toStdString()); !format.empty()) {
    report(kError, tr("%1: a profiler's trace (%2), not a simulation; File > Import trace reads "
                      "it, and the Trace page analyses it")
                       .arg(path, QString::fromStdString(format)));
    return false;
  }
  // A simulation file is small (one trace event per task of one iteration): read it here.
  try {
    simulation_ = load_simulation_timeline(path.toStdString());
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  simulation_path_ = path;
  report(kInfo, tr("simulation %1: %2 tracks").arg(path).arg(simulation_.tracks.size()));
  Q_EMIT simulationChanged();
  return true;
}

void Workbench::setTraceTimeline(SimulationTimeline trace, QString note) {
  trace_timeline_ = std::move(trace);
  trace_note_ = std::move(note);
  Q_EMIT simulationChanged();
}

SimulationTimeline Workbench::timeline() const {
  return views::merged_timeline(simulation_, trace_timeline_);
}

bool Workbench::openWorkspace(const QString& path) {
  // core's loader refuses wrong types, unknown keys and workspaces that name workspaces at their
  // place; each member then opens by its role, so that no workspace opens another.
  Workspace workspace;
  try {
    workspace = load_workspace(path.toStdString());
  } catch (const std::exception& e) {
    report(kError, QString::fromStdString(e.what()));
    return false;
  }
  const auto file = [](const std::optional<WorkspaceMember>& member) {
    return QString::fromStdString(member->path);
  };
  bool ok = true;
  if (workspace.architecture) ok = what_if_->openArchitecture(file(workspace.architecture)) && ok;
  if (workspace.workload) ok = what_if_->openWorkload(file(workspace.workload)) && ok;
  if (workspace.results) {
    const QString results = file(workspace.results);
    ok = (is_sqlite_file(results.toStdString()) ? runs_->openResults(results)
                                                : runs_->openMeasurementCsv(results)) &&
         ok;
  }
  if (workspace.simulation) ok = openSimulation(file(workspace.simulation)) && ok;
  return ok;
}

bool Workbench::saveWorkspace(const QString& path) {
  const auto member = [](const QString& file) -> std::optional<WorkspaceMember> {
    if (file.isEmpty()) return std::nullopt;
    return WorkspaceMember{file.toStdString(), {}};
  };
  Workspace workspace;
  workspace.architecture = member(what_if_->architecturePath());
  workspace.workload = member(what_if_->workloadPath());
  workspace.results = member(runs_->resultsPath());
  workspace.simulation = member(simulation_path_);
  if (const QString refused = output_over_open_files(path, tr("the workspace"), openFiles());
      !refused.isEmpty()) {
    report(kError, refused);
    return false;
  }
  try {
    write_workspace(workspace, path.toStdString());
  } catch (const InputError& e) {
    report(kError, tr("%1: cannot write the workspace (%2)").arg(path, e.message().c_str()));
    return false;
  } catch (const std::exception& e) {  // the working folder gone (std::filesystem::absolute)
    report(kError, tr("%1: cannot write the workspace (%2)").arg(path, e.what()));
    return false;
  }
  report(kInfo, tr("saved the workspace as %1").arg(path));
  return true;
}

std::vector<NamedPath> Workbench::openFiles() const {
  std::vector<NamedPath> open;
  const auto add = [&open](const char* what, const QString& path) {
    if (!path.isEmpty()) open.push_back({what, path.toStdString()});
  };
  add("the graph", what_if_->architecturePath());
  add("the workload", what_if_->workloadPath());
  const QString results = runs_->resultsPath();
  add(is_sqlite_file(results.toStdString()) ? "the results database" : "the measurements", results);
  add("the simulation", simulation_path_);
  for (const QString& trace : trace_analysis_->paths()) add("the trace", trace);
  return open;
}

bool Workbench::busy() const { return work_->busy(); }

void Workbench::cancel() {
  // The mapper looks at its flag inside a search; the futures only between operators or rows.
  what_if_->stopSearches();
  work_->cancel();
}

void Workbench::waitForIdle() { work_->waitForIdle(); }

}  // namespace ts::gui
