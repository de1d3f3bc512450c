#pragma once

#include "console/queues/queuejobrunner.h"
#include "console/queues/queuesnapshot.h"

namespace lantern {

/** The Queues view's Redis and SQL work, on a thread of its own (see QueueJobRunner): the queue
    overview, pages of a dead-letter list, and retry/discard of dead letters (audited, in batches
    of BatchSize, cancellable). Requests are queued slot calls; answers are queued signals
    carrying the request's serial. */
class QueueService final : public QueueJobRunner {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueService)

public:
    static constexpr int BatchSize = 100;

    explicit QueueService(Config config, QObject *parent = nullptr);
    ~QueueService() override;

public Q_SLOTS:
    void load(quint64 serial);
    /** `count` entries from `offset` (bounded by DeadLetters::MaxPage) of the list sorted by
        `column` (a DeadLetterModel::Column; Position ascending: newest first). Another column
        than Position reads the whole list and sorts it here; a list deeper than
        DeadLetters::SortableDepth is answered in position order instead (the answer says which). */
    void loadDeadLetters(quint64 serial, const QString &list, qint64 offset, int count, int column, bool descending);
    /** Retries (`retry`) or discards the given entries of `list`, or the whole list when
        `wholeList` (oldest first, at most the depth it had when the job started). */
    void runDeadLetterJob(quint64 job, bool retry, const QString &list, const QByteArrayList &entries, bool wholeList,
                          const QString &operatorName);
    /** Edit-before-retry of one entry of `list`, as a job of one step: `entry` leaves the list
        and `edited` goes on the queue instead, audited. */
    void retryEdited(quint64 job, const QString &list, const QByteArray &entry, const QByteArray &edited, const QString &operatorName);

Q_SIGNALS:
    void loaded(quint64 serial, const lantern::QueueSnapshot &snapshot);
    void loadFailed(quint64 serial, const QString &message, const QString &detail);
    /** `column`/`descending`: the order the page was read in. */
    void deadLettersLoaded(quint64 serial, const lantern::DeadLetterPage &page, int column, bool descending);
    void deadLettersFailed(quint64 serial, const QString &message, const QString &detail);
};

} // namespace lantern
