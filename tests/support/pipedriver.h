#pragma once

#include "redis/redisconversation.h"
#include "redis/redispipe.h"

#include <QElapsedTimer>

#include <exception>
#include <functional>
#include <memory>
#include <vector>

namespace lantern::test {

// Bounds a wait for something that takes milliseconds when all is well; only a bug reaches it.
constexpr int DriveBoundMs = 10000;

/** Turns the loop `lanternd serve` runs around a pipe (flush, wait on fd() for reading and, when
    wantsWrite(), writing, dispatch, checkTimeouts) until `until` holds; false when `boundMs`
    passes first. */
bool drive(RedisPipe &pipe, const std::function<bool()> &until, int boundMs = DriveBoundMs);

/** Rounds built one after the other from the replies of the round before. An error reply ends
    it with RedisReplyError, as the conversations of lanternd do. */
class Steps final : public RedisConversation {
public:
    using Step = std::function<QList<QByteArrayList>(const std::vector<RedisValue> &previousReplies)>;

    explicit Steps(std::vector<Step> steps) : m_steps(std::move(steps)) {}

    QList<QByteArrayList> nextRound() override;
    void takeReplies(std::vector<RedisValue> replies) override;

    const std::vector<std::vector<RedisValue>> &rounds() const { return m_rounds; }

private:
    std::vector<Step> m_steps;
    size_t m_next = 0;
    std::vector<std::vector<RedisValue>> m_rounds;
};

std::unique_ptr<Steps> oneRound(QList<QByteArrayList> commands);

/** What a conversation's Done reported. */
struct Outcome {
    int calls = 0;
    std::exception_ptr error;
    std::vector<std::vector<RedisValue>> rounds;
    qint64 elapsedMs = -1;  // from the clock given to record(), if any

    bool ended() const { return calls > 0; }
    /** The one reply of a one-command, one-round conversation. */
    RedisValue reply() const { return rounds.size() == 1 && rounds[0].size() == 1 ? rounds[0][0] : RedisValue{}; }
};

/** A Done that fills `outcome` (the conversation must be a Steps). */
RedisPipe::Done record(Outcome &outcome, const QElapsedTimer *clock = nullptr);

QString messageOf(const std::exception_ptr &error);

template <class Error>
bool holds(const std::exception_ptr &error)
{
    if (!error)
        return false;
    try {
        std::rethrow_exception(error);
    } catch (const Error &) {
        return true;
    } catch (...) {
        return false;
    }
}

/** One command as a one-round conversation, driven to its end: its reply, or why it failed. */
struct CommandResult {
    RedisValue reply;
    std::exception_ptr error;
};
CommandResult runCommand(RedisPipe &pipe, const QByteArrayList &command);

/** Starts one conversation and drives the loop until its Done ran. */
bool runOne(RedisPipe &pipe, std::unique_ptr<RedisConversation> conversation, Outcome &outcome, const QElapsedTimer *clock = nullptr);

} // namespace lantern::test
