#pragma once
// What tilescope-gui opens when given nothing (its first start). When scripts/run's outputs are
// in the working folder (out/host.yaml and out/host-results.sqlite), the calibrated host graph,
// the workload its most interesting run measured and that database, so that the Operators page's
// "measured" and "error" columns fill. Otherwise the Ascend 910B3 graph, the BERT-base suite and
// the newest results database in the working folder (or its out/); a database whose runs do not
// fit them is explained on screen (RunBrowser::measurementNote).
#include <QString>
#include <QStringList>

namespace ts::gui {

// The bundled samples folder: ./samples, else the source tree's (a build run from anywhere).
QString samples_folder(const QString& working_dir);
// The newest *.sqlite in the folder or its out/; empty when none.
QString newest_results_database(const QString& working_dir);
// The workload file the database's most interesting run (most_interesting_run, on the graph
// of `arch_hash`) recorded, resolved against the working folder, when it still exists; else
// empty. Empty also for a database that cannot be read (the workbench reports that when it
// opens it).
QString measured_workload_file(const QString& database, const QString& arch_hash,
                               const QString& working_dir);
QStringList default_inputs(const QString& working_dir);

}  // namespace ts::gui
