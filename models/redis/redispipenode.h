#pragma once

#include "redis/redishandles.h"
#include "redis/redishandshake.h"
#include "redis/redisoptions.h"
#include "redis/redisstream.h"
#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QCoreApplication>

#include <deque>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace lantern {

class RespReader;
struct RedisPipeJob;

/** One non-blocking connection of a RedisPipe to one Redis node: commands queued as they come
    and written together at flush(), replies parsed by RespReader and handed, in order, to the
    pipe (Sink). Connects when work waits and nothing is open: TCP, then TLS when the URL says
    rediss:// (RedisStream), then the URL's AUTH and SELECT (RedisHandshake) ahead of everything
    queued. A broken connection, or one that misses the connect (TCP and TLS) or reply timeout,
    is closed and every command on it fails (Sink::onFailure); the next flush() connects again.
    Never waits; one thread only. */
class RedisPipeNode final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisPipe)

public:
    /** Where replies and failures go. */
    class Sink {
    public:
        virtual void onReply(RedisPipeNode &node, const std::shared_ptr<RedisPipeJob> &job, qsizetype index, RedisValue reply) = 0;
        /** The command (index) of `job` will get no reply: the connection failed with `error`. */
        virtual void onFailure(const std::shared_ptr<RedisPipeJob> &job, std::exception_ptr error) = 0;

    protected:
        ~Sink() = default;
    };

    /** Resolves the node's host now: call with IP addresses from a hot path (a name is looked up). */
    RedisPipeNode(RedisEndpoint endpoint, const RedisUrl &url, RedisOptions options, Sink &sink);
    ~RedisPipeNode();
    Q_DISABLE_COPY_MOVE(RedisPipeNode)

    /** Queues command `index` of `job`; it is written at the next flush(). */
    void send(const std::shared_ptr<RedisPipeJob> &job, qsizetype index, const QByteArrayList &command);
    /** Queues ASKING (a Redis Cluster's -ASK redirection): its reply is read and dropped. */
    void sendAsking();

    void flush(qint64 nowNs);
    void onReadable(qint64 nowNs);
    void onWritable(qint64 nowNs);
    void checkTimeouts(qint64 nowNs);
    /** Closes the connection and fails what is on it with `error` (a node the pipe leaves). */
    void abandon(std::exception_ptr error) { failAll(std::move(error)); }

    int fd() const;
    bool wantsWrite() const;
    quint64 generation() const { return m_generation; }
    bool hasWork() const { return !m_waiting.empty(); }
    /** The earliest connect or reply deadline (monotonic ns), or -1 when nothing waits. */
    qint64 nextDeadlineNs() const;
    const RedisEndpoint &endpoint() const { return m_endpoint; }

    quint64 commandsSent() const { return m_commandsSent; }
    quint64 writeCalls() const { return m_writeCalls; }

private:
    enum class Purpose { Command, Handshake, Asking };
    struct Waiting {
        std::shared_ptr<RedisPipeJob> job;  // Command only
        qsizetype index = 0;                // of the command in the job's round
        qint64 deadlineNs = 0;
        Purpose purpose = Purpose::Command;
    };

    void connect(qint64 nowNs);
    /** A connect to the current address failed: the next one, or failAll() after the last. */
    void connectFailed(qint64 nowNs, int error);
    /** TCP is up: the stream (plain or TLS) over it. */
    void startStream(UniqueFd fd);
    /** Drives the stream's set-up (TLS); once done, queues the handshake ahead of everything. */
    bool setUp();
    bool isSettingUp() const { return m_connecting.isValid() || (m_stream && !m_established); }
    void writeQueued();
    void deliver(Waiting waiting, RedisValue reply);
    /** Closes the connection and fails every command on it with `error`. */
    void failAll(std::exception_ptr error);
    std::exception_ptr ioError(const QString &what) const;
    std::exception_ptr timeoutError(const QString &what) const;
    void closeSocket();

    RedisEndpoint m_endpoint;
    RedisUrl m_url;  // credentials, database and TLS
    RedisOptions m_options;
    Sink &m_sink;
    RedisHandshake m_handshake;
    TcpAddresses m_addresses;   // what the host resolved to, tried in order
    size_t m_addressIndex = 0;  // the one being connected to

    UniqueFd m_connecting;                  // TCP connect in progress
    std::unique_ptr<RedisStream> m_stream;  // connected (TLS perhaps still in its handshake)
    bool m_established = false;             // set up, handshake queued
    bool m_writeWaitsForRead = false;       // TLS: a write that needs the socket readable first
    qint64 m_connectDeadlineNs = 0;
    quint64 m_generation = 0;
    std::unique_ptr<RespReader> m_reader;
    std::vector<RedisValue> m_handshakeReplies;
    std::string m_out;  // RESP not yet written (from m_written on)
    size_t m_written = 0;
    std::deque<Waiting> m_waiting;  // one entry per command queued or written, in order
    quint64 m_commandsSent = 0;
    quint64 m_writeCalls = 0;
};

} // namespace lantern
