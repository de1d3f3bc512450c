#pragma once

#include <QCoreApplication>
#include <QByteArrayList>
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

    /** The command that reads every switch, and the features its reply says are off. */
    static QByteArrayList readCommand(const KeySchema &keys);
    static QStringList switchedOffIn(const RedisValue &reply);

    /** Throws InvalidInputError for an unknown feature. */
    static void set(RedisClient &redis, const KeySchema &keys, const QString &feature, bool on);
    static void validateFeature(const QString &feature);
};

} // namespace lantern
