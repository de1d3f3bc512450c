#pragma once

#include "redis/clusterslotmap.h"
#include "redis/redisclient.h"
#include "redis/rediscluster.h"
#include "redis/redispipenode.h"
#include "redis/redisurl.h"

#include <QCoreApplication>

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace lantern {

class ClusterTopology;
class RedisConversation;
class SentinelWatch;

/** A non-blocking Redis client for one event loop (`lanternd serve`). Conversations of many
    requests are queued as they come and written together when the loop flushes, so one write
    and one read per node carry a whole batch; the loop watches fd() and reports readiness, and
    nothing here ever waits. A broken connection, or one that misses the connect or reply
    timeout, is closed, every conversation on it ends with RedisIoError/RedisTimeoutError, and
    the next conversation reconnects; a command whose connection broke is never sent again.

    On one server, a reply saying it cannot serve yet (-LOADING, -BUSY, ...) ends its
    conversation with RedisNotReadyError and keeps the connection.

    On a Redis Cluster (a ClusterTopology), each command goes to the master of its keys' slot
    over one connection per master, and fd() is an epoll descriptor of its own over those
    connections, so the loop still watches one descriptor. Replies follow the blocking client's
    policy (clusterreply::decide): -MOVED updates this pipe's map, sends the command to the named
    master and asks the topology to read the map again; -ASK sends ASKING and the command to the
    target and leaves the map alone; a command redirected more than twice waits a pause first;
    -TRYAGAIN, -CLUSTERDOWN, -MASTERDOWN, -LOADING, -READONLY and a master without a connection
    are waited out with a growing pause, never blocking (RedisClusterOptions::retryWindow), then
    end the conversation with RedisNotReadyError. NOSCRIPT (a newly promoted master) is answered with the script's
    body, on either. One thread only. */
class RedisPipe final : private RedisPipeNode::Sink {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisPipe)

public:
    /** Called once per conversation: `error` is null when it ran to its end. */
    using Done = std::function<void(RedisConversation &conversation, std::exception_ptr error)>;

    /** One server at `url` when `cluster` is null; a Redis Cluster otherwise (`url` gives the
        credentials). Resolves the server's host now. */
    explicit RedisPipe(RedisUrl url, RedisOptions options = {}, std::shared_ptr<ClusterTopology> cluster = {});
    /** Conversations still under way are dropped without their Done. */
    ~RedisPipe();
    Q_DISABLE_COPY_MOVE(RedisPipe)

    /** Queues the conversation's first round; it is written at the next flush(). `done` runs
        later, from flush(), onReadable() or checkTimeouts(), never from inside start(). */
    void start(std::unique_ptr<RedisConversation> conversation, Done done);

    /** Connects where work waits and no connection is open, and writes what is queued. Call it
        once an iteration's events are handled. */
    void flush(qint64 nowNs);
    void onReadable(qint64 nowNs);
    void onWritable(qint64 nowNs);
    /** Fails everything on a connection whose connect or oldest reply is overdue. */
    void checkTimeouts(qint64 nowNs);

    /** The descriptor to watch (-1 when none), and whether to watch it for writing too. A new
        socket (after a reconnect) has a new generation(), even if the number is reused. */
    int fd() const;
    bool wantsWrite() const;
    quint64 generation() const;
    /** Work that the next flush() must see before the loop sleeps (not yet connected, or a
        conversation that ended before sending anything). */
    bool hasUnsentWork() const;
    /** The earliest connect, reply or retry deadline (monotonic ns), or -1 when nothing waits. */
    qint64 nextDeadlineNs() const;
    bool isIdle() const;

    /** Commands sent and write() calls made so far: their ratio is the batching achieved. */
    quint64 commandsSent() const;
    quint64 writeCalls() const;
    /** On a cluster: redirections followed and replies waited out (zeros on one server). */
    const RedisRoutingStats &routingStats() const { return m_stats; }

private:
    struct Delayed {
        qint64 dueNs = 0;
        std::shared_ptr<RedisPipeJob> job;
        qsizetype index = 0;
        std::optional<RedisEndpoint> ask;  // an ASK target: there after ASKING, not by the map
    };

    void onReply(RedisPipeNode &node, const std::shared_ptr<RedisPipeJob> &job, qsizetype index, RedisValue reply) override;
    void onFailure(const std::shared_ptr<RedisPipeJob> &job, std::exception_ptr error) override;

    void sendRound(const std::shared_ptr<RedisPipeJob> &job);
    /** Sends command `index` of the job's round to the node that serves it. */
    void route(const std::shared_ptr<RedisPipeJob> &job, qsizetype index, const QByteArrayList &command);
    /** A cluster reply that redirects or asks to wait: handled (true), or an answer (false). */
    bool followCluster(RedisPipeNode &node, const std::shared_ptr<RedisPipeJob> &job, qsizetype index, const RedisValue &reply);
    /** Sends command `index` again after a pause (to `ask` after ASKING, else by the map), or
        ends the job with `error` once its retry window is over. */
    void retryLater(const std::shared_ptr<RedisPipeJob> &job, qsizetype index, std::exception_ptr error,
                    std::optional<RedisEndpoint> ask = std::nullopt);
    void advance(const std::shared_ptr<RedisPipeJob> &job);
    void finish(const std::shared_ptr<RedisPipeJob> &job, std::exception_ptr error);
    RedisPipeNode &nodeAt(const RedisEndpoint &endpoint);
    /** The topology's map, when it has read a newer one. */
    void takeNewerMap();
    /** Sentinel: the watch's master, when it names another (the old one's work is abandoned). */
    void takeNewerMaster();
    /** Cluster: the epoll set follows each node's socket and what it waits for. */
    void syncWatches();

    RedisUrl m_url;
    RedisOptions m_options;
    std::shared_ptr<ClusterTopology> m_cluster;
    ClusterSlotMap m_map;      // cluster: the topology's, plus MOVED replies since
    quint64 m_mapVersion = 0;  // of the topology's map last taken
    std::map<QString, std::unique_ptr<RedisPipeNode>> m_nodes;  // by host:port
    RedisPipeNode *m_single = nullptr;  // one server: its only node (Sentinel: the master's; none: unknown)
    std::shared_ptr<SentinelWatch> m_sentinel;  // redis-sentinel:// URLs
    quint64 m_masterVersion = 0;                // of the watch's answer last taken
    std::exception_ptr m_noMaster;              // why the watch knows no master
    quint64 m_generationBase = 0;               // Sentinel: grows with each change of master
    int m_epoll = -1;                   // cluster: over every node's socket
    struct Watch {
        int fd = -1;
        quint64 generation = 0;
        bool writable = false;
    };
    std::map<const RedisPipeNode *, Watch> m_watches;
    std::vector<Delayed> m_delayed;
    std::vector<std::pair<std::shared_ptr<RedisPipeJob>, std::exception_ptr>> m_endedEarly;  // before sending anything
    RedisRoutingStats m_stats;
};

} // namespace lantern
