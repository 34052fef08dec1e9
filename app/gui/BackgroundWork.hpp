#pragma once
// The futures tilescope-gui has running off the GUI thread, whichever part started them (the
// what-if session's mapper runs, the run browser's loads): one busy state, one progress line and
// one Cancel for all of them, as the status bar shows them.
#include <QList>
#include <QObject>
#include <QPointer>
#include <QString>

class QFutureWatcherBase;

namespace ts::gui {

class BackgroundWork : public QObject {
  Q_OBJECT
 public:
  explicit BackgroundWork(QObject* parent = nullptr);

  // From start to finish of `watcher`'s future; its progress is reported as `what`, or as
  // "what: done of total unit" with a unit. The owner calls untrack once it has taken the result
  // (which deletes the watcher later).
  void track(QFutureWatcherBase* watcher, const QString& what, const QString& unit = {});
  void untrack(QFutureWatcherBase* watcher);

  bool busy() const;
  // Cancels every future; each stops at its next progress step (see cancel() of its owner for the
  // searches that look at a flag of their own).
  void cancel();
  // Blocks, spinning the event loop, until no tracked watcher is left (tests, --quit-after-load).
  void waitForIdle();

 Q_SIGNALS:
  void progressChanged(const QString& what, int done, int total);
  void busyChanged(bool busy);

 private:
  QList<QPointer<QFutureWatcherBase>> running_;
};

}  // namespace ts::gui
