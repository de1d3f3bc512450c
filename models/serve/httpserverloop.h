#pragma once

#include "api/apigate.h"
#include "api/apihandler.h"
#include "redis/redispipe.h"

#include <QStringList>

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace lantern {

class BlockingEndpoints;

/** One event loop of `lanternd serve`: epoll over its own SO_REUSEPORT listening socket, its
    client connections and its RedisPipe. Requests are parsed (HttpRequestParser), checked
    (ApiGate), and the hot endpoints' Redis work is queued on the pipe; everything queued in one
    turn of the loop goes to Redis in one write, and the answers go back as their replies come.
    Calendar and metrics go to BlockingEndpoints. Nothing in the loop waits on I/O. */
class HttpServerLoop final {
public:
    HttpServerLoop(ApiShared &shared, int listenFd, BlockingEndpoints &blocking, const std::atomic<bool> &stopping);
    ~HttpServerLoop();
    Q_DISABLE_COPY_MOVE(HttpServerLoop)

    /** Serves until `stopping` is set, then stops accepting, answers the requests under way and
        returns once every connection is closed (or after a grace period). */
    void run();

private:
    struct Connection;
    struct Answer {
        quint64 connection = 0;
        quint64 request = 0;
        ApiResponse response;
    };

    void accept();
    void onConnectionEvent(quint64 id, quint32 events);
    void readFrom(Connection &connection);
    /** Parses and starts the next request of `connection`, while it has none under way. */
    void serveInput(Connection &connection);
    /** Starts the request the parser just handed to `connection.request`. */
    void dispatch(Connection &connection);
    void admit(Connection &connection);
    void respond(Connection &connection, const ApiResponse &response);
    /** Called for an answer that may outlive its connection or its request. */
    void deliver(quint64 connectionId, quint64 requestSeq, const ApiResponse &response);
    void writeTo(Connection &connection);
    /** After the last answer of a connection the client has not closed: FIN, then its input is
        read and dropped (dropInput) until it closes, for LingerNs or LingerMaxBytes at most. */
    void linger(Connection &connection);
    void dropInput(Connection &connection);
    /** Queues the connection for the write at the end of this turn (once). */
    void markForWriting(Connection &connection);
    /** Asks epoll for what the connection waits on now: input (Connection::wantsInput) and,
        when `forWriting`, room to write. */
    void rewatch(Connection &connection, bool forWriting);
    void close(quint64 id);
    void refreshSwitches();
    void takeBlockingAnswers();
    void syncPipeWatch();
    void watch(int fd, quint64 key, quint32 events, bool add);
    void sweep(qint64 nowNs);

    ApiShared &m_shared;
    int m_listenFd;
    BlockingEndpoints &m_blocking;
    const std::atomic<bool> &m_stopping;
    int m_epoll = -1;
    int m_wakeFd = -1;  // eventfd: BlockingEndpoints' answers are in m_inbox
    /** When epoll_wait returned this turn: the start of the requests read in it and the last
        activity of their connections (one clock read per turn, not several per request). */
    qint64 m_turnNs = 0;
    bool m_acceptPaused = false;  // out of descriptors: the listening socket rests for a second
    ApiGate m_gate;
    RedisPipe m_pipe;
    quint64 m_pipeGeneration = 0;
    int m_pipeFd = -1;
    bool m_pipeWritable = false;
    quint64 m_pipeCommandsReported = 0;
    quint64 m_pipeWritesReported = 0;
    RedisRoutingStats m_pipeRoutingReported;  // the pipe's redirect counters last added to the metrics
    quint64 m_pipeRedirectsReported = 0;      // their sum, the cheap test each turn

    std::unordered_map<quint64, std::unique_ptr<Connection>> m_connections;
    quint64 m_nextId = 16;  // below: the listening socket, the eventfd and the pipe
    std::vector<quint64> m_dirty;  // connections with output to write at the end of the turn

    QStringList m_switchedOff;
    qint64 m_switchesReadNs = -1;
    bool m_switchesReading = false;
    std::vector<quint64> m_waitingForSwitches;

    std::mutex m_inboxMutex;
    std::vector<Answer> m_inbox;
    int m_blockingUnderWay = 0;
};

} // namespace lantern
