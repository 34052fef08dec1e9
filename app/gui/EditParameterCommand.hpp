#pragma once
// One edit of a graph parameter on the undo stack: redo sets the new value, undo the old one,
// each through the workbench so that the what-if re-evaluation follows either way.
#include <QString>
#include <QUndoCommand>

namespace ts::gui {

class Workbench;

class EditParameterCommand : public QUndoCommand {
 public:
  EditParameterCommand(Workbench* workbench, QString path, double before, double after);
  void undo() override;
  void redo() override;

 private:
  Workbench* workbench_;
  QString path_;
  double before_, after_;
};

}  // namespace ts::gui
