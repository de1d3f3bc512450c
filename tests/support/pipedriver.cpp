#include "pipedriver.h"

#include <stdexcept>

#include "core/monotonicclock.h"
#include "redis/rediserror.h"

#include <QDeadlineTimer>

#include <algorithm>

#include <poll.h>

namespace lantern::test {

bool drive(RedisPipe &pipe, const std::function<bool()> &until, int boundMs)
{
    const QDeadlineTimer bound(boundMs);
    pipe.flush(monotonicNs());
    while (!until()) {
        if (bound.hasExpired())
            return false;
        qint64 timeoutMs = std::min<qint64>(bound.remainingTime(), 100);
        if (pipe.hasUnsentWork())
            timeoutMs = 0;
        else if (const qint64 deadline = pipe.nextDeadlineNs(); deadline >= 0)
            timeoutMs = std::clamp<qint64>((deadline - monotonicNs()) / 1'000'000 + 1, 0, timeoutMs);
        pollfd watched{pipe.fd(), short(POLLIN | (pipe.wantsWrite() ? POLLOUT : 0)), 0};
        const int ready = ::poll(&watched, pipe.fd() >= 0 ? 1 : 0, int(timeoutMs));
        const qint64 nowNs = monotonicNs();
        if (ready > 0) {
            // The order and the masks of HttpServerLoop::run().
            if (watched.revents & (POLLOUT | POLLERR | POLLHUP))
                pipe.onWritable(nowNs);
            if (watched.revents & (POLLIN | POLLERR | POLLHUP))
                pipe.onReadable(nowNs);
        }
        pipe.checkTimeouts(nowNs);
        pipe.flush(nowNs);
    }
    return true;
}

QList<QByteArrayList> Steps::nextRound()
{
    if (m_next == m_steps.size())
        return {};
    return m_steps[m_next++](m_rounds.empty() ? std::vector<RedisValue>{} : m_rounds.back());
}

void Steps::takeReplies(std::vector<RedisValue> replies)
{
    m_rounds.push_back(std::move(replies));
    for (const RedisValue &reply : m_rounds.back()) {
        if (reply.isError())
            throw RedisReplyError(QString::fromUtf8(reply.string));
    }
}

std::unique_ptr<Steps> oneRound(QList<QByteArrayList> commands)
{
    return std::make_unique<Steps>(std::vector<Steps::Step>{[commands](const std::vector<RedisValue> &) { return commands; }});
}

RedisPipe::Done record(Outcome &outcome, const QElapsedTimer *clock)
{
    return [&outcome, clock](RedisConversation &conversation, std::exception_ptr error) {
        ++outcome.calls;
        outcome.error = std::move(error);
        outcome.rounds = static_cast<Steps &>(conversation).rounds();
        if (clock)
            outcome.elapsedMs = clock->elapsed();
    };
}

QString messageOf(const std::exception_ptr &error)
{
    if (!error)
        return QStringLiteral("(no error)");
    try {
        std::rethrow_exception(error);
    } catch (const std::exception &caught) {
        return QString::fromUtf8(caught.what());
    } catch (...) {
        return QStringLiteral("(not a std::exception)");
    }
}

bool runOne(RedisPipe &pipe, std::unique_ptr<RedisConversation> conversation, Outcome &outcome, const QElapsedTimer *clock)
{
    pipe.start(std::move(conversation), record(outcome, clock));
    return drive(pipe, [&outcome] { return outcome.ended(); });
}

CommandResult runCommand(RedisPipe &pipe, const QByteArrayList &command)
{
    CommandResult result;
    Outcome outcome;
    if (!runOne(pipe, oneRound({command}), outcome))
        result.error = std::make_exception_ptr(std::runtime_error("the conversation never ended"));
    else if (outcome.error)
        result.error = outcome.error;
    else
        result.reply = outcome.reply();
    return result;
}

} // namespace lantern::test
