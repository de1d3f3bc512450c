#include "redis/keyschema.h"

#include "core/datetext.h"
#include "core/errors.h"

#include <QRegularExpression>

namespace lantern {


KeySchema::KeySchema(const QString &prefix, int shards, qint64 denseUids) : m_prefix(prefix.toUtf8()), m_shards(shards), m_denseUids(denseUids)
{
    static const QRegularExpression validPrefix(QStringLiteral("^[A-Za-z0-9_.:-]{0,32}$"));
    if (!validPrefix.match(prefix).hasMatch())
        throw InvalidInputError(tr("invalid key prefix '%1': use up to 32 of A-Z a-z 0-9 _ . : -").arg(prefix));
    if (shards < 1 || shards > 16384)
        throw InvalidInputError(tr("invalid shard count %1: expected 1..16384").arg(shards));
    if (denseUids < 0 || denseUids > (qint64(1) << 40))
        throw InvalidInputError(tr("invalid dense uid bound %1: expected 0..2^40").arg(denseUids));
}

void KeySchema::validateWorkerId(const QString &workerId)
{
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z0-9_.-]{1,64}$"));
    if (!valid.match(workerId).hasMatch())
        throw InvalidInputError(tr("invalid worker id '%1': use 1 to 64 of A-Z a-z 0-9 _ . -").arg(workerId));
}

QByteArray KeySchema::checkinTag(int shard) const
{
    return m_prefix + "{ck:" + QByteArray::number(shard) + "}:";
}

QByteArray KeySchema::monthBlock(int shard, qint64 block, QDate month) const
{
    return checkinTag(shard) + "mb:" + QByteArray::number(block) + ':' + compactMonth(month);
}

QByteArray KeySchema::makeupMarks(int shard, qint64 block, int group, QDate month) const
{
    return checkinTag(shard) + "mk:" + QByteArray::number(block) + ':' + QByteArray::number(group) + ':' + compactMonth(month);
}

QByteArray KeySchema::monthBlocks(int shard, QDate month) const
{
    return checkinTag(shard) + "blocks:" + compactMonth(month);
}

QByteArray KeySchema::sparseMonth(int shard, int bucket, QDate month) const
{
    return checkinTag(shard) + "sp:" + QByteArray::number(bucket) + ':' + compactMonth(month);
}

QByteArray KeySchema::checkinTagPattern() const
{
    return m_prefix + "{ck:*}:";
}

QByteArray KeySchema::signBits(qint64 uid, QDate month) const
{
    return checkinTag(shardOf(uid)) + "sign:" + QByteArray::number(uid) + ':' + compactMonth(month);
}

QByteArray KeySchema::makeupBits(qint64 uid, QDate month) const
{
    return checkinTag(shardOf(uid)) + "makeup:" + QByteArray::number(uid) + ':' + compactMonth(month);
}

QByteArray KeySchema::daySet(int shard, QDate day) const
{
    return checkinTag(shard) + "day:" + compactDay(day);
}

QByteArray KeySchema::checkinQueue(int shard) const
{
    return checkinTag(shard) + "queue";
}

QByteArray KeySchema::checkinBackup(int shard, const QString &workerId) const
{
    return checkinTag(shard) + "backup:" + workerId.toUtf8();
}

QByteArray KeySchema::checkinDeadLetter(int shard) const
{
    return checkinTag(shard) + "dead";
}

QByteArray KeySchema::campaignTag(qint64 campaignId) const
{
    return m_prefix + "{cp:" + QByteArray::number(campaignId) + "}:";
}

QByteArray KeySchema::campaignMeta(qint64 campaignId) const
{
    return campaignTag(campaignId) + "meta";
}

QByteArray KeySchema::campaignPool(qint64 campaignId) const
{
    return campaignTag(campaignId) + "pool";
}

QByteArray KeySchema::campaignDraws(qint64 campaignId) const
{
    return campaignTag(campaignId) + "draws";
}

QByteArray KeySchema::campaignAttempts(qint64 campaignId) const
{
    return campaignTag(campaignId) + "attempts";
}

QByteArray KeySchema::campaignTasks(qint64 campaignId) const
{
    return campaignTag(campaignId) + "tasks";
}

QByteArray KeySchema::campaignBackup(qint64 campaignId, const QString &workerId) const
{
    return campaignTag(campaignId) + "backup:" + workerId.toUtf8();
}

QByteArray KeySchema::campaignDeadLetter(qint64 campaignId) const
{
    return campaignTag(campaignId) + "dead";
}

QByteArray KeySchema::campaignRefused(qint64 campaignId) const
{
    return campaignTag(campaignId) + "refused";
}

QByteArray KeySchema::campaignRepairLock(qint64 campaignId) const
{
    return campaignTag(campaignId) + "repair";
}

QByteArray KeySchema::campaignRepairStaging(qint64 campaignId, const QByteArray &what) const
{
    return campaignTag(campaignId) + "repair:" + what;
}

QByteArray KeySchema::campaignSet() const
{
    return m_prefix + "campaigns";
}

QByteArray KeySchema::workerHeartbeat(const QString &workerId) const
{
    return m_prefix + "worker:" + workerId.toUtf8();
}

QByteArray KeySchema::workerPayouts(const QString &workerId) const
{
    return workerHeartbeat(workerId) + ":payouts";
}

QByteArray KeySchema::workerSet() const
{
    return m_prefix + "workers";
}

QByteArray KeySchema::featureSwitches() const
{
    return m_prefix + "switches";
}

} // namespace lantern
