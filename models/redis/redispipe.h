#pragma once

#include "redis/redisclient.h"
#include "redis/redisurl.h"

#include <QCoreApplication>

#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <sys/socket.h>

struct redisReader;

namespace lantern {

class RedisConversation;

/** A non-blocking Redis connection for one event loop (`lanternd serve`). Conversations of many
    requests are queued as they come and written together when the loop flushes, so one write
    and one read carry a whole batch; the loop watches fd() and reports readiness, and nothing
    here ever waits. A broken connection, or one that misses the connect or reply timeout, is
    closed, every conversation on it ends with RedisIoError/RedisTimeoutError, and the next
    conversation reconnects. A reply saying the server cannot serve yet (-LOADING, -BUSY, ...)
    ends its conversation with RedisNotReadyError and keeps the connection. Replies are parsed
    by hiredis's reader. One thread only. */
class RedisPipe final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisPipe)

public:
    /** Called once per conversation: `error` is null when it ran to its end. */
    using Done = std::function<void(RedisConversation &conversation, std::exception_ptr error)>;

    /** Resolves the URL's host now (a name is looked up once, here). */
    RedisPipe(RedisUrl url, RedisOptions options = {});
    /** Conversations still under way are dropped without their Done. */
    ~RedisPipe();
    Q_DISABLE_COPY_MOVE(RedisPipe)

    /** Queues the conversation's first round; it is written at the next flush(). `done` runs
        later, from flush(), onReadable() or checkTimeouts(), never from inside start(). */
    void start(std::unique_ptr<RedisConversation> conversation, Done done);

    /** Connects if work waits and no connection is open, and writes what is queued. Call it
        once an iteration's events are handled. */
    void flush(qint64 nowNs);
    void onReadable(qint64 nowNs);
    void onWritable(qint64 nowNs);
    /** Fails everything when the connect or the oldest reply is overdue. */
    void checkTimeouts(qint64 nowNs);

    /** The socket to watch (-1 when none), and whether to watch it for writing too. A new
        socket (after a reconnect) has a new generation(), even if the number is reused. */
    int fd() const { return m_fd; }
    bool wantsWrite() const { return m_fd >= 0 && (m_connecting || m_written < m_out.size()); }
    quint64 generation() const { return m_generation; }
    /** Work queued but not yet connected: the loop must not sleep before the next flush(). */
    bool hasUnsentWork() const { return !m_endedEarly.empty() || (m_fd < 0 && !m_waiting.empty()); }
    /** The earliest connect or reply deadline (monotonic ns), or -1 when nothing waits. */
    qint64 nextDeadlineNs() const;
    bool isIdle() const { return m_waiting.empty() && m_endedEarly.empty(); }

    /** Commands sent and write() calls made so far: their ratio is the batching achieved. */
    quint64 commandsSent() const { return m_commandsSent; }
    quint64 writeCalls() const { return m_writeCalls; }

private:
    struct Job;
    struct Waiting {
        std::shared_ptr<Job> job;  // null for the connection's own AUTH/SELECT
        qsizetype index = 0;       // of the command in the job's round
        qint64 deadlineNs = 0;
    };

    void send(const std::shared_ptr<Job> &job, qsizetype index, const QByteArrayList &command);
    void sendRound(const std::shared_ptr<Job> &job);
    void deliver(Waiting waiting, RedisValue reply);
    void advance(const std::shared_ptr<Job> &job);
    void finish(const std::shared_ptr<Job> &job, std::exception_ptr error);
    void connect(qint64 nowNs);
    /** A connect to the current address failed: the next one, or failAll() after the last. */
    void connectFailed(qint64 nowNs, int error);
    void connected();
    void writeQueued();
    /** Closes the connection and ends every conversation on it with `error`. */
    void failAll(std::exception_ptr error);
    std::exception_ptr ioError(const QString &what) const;
    std::exception_ptr timeoutError(const QString &what) const;
    void closeSocket();

    RedisUrl m_url;
    RedisOptions m_options;
    struct Address {
        sockaddr_storage storage{};
        socklen_t length = 0;
    };
    std::vector<Address> m_addresses;  // what the host resolved to, tried in order
    size_t m_addressIndex = 0;          // the one being connected to
    QString m_resolveError;  // why the host could not be resolved, if it could not

    int m_fd = -1;
    bool m_connecting = false;
    qint64 m_connectDeadlineNs = 0;
    quint64 m_generation = 0;
    redisReader *m_reader = nullptr;
    std::string m_out;    // RESP not yet written (from m_written on)
    size_t m_written = 0;
    std::deque<Waiting> m_waiting;  // one entry per command queued or written, in order
    std::vector<std::pair<std::shared_ptr<Job>, std::exception_ptr>> m_endedEarly;  // before sending anything
    quint64 m_commandsSent = 0;
    quint64 m_writeCalls = 0;
};

} // namespace lantern
