#pragma once
// One edit of a graph parameter on the undo stack: redo sets the new value, undo the old one,
// each through the what-if session so that the what-if re-evaluation follows either way.
#include <QString>
#include <QUndoCommand>

namespace ts::gui {

class WhatIfSession;

class EditParameterCommand : public QUndoCommand {
 public:
  EditParameterCommand(WhatIfSession* session, QString path, double before, double after);
  void undo() override;
  void redo() override;

 private:
  WhatIfSession* session_;
  QString path_;
  double before_, after_;
};

}  // namespace ts::gui
