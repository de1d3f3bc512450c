#pragma once

#include "redis/redisconversation.h"

#include <QByteArrayList>
#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include <utility>

namespace lantern {

class KeySchema;
class RedisClient;
struct RedisValue;

/** The API's global switches per feature (the seeds' "turn check-in off tonight"): a Redis hash
    shared by every API server, so one `lanternd switch` reaches them all within a second. */
class FeatureSwitches final {
    Q_DECLARE_TR_FUNCTIONS(lantern::FeatureSwitches)

public:
    /** How old a server's copy of the switches may be: every API thread rereads them after this. */
    static constexpr qint64 MaxAgeNs = 1'000'000'000;

    static QStringList features() { return {QStringLiteral("checkin"), QStringLiteral("grab")}; }

    /** The command that reads every switch, and the features its reply says are off. */
    static QByteArrayList readCommand(const KeySchema &keys);
    static QStringList switchedOffIn(const RedisValue &reply);

    /** Throws InvalidInputError for an unknown feature. */
    static void set(RedisClient &redis, const KeySchema &keys, const QString &feature, bool on);
    static void validateFeature(const QString &feature);

    /** The switches read as a conversation (an event loop's RedisPipe): one HGETALL. */
    class Read final : public RedisConversation {
    public:
        explicit Read(const KeySchema &keys) : m_command(readCommand(keys)) {}
        QList<QByteArrayList> nextRound() override
        {
            if (m_command.isEmpty())
                return {};
            return {std::exchange(m_command, {})};
        }
        void takeReplies(std::vector<RedisValue> replies) override { m_off = switchedOffIn(replies.at(0)); }
        const QStringList &switchedOff() const { return m_off; }

    private:
        QByteArrayList m_command;
        QStringList m_off;
    };
};

} // namespace lantern
