#pragma once
// Every Qt target of tilescope builds with QT_NO_KEYWORDS, since the engine uses `slots` as a
// name (NodeScratch::slots). qcustomplot.h still writes `signals:`, `slots:`, `emit` and
// `foreach`: lend it the keywords for its own header only.
#ifdef QT_NO_KEYWORDS
#include <QtGlobal>
#define signals Q_SIGNALS
#define slots Q_SLOTS
#define emit Q_EMIT
#define foreach Q_FOREACH
#include <qcustomplot.h>
#undef signals
#undef slots
#undef emit
#undef foreach
#else
#include <qcustomplot.h>
#endif
