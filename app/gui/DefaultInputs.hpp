#pragma once
// What tilescope-gui opens when given nothing: the Ascend 910B3 graph, the BERT-base suite, and
// the newest results database in the working folder (or its out/, where scripts/run writes one).
#include <QString>
#include <QStringList>

namespace ts::gui {

// The bundled samples folder: ./samples, else the source tree's (a build run from anywhere).
QString samples_folder(const QString& working_dir);
// The newest *.sqlite in the folder or its out/; empty when none.
QString newest_results_database(const QString& working_dir);
QStringList default_inputs(const QString& working_dir);

}  // namespace ts::gui
