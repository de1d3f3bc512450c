#include "operations/ledgerbalancecheck.h"

#include "envelope/campaignpools.h"
#include "envelope/poolcounters.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"

#include <QMap>
#include <QSqlQuery>

namespace lantern {

namespace {

/** What the ledger holds of one campaign. */
struct LedgerSide {
    qint64 totalCents = 0;
    qint64 count = 0;
    qint64 grabs = 0;
    qint64 grabbedCents = 0;
};

QMap<qint64, LedgerSide> openCampaigns(SqlConnection &sql)
{
    QMap<qint64, LedgerSide> campaigns;
    // The grabs from the ledger's running tally (LedgerTally: a few rows per campaign, issue 26).
    QSqlQuery rows = sql.exec(QStringLiteral("SELECT c.id, c.total_cents, c.count, COALESCE(SUM(t.grab_rows), 0), COALESCE(SUM(t.grab_cents), 0) "
                                             "FROM campaign c LEFT JOIN ledger_tally t ON t.campaign_id = c.id "
                                             "WHERE c.status IN ('live', 'paused') GROUP BY c.id, c.total_cents, c.count"));
    while (rows.next())
        campaigns.insert(rows.value(0).toLongLong(),
                         {rows.value(1).toLongLong(), rows.value(2).toLongLong(), rows.value(3).toLongLong(), rows.value(4).toLongLong()});
    return campaigns;
}

} // namespace

std::optional<LedgerCheckResult> LedgerBalanceCheck::runIfDue(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, const QString &workerId,
                                                       qint64 nowMs)
{
    if (nowMs < m_nextTryMs)
        return std::nullopt;
    m_nextTryMs = nowMs + IntervalMs;
    const RedisValue turn = redis.command({QByteArrayLiteral("SET"), keys.ledgerCheckTurn(), workerId.toUtf8(), QByteArrayLiteral("NX"),
                                           QByteArrayLiteral("PX"), QByteArray::number(IntervalMs)});
    throwOnErrorReply(turn);
    if (turn.isNil())
        return std::nullopt;  // another worker's turn in this interval
    return run(redis, sql, keys, nowMs);
}

LedgerCheckResult LedgerBalanceCheck::run(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, qint64 nowMs)
{
    const QMap<qint64, LedgerSide> ledger = openCampaigns(sql);
    QMap<qint64, QByteArrayList> pools;
    for (const QByteArray &pool : CampaignPools::launched(redis, keys)) {
        const qint64 id = *CampaignPools::campaignOf(pool);
        if (ledger.contains(id))
            pools[id] << pool;
    }
    QList<QByteArrayList> commands;
    QList<qint64> owners;
    for (auto it = pools.cbegin(); it != pools.cend(); ++it) {
        for (const QByteArray &pool : it.value()) {
            commands << PoolCounters::readCommand(keys, pool);
            owners << it.key();
        }
    }
    const std::vector<RedisValue> replies = commands.isEmpty() ? std::vector<RedisValue>{} : redis.pipeline(commands);
    struct RedisSide {
        bool held = true;
        qint64 grabs = 0;
        qint64 grabbedCents = 0;
    };
    QMap<qint64, RedisSide> held;
    for (size_t i = 0; i < replies.size(); ++i) {
        const PoolCounters counters = PoolCounters::fromReply(replies[i]);
        RedisSide &side = held[owners[qsizetype(i)]];
        if (!counters.inRedis()) {
            side.held = false;  // Redis lost the campaign, or one of its pools
            continue;
        }
        side.grabs += counters.grabbedCount;
        side.grabbedCents += counters.grabbedCents;
    }

    LedgerCheckResult result;
    result.atMs = nowMs;
    QByteArray text = QByteArray::number(nowMs);
    for (auto it = ledger.cbegin(); it != ledger.cend(); ++it) {
        const LedgerSide &sqlSide = it.value();
        const auto redisSide = held.constFind(it.key());
        const bool balanced = redisSide != held.cend() && redisSide->held && redisSide->grabs >= sqlSide.grabs
                              && redisSide->grabbedCents >= sqlSide.grabbedCents && redisSide->grabs <= sqlSide.count
                              && redisSide->grabbedCents <= sqlSide.totalCents && sqlSide.grabs <= sqlSide.count
                              && sqlSide.grabbedCents <= sqlSide.totalCents;
        result.campaigns << LedgerBalance{it.key(), balanced};
        text += '\n' + QByteArray::number(it.key()) + ' ' + (balanced ? '1' : '0');
    }
    throwOnErrorReply(redis.command({QByteArrayLiteral("SET"), keys.ledgerCheck(), text, QByteArrayLiteral("PX"), QByteArray::number(3 * IntervalMs)}));
    return result;
}

std::optional<LedgerCheckResult> LedgerBalanceCheck::read(RedisClient &redis, const KeySchema &keys)
{
    const RedisValue reply = redis.command({QByteArrayLiteral("GET"), keys.ledgerCheck()});
    throwOnErrorReply(reply);
    if (reply.isNil())
        return std::nullopt;
    const QByteArrayList lines = reply.toBytes().split('\n');
    LedgerCheckResult result;
    result.atMs = lines.value(0).toLongLong();
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArrayList fields = lines[i].split(' ');
        if (fields.size() == 2)
            result.campaigns << LedgerBalance{fields[0].toLongLong(), fields[1] == "1"};
    }
    return result;
}

} // namespace lantern
