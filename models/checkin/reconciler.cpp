#include "checkin/reconciler.h"

#include "checkin/checkinentry.h"
#include "checkin/checkinstore.h"
#include "checkin/streakcalculator.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

namespace lantern {

Reconciler::Reconciler(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const CheckinRules &rules)
    : m_redis(redis), m_sql(sql), m_keys(keys), m_rules(rules)
{
}

QList<qint64> Reconciler::redisUids(QDate day)
{
    QList<qint64> uids;
    for (int shard = 0; shard < m_keys.shards(); ++shard) {
        QByteArray cursor = "0";
        do {
            const RedisValue reply = m_redis.command({QByteArrayLiteral("SSCAN"), m_keys.daySet(shard, day), cursor,
                                                      QByteArrayLiteral("COUNT"), QByteArrayLiteral("1000")});
            if (reply.elements.size() != 2)
                throw RedisReplyError(tr("unexpected SSCAN reply"));
            cursor = reply.elements[0].toBytes();
            for (const RedisValue &member : reply.elements[1].elements)
                uids << member.toInteger();
        } while (cursor != "0");
    }
    return uids;
}

ReconcileReport Reconciler::reconcile(QDate day, qint64 nowMs)
{
    ReconcileReport report;
    report.date = day;
    const QList<qint64> inRedis = redisUids(day);
    CheckinStore store(m_sql);
    const QSet<qint64> inSql = store.uidsOn(day);
    report.redisCount = inRedis.size();
    report.dbCount = inSql.size();

    QList<qint64> missing;
    for (qint64 uid : inRedis) {
        if (!inSql.contains(uid))
            missing << uid;
    }
    report.missing = missing.size();

    const QDate month(day.year(), day.month(), 1);
    const QDate previous = month.addMonths(-1);
    const bool rolling = m_rules.streakPolicy == StreakPolicy::Rolling;
    constexpr qsizetype Batch = 500;
    for (qsizetype start = 0; start < missing.size(); start += Batch) {
        const QList<qint64> batch = missing.mid(start, Batch);
        QList<QByteArrayList> commands;
        for (qint64 uid : batch)
            commands << monthBitfieldCommand(m_keys.signBits(uid, month), month) << monthBitfieldCommand(m_keys.makeupBits(uid, month), month)
                     << monthBitfieldCommand(m_keys.signBits(uid, previous), previous);
        const std::vector<RedisValue> replies = m_redis.pipeline(commands);
        QList<CheckinEntry> entries;
        for (qsizetype i = 0; i < batch.size(); ++i) {
            const auto bits = [&](qsizetype k) {
                const RedisValue &reply = replies.at(static_cast<size_t>(i * 3 + k));
                if (reply.isError())
                    throw RedisReplyError(QString::fromUtf8(reply.string));
                return reply.elements.at(0).toInteger();
            };
            const MonthBits signedBits = MonthBits::fromBitfield(month, bits(0));
            if (!signedBits.isSigned(day.day()))
                continue;  // in the set but not in the bitmap: nothing to back-fill
            const bool makeup = MonthBits::fromBitfield(month, bits(1)).isSigned(day.day());
            const QList<MonthBits> months{signedBits, MonthBits::fromBitfield(previous, bits(2))};
            const int streak = StreakCalculator::current(day, rolling ? months : months.mid(0, 1), m_rules.streakPolicy).streak;
            CheckinEntry entry;
            entry.uid = batch.at(i);
            entry.date = day;
            entry.kind = makeup ? QStringLiteral("makeup") : QStringLiteral("normal");
            entry.points = !makeup || m_rules.makeupGrantsPoints ? rewardFor(m_rules.rewards, streak) : 0;
            entry.operatorName = makeup ? QStringLiteral("reconcile") : QString();
            entry.reason = makeup ? QStringLiteral("back-filled by reconcile; original reason lost") : QString();
            entry.atMs = nowMs;
            entries << entry;
        }
        report.backfilled += store.persist(entries);
    }
    return report;
}

} // namespace lantern
