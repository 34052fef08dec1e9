#include "BackgroundWork.hpp"

#include <QEventLoop>
#include <QFutureWatcher>
#include <QLocale>
#include <QTimer>

namespace ts::gui {

BackgroundWork::BackgroundWork(QObject* parent) : QObject(parent) {}

void BackgroundWork::track(QFutureWatcherBase* watcher, const QString& what, const QString& unit) {
  const bool was_busy = busy();
  running_.append(watcher);
  connect(watcher, &QFutureWatcherBase::progressValueChanged, this,
          [this, watcher, what, unit](int value) {
            const int total = watcher->progressMaximum();
            if (total <= 0) return;  // started, its size not known yet
            Q_EMIT progressChanged(unit.isEmpty() ? what
                                                  : tr("%1: %2 of %3 %4")
                                                        .arg(what, QLocale().toString(value),
                                                             QLocale().toString(total), unit),
                                   value, total);
          });
  if (!was_busy) Q_EMIT busyChanged(true);
}

void BackgroundWork::untrack(QFutureWatcherBase* watcher) {
  running_.removeAll(watcher);
  running_.removeAll(nullptr);
  watcher->deleteLater();
  if (!busy()) Q_EMIT busyChanged(false);
}

bool BackgroundWork::busy() const {
  for (const auto& w : running_)
    if (w && !w->isFinished()) return true;
  return false;
}

void BackgroundWork::cancel() {
  for (const auto& w : running_)
    if (w) w->cancel();
}

void BackgroundWork::waitForIdle() {
  // Finished futures still deliver their results through queued signals: spin the event loop
  // until every watcher has said so.
  while (busy() || !running_.isEmpty()) {
    QEventLoop loop;
    QObject::connect(this, &BackgroundWork::busyChanged, &loop, &QEventLoop::quit);
    QTimer::singleShot(50, &loop, &QEventLoop::quit);
    loop.exec();
    running_.removeAll(nullptr);
  }
}

}  // namespace ts::gui
