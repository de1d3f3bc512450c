#include "console/queues/queueservice.h"

#include "console/queues/deadlettermodel.h"
#include "console/queues/queueformat.h"
#include "operations/workerheartbeat.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <algorithm>
#include <memory>

namespace lantern {

QueueService::QueueService(Config config, QObject *parent) : QueueJobRunner(std::move(config), parent)
{
    qRegisterMetaType<lantern::QueueSnapshot>();
    qRegisterMetaType<lantern::DeadLetterPage>();
}

QueueService::~QueueService() = default;

void QueueService::load(quint64 serial)
{
    try {
        QueueSnapshot snapshot;
        snapshot.readAtMs = nowMs();
        snapshot.overview = QueueOverview::read(redis(), keys(), snapshot.readAtMs);
        snapshot.deadLetterLists = DeadLetters(redis(), keys()).lists();
        snapshot.ledger = LedgerBalanceCheck::read(redis(), keys());  // one GET, for the console's alerts
        try {
            snapshot.heartbeatTtlS = WorkerHeartbeat::configuredTtlSeconds();
        } catch (const InvalidInputError &) {
        }
        Q_EMIT loaded(serial, snapshot);
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error);
        Q_EMIT loadFailed(serial, message, detail);
    }
}

void QueueService::loadDeadLetters(quint64 serial, const QString &list, qint64 offset, int count, int column, bool descending)
{
    try {
        DeadLetters deadLetters(redis(), keys());
        if (DeadLetterModel::needsWholeList(column)) {
            if (const auto whole = deadLetters.whole(list)) {
                const Qt::SortOrder order = descending ? Qt::DescendingOrder : Qt::AscendingOrder;
                Q_EMIT deadLettersLoaded(serial, DeadLetterModel::sortedSlice(*whole, column, order, offset, count), column, descending);
                return;
            }
            column = DeadLetterModel::Position;  // too deep to sort here: position order, newest first
            descending = false;
            offset = 0;
        }
        Q_EMIT deadLettersLoaded(serial, descending ? deadLetters.oldestFirstPage(list, offset, count) : deadLetters.page(list, offset, count),
                                 column, descending);
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error);
        Q_EMIT deadLettersFailed(serial, message, detail);
    }
}

void QueueService::runDeadLetterJob(quint64 job, bool retry, const QString &list, const QByteArrayList &entries, bool wholeList,
                                    const QString &operatorName)
{
    struct State {
        QByteArrayList pending;  // chosen entries not yet sent
        qint64 total = 0;
        qint64 done = 0;         // entries looked at
        qint64 acted = 0;        // entries that were there and moved
        qint64 unreadable = 0;   // left in the list: a retry never sends back what no worker can read
        bool started = false;
    };
    auto state = std::make_shared<State>();
    state->pending = entries;
    const DeadLetterAction action = retry ? DeadLetterAction::Retry : DeadLetterAction::Discard;
    const QString actor = operatorName.trimmed();
    auto step = [this, state, action, list, wholeList, actor]() -> QueueJobStep {
        DeadLetters deadLetters(redis(), keys());
        if (!state->started) {
            state->started = true;
            deadLetters.list(list);  // an unknown list fails before anything moves
            if (actor.isEmpty())
                throw InvalidInputError(tr("an operator name is required"));
            state->total = wholeList ? deadLetters.page(list, 0, 1).depth : state->pending.size();
        }
        QByteArrayList batch;
        const qint64 skip = state->unreadable;
        if (wholeList) {
            const qint64 left = state->total - state->done;
            // The unreadable entries it left stay at the oldest end: the next batch starts after them.
            if (left > 0)
                batch = deadLetters.oldest(list, int(std::min<qint64>(left, BatchSize)), skip);
        } else {
            batch = state->pending.mid(0, BatchSize);
            state->pending.remove(0, batch.size());
        }
        const qsizetype taken = batch.size();
        state->done += taken;
        QList<bool> take;
        for (const QByteArray &entry : std::as_const(batch))
            take << (action != DeadLetterAction::Retry || DeadLetters::isReadable(list, entry));
        state->unreadable += take.count(false);
        state->acted += applyDeadLetterBatchAudited(deadLetters, sql(), action, list, skip, batch, take, wholeList, actor, QStringLiteral("console"),
                                                    nowMs());
        const bool finished = taken == 0 || state->done >= state->total;
        return {std::min(state->done, state->total), state->total, finished};
    };
    auto summary = [state, retry, list](bool cancelled) {
        const int acted = int(state->acted);
        const int unreadable = int(state->unreadable);
        const int skipped = int(state->done - state->acted - state->unreadable);
        // Named as the table names it ("Payouts, campaign 2"), not by its key ("payout:2").
        const QString title = QueueFormat::queueTitle(list);
        QString words = retry ? tr("%n entry(s) of “%1” put back on the queue.", nullptr, acted).arg(title)
                              : tr("%n entry(s) of “%1” discarded.", nullptr, acted).arg(title);
        if (unreadable > 0)
            words += QLatin1Char(' ')
                     + tr("%n unreadable entry(s) left in the list: a worker could not read them. Edit or discard them.", nullptr, unreadable);
        if (skipped > 0)
            words += QLatin1Char(' ') + tr("%n were no longer there (taken meanwhile).", nullptr, skipped);
        if (cancelled)
            words += QLatin1Char(' ') + tr("Cancelled before the end; the rest is untouched.");
        return words;
    };
    startJob(job, access::Action::DeadLetters, std::move(step), std::move(summary));
}

void QueueService::retryEdited(quint64 job, const QString &list, const QByteArray &entry, const QByteArray &edited, const QString &operatorName)
{
    auto replaced = std::make_shared<bool>(false);
    const QString actor = operatorName.trimmed();
    auto step = [this, replaced, list, entry, edited, actor]() -> QueueJobStep {
        if (actor.isEmpty())
            throw InvalidInputError(tr("an operator name is required"));
        DeadLetters deadLetters(redis(), keys());
        *replaced = retryEditedDeadLetterAudited(deadLetters, sql(), list, entry, edited, actor, QStringLiteral("console"), nowMs());
        return {1, 1, true};
    };
    auto summary = [replaced, list](bool) {
        return *replaced ? tr("The edited entry is back on the queue of “%1”.").arg(QueueFormat::queueTitle(list))
                         : tr("The entry was no longer in “%1” (taken meanwhile); nothing was queued.").arg(QueueFormat::queueTitle(list));
    };
    startJob(job, access::Action::DeadLetters, std::move(step), std::move(summary));
}

} // namespace lantern
