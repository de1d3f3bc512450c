#include "queue/queuepipeline.h"

#include "queue/backuptally.h"
#include "queue/reliablequeue.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <algorithm>

namespace lantern {

namespace {
const QByteArray OldestFirst = QByteArrayLiteral("-1");  // LREM count: one occurrence, from the tail
} // namespace

void QueuePipeline::acknowledge(const ReliableQueue &queue, const QByteArrayList &entries)
{
    if (!entries.isEmpty())
        m_acknowledgements << ReliableQueue::acknowledgeScript().evalshaCommand({queue.backupKey()}, entries);
}

void QueuePipeline::retryLater(const ReliableQueue &queue, const QByteArray &entry)
{
    m_moves << QByteArrayList{QByteArrayLiteral("LPUSH"), queue.queueKey(), entry}
            << QByteArrayList{QByteArrayLiteral("LREM"), queue.backupKey(), OldestFirst, entry};
}

void QueuePipeline::deadLetter(const ReliableQueue &queue, const QByteArray &entry, const DeadLetterNote &note)
{
    m_moves << QByteArrayList{QByteArrayLiteral("LPUSH"), queue.deadLetterKey(), entry}
            << QByteArrayList{QByteArrayLiteral("HSET"), DeadLetterNote::notesKey(queue.deadLetterKey()), entry, note.toJson()}
            << QByteArrayList{QByteArrayLiteral("LREM"), queue.backupKey(), OldestFirst, entry};
}

int QueuePipeline::readBackup(const ReliableQueue &queue)
{
    m_reads.push_back({false, {QByteArrayLiteral("LRANGE"), queue.backupKey(), QByteArrayLiteral("0"), QByteArrayLiteral("-1")}});
    return static_cast<int>(m_reads.size() - 1);
}

int QueuePipeline::claim(const ReliableQueue &queue, int max)
{
    m_reads.push_back({true, ReliableQueue::claimScript().evalshaCommand({queue.queueKey(), queue.backupKey()}, {QByteArray::number(max)})});
    return static_cast<int>(m_reads.size() - 1);
}

void QueuePipeline::countRemovals(const std::vector<RedisValue> &replies, const std::vector<qint64> &acknowledged, BackupTally &tally) const
{
    // Each LREM's reply is what it removed: an entry someone else took meanwhile counts nothing.
    if (!m_moves.isEmpty()) {
        const size_t exec = static_cast<size_t>(m_moves.size()) + 1;  // MULTI, QUEUED per move; then EXEC's array
        const std::vector<RedisValue> &done = replies[exec].elements;
        for (qsizetype i = 0; i < m_moves.size() && size_t(i) < done.size(); ++i) {
            if (m_moves[i].first() == "LREM")
                tally.change(m_moves[i][1], -done[size_t(i)].toInteger());
        }
    }
    // acknowledge.lua's reply likewise (EVALSHA sha 1 backup entries...).
    for (qsizetype i = 0; i < m_acknowledgements.size(); ++i)
        tally.change(m_acknowledgements[i][3], -acknowledged[size_t(i)]);
}

bool QueuePipeline::isEmpty() const
{
    return m_moves.isEmpty() && m_acknowledgements.isEmpty() && m_reads.empty();
}

void QueuePipeline::run(RedisClient &redis, BackupTally *tally)
{
    m_results.assign(m_reads.size(), {});
    if (isEmpty())
        return;
    QList<QByteArrayList> commands;
    if (!m_moves.isEmpty())
        commands << QByteArrayList{QByteArrayLiteral("MULTI")} << m_moves << QByteArrayList{QByteArrayLiteral("EXEC")};
    commands << m_acknowledgements;
    const qsizetype firstRead = commands.size();
    for (const Read &read : m_reads)
        commands << read.command;
    const std::vector<RedisValue> replies = redis.pipeline(commands);

    const qsizetype firstAcknowledgement = firstRead - m_acknowledgements.size();
    std::vector<qint64> acknowledged;  // what each acknowledgement removed
    acknowledged.reserve(static_cast<size_t>(m_acknowledgements.size()));
    for (qsizetype i = 0; i < firstRead; ++i) {
        const RedisValue &reply = replies[static_cast<size_t>(i)];
        if (i >= firstAcknowledgement && reply.isError() && reply.string.startsWith("NOSCRIPT")) {
            // A fresh or flushed server: the acknowledgement runs again on its own, loading the script.
            const QByteArrayList &command = m_acknowledgements.at(i - firstAcknowledgement);
            acknowledged.push_back(ReliableQueue::acknowledgeScript().run(redis, {command[3]}, command.mid(4)).toInteger());
            continue;
        }
        throwOnErrorReply(reply);
        if (i >= firstAcknowledgement)
            acknowledged.push_back(reply.toInteger());
    }
    if (tally)
        countRemovals(replies, acknowledged, *tally);
    for (size_t r = 0; r < m_reads.size(); ++r) {
        const RedisValue &reply = replies[static_cast<size_t>(firstRead) + r];
        if (reply.isError() && m_reads[r].claim && reply.string.startsWith("NOSCRIPT")) {
            // A fresh or flushed server: the claim runs again on its own, loading the script.
            const QByteArrayList &command = m_reads[r].command;
            m_results[r] = ReliableQueue::claimScript().run(redis, {command[3], command[4]}, {command[5]}).toBytesList();
            continue;
        }
        throwOnErrorReply(reply);
        QByteArrayList entries = reply.toBytesList();
        if (!m_reads[r].claim)
            std::reverse(entries.begin(), entries.end());  // the backup list grows on the left
        m_results[r] = std::move(entries);
    }
    // In the order Redis ran them: a whole read sets a list's count, a claim after it adds.
    for (size_t r = 0; tally && r < m_reads.size(); ++r) {
        const QByteArrayList &command = m_reads[r].command;
        if (m_reads[r].claim)
            tally->change(command[4], m_results[r].size());  // EVALSHA sha 2 queue backup max
        else
            tally->held(command[1], m_results[r].size());  // LRANGE backup 0 -1
    }
    m_moves.clear();
    m_acknowledgements.clear();
    m_reads.clear();
}

} // namespace lantern
