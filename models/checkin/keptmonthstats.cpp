#include "checkin/keptmonthstats.h"

#include "redis/keyschema.h"
#include "redis/redisclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace lantern {

bool KeptMonthStats::keepIfDue(RedisClient &redis, const KeySchema &keys, const QString &workerId, QDate today, qint64 nowMs)
{
    if (nowMs < m_nextTryMs)
        return false;
    m_nextTryMs = nowMs + IntervalMs;
    const RedisValue turn = redis.command({QByteArrayLiteral("SET"), keys.keptMonthStatsTurn(), workerId.toUtf8(), QByteArrayLiteral("NX"),
                                           QByteArrayLiteral("PX"), QByteArray::number(IntervalMs)});
    if (turn.isNil())
        return false;  // another worker's turn in this interval
    keep(redis, keys, today, nowMs);
    return true;
}

MonthStats KeptMonthStats::keep(RedisClient &redis, const KeySchema &keys, QDate today, qint64 nowMs)
{
    const QDate month(today.year(), today.month(), 1);
    MonthStats stats = MonthStatsReader(redis, keys).read(month, today);
    stats.asOfMs = nowMs;
    redis.command({QByteArrayLiteral("SET"), keys.keptMonthStats(month), toJson(stats, today), QByteArrayLiteral("PX"), QByteArray::number(3 * IntervalMs)});
    return stats;
}

std::optional<MonthStats> KeptMonthStats::read(RedisClient &redis, const KeySchema &keys, QDate month, QDate today)
{
    const RedisValue kept = redis.command({QByteArrayLiteral("GET"), keys.keptMonthStats(QDate(month.year(), month.month(), 1))});
    return kept.isNil() ? std::nullopt : fromJson(kept.toBytes(), today);
}

QByteArray KeptMonthStats::toJson(const MonthStats &stats, QDate today)
{
    QJsonArray days;
    for (const DayStats &day : stats.days)
        days.append(QJsonArray{day.date.toString(Qt::ISODate), day.checkedIn, day.makeups});
    const QJsonObject object{{QStringLiteral("month"), stats.month.toString(Qt::ISODate)},
                             {QStringLiteral("today"), today.toString(Qt::ISODate)},
                             {QStringLiteral("as_of_ms"), stats.asOfMs.value_or(0)},
                             {QStringLiteral("active_users"), stats.activeUsers},
                             {QStringLiteral("every_day_users"), stats.everyDayUsers},
                             {QStringLiteral("days"), days}};
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

std::optional<MonthStats> KeptMonthStats::fromJson(const QByteArray &json, QDate today)
{
    const QJsonObject object = QJsonDocument::fromJson(json).object();
    if (object.value(QStringLiteral("today")).toString() != today.toString(Qt::ISODate))
        return std::nullopt;
    MonthStats stats;
    stats.month = QDate::fromString(object.value(QStringLiteral("month")).toString(), Qt::ISODate);
    if (!stats.month.isValid())
        return std::nullopt;
    stats.asOfMs = object.value(QStringLiteral("as_of_ms")).toInteger();
    stats.activeUsers = object.value(QStringLiteral("active_users")).toInteger();
    stats.everyDayUsers = object.value(QStringLiteral("every_day_users")).toInteger();
    for (const QJsonValue &value : object.value(QStringLiteral("days")).toArray()) {
        const QJsonArray day = value.toArray();
        stats.days << DayStats{QDate::fromString(day.at(0).toString(), Qt::ISODate), day.at(1).toInteger(), day.at(2).toInteger()};
    }
    return stats;
}

} // namespace lantern
