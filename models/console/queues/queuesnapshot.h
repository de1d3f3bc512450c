#pragma once

#include "operations/deadletters.h"
#include "operations/queueoverview.h"

#include <QDateTime>
#include <QMetaType>

namespace lantern {

/** One read of the Queues view: the overview `lanternd queues` prints and the non-empty
    dead-letter lists, stamped with when it was read. */
struct QueueSnapshot {
    QueueOverview overview;
    QList<DeadLetterList> deadLetterLists;
    int heartbeatTtlS = 15;
    qint64 readAtMs = 0;
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::QueueSnapshot)
Q_DECLARE_METATYPE(lantern::DeadLetterPage)
