#include "redis/keyschema.h"

#include "core/datetext.h"
#include "core/errors.h"
#include "core/textwriter.h"

#include <QRegularExpression>

#include <initializer_list>

namespace lantern {

namespace {

/** "<prefix>{ck:<shard>}:<kind><n1>:<n2>:...:<yyyyMM>" in one allocation: a check-in's month keys
    are built per request in `lanternd serve` (issue 28). */
QByteArray checkinMonthKey(const QByteArray &prefix, int shard, const char *kind, std::initializer_list<qint64> numbers, QDate month)
{
    TextWriter key(prefix.size() + 32 + 21 * qsizetype(numbers.size()));
    key << prefix << "{ck:";
    key.number(shard) << "}:" << kind;
    for (const qint64 number : numbers)
        key.number(number) << ':';
    writeCompactMonth(key, month);
    return key.take();
}

} // namespace

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
    return checkinMonthKey(m_prefix, shard, "mb:", {block}, month);
}

QByteArray KeySchema::makeupMarks(int shard, qint64 block, int group, QDate month) const
{
    return checkinMonthKey(m_prefix, shard, "mk:", {block, group}, month);
}

QByteArray KeySchema::monthBlocks(int shard, QDate month) const
{
    return checkinTag(shard) + "blocks:" + compactMonth(month);
}

QByteArray KeySchema::sparseMonth(int shard, int bucket, QDate month) const
{
    return checkinMonthKey(m_prefix, shard, "sp:", {bucket}, month);
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

QByteArray KeySchema::campaignTag(const QByteArray &pool) const
{
    return m_prefix + "{cp:" + pool + "}:";
}

QByteArray KeySchema::campaignMeta(const QByteArray &pool) const
{
    return campaignTag(pool) + "meta";
}

QByteArray KeySchema::campaignPool(const QByteArray &pool) const
{
    return campaignTag(pool) + "pool";
}

QByteArray KeySchema::campaignDraws(const QByteArray &pool) const
{
    return campaignTag(pool) + "draws";
}

QByteArray KeySchema::campaignAttempts(const QByteArray &pool) const
{
    return campaignTag(pool) + "attempts";
}

QByteArray KeySchema::campaignTasks(const QByteArray &pool) const
{
    return campaignTag(pool) + "tasks";
}

QByteArray KeySchema::campaignBackup(const QByteArray &pool, const QString &workerId) const
{
    return campaignTag(pool) + "backup:" + workerId.toUtf8();
}

QByteArray KeySchema::campaignDeadLetter(const QByteArray &pool) const
{
    return campaignTag(pool) + "dead";
}

QByteArray KeySchema::campaignRefused(const QByteArray &pool) const
{
    return campaignTag(pool) + "refused";
}

QByteArray KeySchema::campaignRepairLock(const QByteArray &pool) const
{
    return campaignTag(pool) + "repair";
}

QByteArray KeySchema::campaignRepairStaging(const QByteArray &pool, const QByteArray &what) const
{
    return campaignTag(pool) + "repair:" + what;
}

QByteArray KeySchema::campaignLent(const QByteArray &pool) const
{
    return campaignTag(pool) + "lent";
}

QByteArray KeySchema::campaignSet() const
{
    return m_prefix + "campaigns";
}

QByteArray KeySchema::retiredCampaignSet() const
{
    return m_prefix + "campaigns:retired";
}

QByteArray KeySchema::retirementLock() const
{
    return m_prefix + "campaigns:retiring";
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

QByteArray KeySchema::ledgerCheck() const
{
    return m_prefix + "ledger:check";
}

QByteArray KeySchema::ledgerCheckTurn() const
{
    return m_prefix + "ledger:check:turn";
}

QByteArray KeySchema::keptMonthStats(QDate month) const
{
    return m_prefix + "stats:month:" + month.toString(QStringLiteral("yyyy-MM")).toLatin1();
}

QByteArray KeySchema::keptMonthStatsTurn() const
{
    return m_prefix + "stats:month:turn";
}

} // namespace lantern
