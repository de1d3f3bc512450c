#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

namespace lantern {

class KeySchema;
class RedisClient;
struct RedisValue;

/** The API's global switches per feature (the seeds' "turn check-in off tonight"): a Redis hash
    shared by every API server, so one `lanternd switch` reaches them all within a second. */
class FeatureSwitches final {
    Q_DECLARE_TR_FUNCTIONS(lantern::FeatureSwitches)

public:
    static QStringList features() { return {QStringLiteral("checkin"), QStringLiteral("grab")}; }

    FeatureSwitches(RedisClient &redis, const KeySchema &keys) : m_redis(redis), m_keys(keys) {}

    /** Whether `feature` is on, as read at most `maxAgeMs` ago (a switch that cannot be read
        keeps its last known state: the request itself then meets the outage). */
    bool isOn(const QString &feature, qint64 nowMs, qint64 maxAgeMs = 1000) { return !switchedOff(nowMs, maxAgeMs).contains(feature); }
    /** The features switched off, read as isOn() reads them. */
    QStringList switchedOff(qint64 nowMs, qint64 maxAgeMs = 1000);

    /** The command that reads every switch, and the features its reply says are off. */
    static QByteArrayList readCommand(const KeySchema &keys);
    static QStringList switchedOffIn(const RedisValue &reply);

    /** Throws InvalidInputError for an unknown feature. */
    static void set(RedisClient &redis, const KeySchema &keys, const QString &feature, bool on);
    static void validateFeature(const QString &feature);

private:
    RedisClient &m_redis;
    const KeySchema &m_keys;
    QStringList m_off;
    qint64 m_readAtMs = -1;
};

} // namespace lantern
