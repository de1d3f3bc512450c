#pragma once

#include "operations/deadletters.h"
#include "operations/ledgerbalancecheck.h"
#include "operations/queueoverview.h"

#include <QDateTime>
#include <QMetaType>

namespace lantern {

/** One read of the Queues view: the overview `lanternd queues` prints, the non-empty
    dead-letter lists and the workers' last ledger check, stamped with when it was read. */
struct QueueSnapshot {
    QueueOverview overview;
    QList<DeadLetterList> deadLetterLists;
    std::optional<LedgerCheckResult> ledger;  // gone when no worker checked for a while
    int heartbeatTtlS = 15;
    qint64 readAtMs = 0;
};

} // namespace lantern

Q_DECLARE_METATYPE(lantern::QueueSnapshot)
Q_DECLARE_METATYPE(lantern::DeadLetterPage)
