#include "serve/httpserverloop.h"

#include "api/apicalls.h"
#include "api/featureswitches.h"
#include "core/monotonicclock.h"
#include "serve/blockingendpoints.h"
#include "serve/httprequestparser.h"
#include "serve/httpresponse.h"

#include <QCoreApplication>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace lantern {

namespace {

constexpr quint64 ListenKey = 1;
constexpr quint64 WakeKey = 2;
constexpr quint64 PipeKey = 3;

constexpr qsizetype ReadChunk = 16 * 1024;
constexpr qsizetype MaxBufferedInput = 64 * 1024;    // unparsed bytes kept while a request is under way
constexpr qsizetype MaxBufferedOutput = 256 * 1024;  // unsent answers: past it, a client that does not read is not served
constexpr qint64 IdleTimeoutNs = 60'000'000'000;     // a kept-alive connection without a request
constexpr qint64 RequestTimeoutNs = 10'000'000'000;  // a request that started arriving but did not finish
constexpr qint64 StopGraceNs = 10'000'000'000;       // answers under way when SIGTERM came
// Lingering close (nginx's lingering_close, Apache's lingering_close()): after the last answer
// the server sends its FIN, then reads and drops what the client still sends, so that the
// kernel does not answer unread input with a reset that can destroy the answer in flight.
constexpr qint64 LingerNs = 2'000'000'000;            // then it closes anyway (checked once a second)
constexpr qsizetype LingerMaxBytes = 1024 * 1024;     // dropped at most: a client that sends more is reset
constexpr qsizetype LingerReadsPerEvent = 4;          // ReadChunk each: other connections get their turn
constexpr int TickMs = 100;                           // how often the loop looks at the stop flag
constexpr qsizetype KeptBufferBytes = 4 * 1024;       // a connection's emptied buffer keeps this much room

/** Empties a connection's buffer, keeping its allocation when it is small (a request's or an
    answer's size): the next one is written into it without malloc. */
void emptied(QByteArray &buffer)
{
    if (buffer.capacity() <= KeptBufferBytes)
        buffer.resize(0);
    else
        buffer.clear();
}

const char *errorCode(int status)
{
    switch (status) {
    case 431: return "headers_too_large";
    case 501: return "not_implemented";
    case 505: return "http_version_not_supported";
    default: return "bad_request";
    }
}

} // namespace

struct HttpServerLoop::Connection {
    qsizetype unsent() const { return out.size() - outOffset; }
    qsizetype unparsed() const { return in.size() - inOffset; }
    /** Whether to read more: to drop it while lingering; else not while closing, nor while
        unparsed input or unsent output piles up. */
    bool wantsInput() const
    {
        return lingering || (!closing && !peerClosed && unparsed() < MaxBufferedInput && unsent() < MaxBufferedOutput);
    }

    quint64 id = 0;
    int fd = -1;
    HttpRequestParser parser;
    QByteArray in;
    qsizetype inOffset = 0;
    QByteArray out;
    qsizetype outOffset = 0;
    quint32 watched = 0;  // the epoll events asked for
    bool busy = false;    // a request is being answered
    bool closing = false; // close once the output is written
    bool peerClosed = false;  // the client sent its last byte: answer what came, then close
    bool lingering = false;   // answered and shut for writing: input is read and dropped until the client closes
    qint64 lingerEndNs = 0;
    qsizetype lingerBytes = 0;  // dropped so far
    bool dirty = false;   // in m_dirty
    bool continueSent = false;
    bool keepAlive = true;
    quint64 requestSeq = 0;
    ApiRequest request;
    ApiEndpoint endpoint = ApiEndpoint::Unknown;
    qint64 startNs = 0;
    qint64 lastActiveNs = 0;
};

HttpServerLoop::HttpServerLoop(ApiShared &shared, int listenFd, BlockingEndpoints &blocking, const std::atomic<bool> &stopping)
    : m_shared(shared), m_listenFd(listenFd), m_blocking(blocking), m_stopping(stopping), m_gate(shared), m_pipe(shared.config().redis, RedisOptions{}, shared.redisCluster())
{
    m_turnNs = monotonicNs();
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    m_wakeFd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    watch(m_listenFd, ListenKey, EPOLLIN, true);
    watch(m_wakeFd, WakeKey, EPOLLIN, true);
}

HttpServerLoop::~HttpServerLoop()
{
    while (!m_connections.empty())
        close(m_connections.begin()->first);
    ::close(m_wakeFd);
    ::close(m_epoll);
    ::close(m_listenFd);
}

void HttpServerLoop::watch(int fd, quint64 key, quint32 events, bool add)
{
    epoll_event event{};
    event.events = events;
    event.data.u64 = key;
    if (::epoll_ctl(m_epoll, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event) != 0 && !add && errno == ENOENT)
        ::epoll_ctl(m_epoll, EPOLL_CTL_ADD, fd, &event);
}

void HttpServerLoop::run()
{
    std::vector<epoll_event> events(256);
    bool draining = false;
    qint64 drainDeadlineNs = 0;
    qint64 nextSweepNs = monotonicNs() + 1'000'000'000;
    for (;;) {
        int timeoutMs = TickMs;
        if (m_pipe.hasUnsentWork() || !m_dirty.empty()) {
            timeoutMs = 0;
        } else if (const qint64 deadline = m_pipe.nextDeadlineNs(); deadline >= 0) {
            timeoutMs = int(std::clamp<qint64>((deadline - monotonicNs()) / 1'000'000 + 1, 0, TickMs));
        }
        const int ready = ::epoll_wait(m_epoll, events.data(), int(events.size()), timeoutMs);
        const qint64 nowNs = monotonicNs();
        m_turnNs = nowNs;
        for (int i = 0; i < ready; ++i) {
            const quint64 key = events[size_t(i)].data.u64;
            const quint32 what = events[size_t(i)].events;
            if (key == ListenKey) {
                accept();
            } else if (key == WakeKey) {
                takeBlockingAnswers();
            } else if (key == PipeKey) {
                if (what & (EPOLLOUT | EPOLLERR | EPOLLHUP))
                    m_pipe.onWritable(nowNs);
                if (what & (EPOLLIN | EPOLLERR | EPOLLHUP))
                    m_pipe.onReadable(nowNs);
            } else {
                onConnectionEvent(key, what);
            }
        }
        m_pipe.checkTimeouts(nowNs);
        m_pipe.flush(nowNs);  // one write carries every command queued in this turn
        syncPipeWatch();
        std::vector<quint64> dirty;
        dirty.swap(m_dirty);
        for (const quint64 id : dirty) {
            if (const auto found = m_connections.find(id); found != m_connections.end()) {
                found->second->dirty = false;
                writeTo(*found->second);
            }
        }
        m_shared.metrics().recordRedisBatches(m_pipe.commandsSent() - m_pipeCommandsReported, m_pipe.writeCalls() - m_pipeWritesReported);
        m_pipeCommandsReported = m_pipe.commandsSent();
        m_pipeWritesReported = m_pipe.writeCalls();
        if (const RedisRoutingStats &routing = m_pipe.routingStats(); routing.moved + routing.asked + routing.retried != m_pipeRedirectsReported) {
            m_shared.metrics().recordRedisRedirects(routing.moved - m_pipeRoutingReported.moved, routing.asked - m_pipeRoutingReported.asked,
                                                    routing.retried - m_pipeRoutingReported.retried);
            m_pipeRoutingReported = routing;
            m_pipeRedirectsReported = routing.moved + routing.asked + routing.retried;
        }

        if (nowNs >= nextSweepNs || draining) {
            sweep(nowNs);
            nextSweepNs = nowNs + 1'000'000'000;
        }
        if (!draining && m_stopping.load(std::memory_order_relaxed)) {
            // Stop accepting; idle connections close now, busy ones after their answer.
            draining = true;
            drainDeadlineNs = nowNs + StopGraceNs;
            if (!m_acceptPaused)
                ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, m_listenFd, nullptr);
            sweep(nowNs);
        }
        if (draining && ((m_connections.empty() && m_pipe.isIdle() && m_blockingUnderWay == 0) || nowNs >= drainDeadlineNs))
            return;
    }
}

void HttpServerLoop::accept()
{
    for (;;) {
        const int fd = ::accept4(m_listenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                // Out of descriptors: the pending connection would wake the loop again at once.
                // Stop listening for a second (sweep() resumes), and say so once per pause.
                std::fprintf(stderr, "lanternd serve: cannot accept connections for now: %s\n", std::strerror(errno));
                ::epoll_ctl(m_epoll, EPOLL_CTL_DEL, m_listenFd, nullptr);
                m_acceptPaused = true;
            }
            return;  // EAGAIN: all taken
        }
        const int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        auto connection = std::make_unique<Connection>();
        connection->id = m_nextId++;
        connection->fd = fd;
        connection->watched = EPOLLIN;
        connection->lastActiveNs = m_turnNs;
        watch(fd, connection->id, EPOLLIN, true);
        m_connections.emplace(connection->id, std::move(connection));
    }
}

void HttpServerLoop::onConnectionEvent(quint64 id, quint32 events)
{
    const auto found = m_connections.find(id);
    if (found == m_connections.end())
        return;
    Connection &connection = *found->second;
    if (connection.lingering) {
        if (events & EPOLLERR)
            close(id);
        else
            dropInput(connection);  // the end of the stream (EPOLLHUP) shows up as a read too
        return;
    }
    if (events & (EPOLLERR | EPOLLHUP)) {
        close(id);
        return;
    }
    if (events & EPOLLOUT)
        writeTo(connection);
    if ((events & EPOLLIN) && m_connections.count(id))
        readFrom(connection);
}

void HttpServerLoop::readFrom(Connection &connection)
{
    const quint64 id = connection.id;
    for (;;) {
        if (connection.in.size() - connection.inOffset >= MaxBufferedInput)
            break;  // the rest waits until this request is answered
        // Into the stack, then the connection's buffer, which keeps its few hundred bytes of
        // room between requests (emptied()): no allocation per request, and no 16 KiB per
        // kept-alive connection either.
        char chunk[ReadChunk];
        const ssize_t n = ::read(connection.fd, chunk, sizeof chunk);
        if (n > 0)
            connection.in.append(chunk, n);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            close(id);
            return;
        }
        if (n == 0) {  // the client sent all it will send: answer the requests that came, then close
            connection.peerClosed = true;
            break;
        }
        connection.lastActiveNs = m_turnNs;
        if (n < ReadChunk)
            break;
    }
    serveInput(connection);
}

void HttpServerLoop::serveInput(Connection &connection)
{
    while (!connection.busy && !connection.closing && connection.inOffset < connection.in.size() && connection.unsent() < MaxBufferedOutput) {
        connection.inOffset += connection.parser.feed(connection.in.constData() + connection.inOffset, connection.in.size() - connection.inOffset);
        const HttpRequestParser::State state = connection.parser.state();
        if (state == HttpRequestParser::State::Failed) {
            connection.endpoint = ApiEndpoint::Unknown;
            connection.startNs = m_turnNs;
            connection.keepAlive = false;
            respond(connection, apiError(connection.parser.errorStatus(), errorCode(connection.parser.errorStatus()),
                                         connection.parser.errorMessage()));
            break;
        }
        if (state == HttpRequestParser::State::NeedMore) {
            if (connection.parser.expectsContinue() && !connection.continueSent) {
                connection.out.append("HTTP/1.1 100 Continue\r\n\r\n");
                connection.continueSent = true;
                markForWriting(connection);
            }
            break;
        }
        connection.continueSent = false;
        connection.keepAlive = connection.parser.keepAlive();
        connection.parser.take(connection.request);
        dispatch(connection);
    }
    if (connection.inOffset == connection.in.size()) {
        emptied(connection.in);
        connection.inOffset = 0;
    } else if (connection.inOffset > MaxBufferedInput) {
        connection.in.remove(0, connection.inOffset);
        connection.inOffset = 0;
    }
    if (connection.peerClosed && !connection.busy && connection.unsent() < MaxBufferedOutput) {
        // Every complete request is answered; what is left is an unfinished one that cannot end.
        connection.closing = true;
        markForWriting(connection);  // writeTo() closes it once the answers are out
    }
    // Reading pauses while a full buffer waits for an answer, and resumes after it. Writing is
    // writeTo()'s business: answers queued in this turn are written at its end, most often whole.
    rewatch(connection, (connection.watched & EPOLLOUT) != 0);
}

void HttpServerLoop::dispatch(Connection &connection)
{
    connection.busy = true;
    ++connection.requestSeq;
    connection.endpoint = ApiGate::endpointOf(connection.request.path);
    connection.startNs = m_turnNs;
    if (ApiGate::isSwitchable(connection.endpoint) && (m_switchesReadNs < 0 || connection.startNs - m_switchesReadNs >= FeatureSwitches::MaxAgeNs)) {
        // The switches are a second old: read them first (once for every request waiting).
        m_waitingForSwitches.push_back(connection.id);
        refreshSwitches();
        return;
    }
    admit(connection);
}

void HttpServerLoop::admit(Connection &connection)
{
    auto admitted = m_gate.admit(connection.request, m_switchedOff);
    if (auto *refusal = std::get_if<ApiResponse>(&admitted)) {
        respond(connection, *refusal);
        return;
    }
    const ApiAdmission admission = std::get<ApiAdmission>(admitted);
    if (admission.endpoint == ApiEndpoint::Live) {
        respond(connection, apiAlive());  // in this turn: nothing goes to Redis
        return;
    }
    std::unique_ptr<ApiCall> call;
    try {
        call = makeApiCall(m_shared, admission, connection.request);
    } catch (...) {
        respond(connection, apiErrorFor(std::current_exception(), connection.request));
        return;
    }
    const quint64 id = connection.id;
    const quint64 seq = connection.requestSeq;
    if (call) {
        call->recipient = {id, seq};
        m_pipe.start(std::move(call), [this](RedisConversation &done, std::exception_ptr error) {
            const ApiCall &answered = static_cast<ApiCall &>(done);
            const auto [connectionId, requestSeq] = answered.recipient;
            if (!error) {
                deliver(connectionId, requestSeq, answered.response());
                return;
            }
            const auto found = m_connections.find(connectionId);
            const ApiRequest request = found != m_connections.end() ? found->second->request : ApiRequest{};
            deliver(connectionId, requestSeq, apiErrorFor(error, request));
        });
        return;
    }
    ++m_blockingUnderWay;
    m_blocking.submit(admission, connection.request, [this, id, seq](ApiResponse response) {
        {
            const std::lock_guard lock(m_inboxMutex);
            m_inbox.push_back({id, seq, std::move(response)});
        }
        const quint64 one = 1;
        [[maybe_unused]] const ssize_t written = ::write(m_wakeFd, &one, sizeof one);
    });
}

void HttpServerLoop::respond(Connection &connection, const ApiResponse &response)
{
    const qint64 nowNs = monotonicNs();
    m_shared.metrics().recordRequest(connection.endpoint, response.status, double(nowNs - connection.startNs) / 1e9);
    const bool keepAlive = connection.keepAlive && !m_stopping.load(std::memory_order_relaxed);
    appendHttpResponse(connection.out, response, keepAlive);
    connection.closing = connection.closing || !keepAlive;
    connection.busy = false;
    HttpRequestParser::emptyKeepingRoom(connection.request);  // the parser writes the next request into its room
    connection.lastActiveNs = nowNs;
    markForWriting(connection);
}

void HttpServerLoop::deliver(quint64 connectionId, quint64 requestSeq, const ApiResponse &response)
{
    const auto found = m_connections.find(connectionId);
    if (found == m_connections.end() || found->second->requestSeq != requestSeq || !found->second->busy)
        return;  // the client left before its answer
    Connection &connection = *found->second;
    respond(connection, response);
    serveInput(connection);  // a request that came right behind it (pipelining)
}

void HttpServerLoop::writeTo(Connection &connection)
{
    while (connection.outOffset < connection.out.size()) {
        const ssize_t n = ::send(connection.fd, connection.out.constData() + connection.outOffset,
                                 size_t(connection.out.size() - connection.outOffset), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            close(connection.id);
            return;
        }
        connection.outOffset += n;
    }
    const bool pending = connection.outOffset < connection.out.size();
    if (!pending) {
        emptied(connection.out);
        connection.outOffset = 0;
        if (connection.closing && !connection.busy) {
            if (connection.peerClosed)
                close(connection.id);  // nothing more can come
            else
                linger(connection);
            return;
        }
    }
    rewatch(connection, pending);
    // A client that stopped reading was not served meanwhile: go on with what it sent.
    if (!connection.busy && !connection.closing && connection.unparsed() > 0 && connection.unsent() < MaxBufferedOutput)
        serveInput(connection);
}

void HttpServerLoop::linger(Connection &connection)
{
    if (connection.lingering)
        return;
    ::shutdown(connection.fd, SHUT_WR);  // the FIN goes after the answers
    connection.lingering = true;
    connection.lingerEndNs = monotonicNs() + LingerNs;
    connection.in.clear();
    connection.inOffset = 0;
    rewatch(connection, false);
}

void HttpServerLoop::dropInput(Connection &connection)
{
    char scratch[ReadChunk];
    for (qsizetype reads = 0; reads < LingerReadsPerEvent; ++reads) {
        const ssize_t n = ::read(connection.fd, scratch, sizeof scratch);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        // The client closed (0) or reset (error); past the bound, the reset is ours.
        if (n <= 0 || (connection.lingerBytes += n) > LingerMaxBytes) {
            close(connection.id);
            return;
        }
    }
}

void HttpServerLoop::markForWriting(Connection &connection)
{
    if (!connection.dirty) {
        connection.dirty = true;
        m_dirty.push_back(connection.id);
    }
}

void HttpServerLoop::rewatch(Connection &connection, bool forWriting)
{
    const quint32 wanted = (forWriting ? quint32(EPOLLOUT) : 0u) | (connection.wantsInput() ? quint32(EPOLLIN) : 0u);
    if (wanted != connection.watched) {
        connection.watched = wanted;
        watch(connection.fd, connection.id, wanted, false);
    }
}

void HttpServerLoop::close(quint64 id)
{
    const auto found = m_connections.find(id);
    if (found == m_connections.end())
        return;
    ::close(found->second->fd);  // also leaves the epoll set
    m_connections.erase(found);
}

void HttpServerLoop::refreshSwitches()
{
    if (m_switchesReading)
        return;
    m_switchesReading = true;
    m_pipe.start(std::make_unique<FeatureSwitches::Read>(m_shared.keys()), [this](RedisConversation &done, std::exception_ptr error) {
        m_switchesReading = false;
        if (!error) {
            m_switchedOff = static_cast<FeatureSwitches::Read &>(done).switchedOff();
            m_switchesReadNs = monotonicNs();
        }
        // Unread switches keep their last known state: the requests meet the outage themselves.
        std::vector<quint64> waiting;
        waiting.swap(m_waitingForSwitches);
        for (const quint64 id : waiting) {
            const auto found = m_connections.find(id);
            if (found == m_connections.end() || !found->second->busy)
                continue;
            admit(*found->second);
            serveInput(*found->second);
        }
    });
}

void HttpServerLoop::takeBlockingAnswers()
{
    quint64 count = 0;
    [[maybe_unused]] const ssize_t read = ::read(m_wakeFd, &count, sizeof count);
    std::vector<Answer> answers;
    {
        const std::lock_guard lock(m_inboxMutex);
        answers.swap(m_inbox);
    }
    for (const Answer &answer : answers) {
        --m_blockingUnderWay;
        deliver(answer.connection, answer.request, answer.response);
    }
}

void HttpServerLoop::syncPipeWatch()
{
    const int fd = m_pipe.fd();
    if (fd < 0) {
        m_pipeFd = -1;  // closed: it left the epoll set by itself
        return;
    }
    const bool writable = m_pipe.wantsWrite();
    const quint32 events = EPOLLIN | (writable ? quint32(EPOLLOUT) : 0u);
    if (fd != m_pipeFd || m_pipe.generation() != m_pipeGeneration) {
        watch(fd, PipeKey, events, true);
        m_pipeFd = fd;
        m_pipeGeneration = m_pipe.generation();
        m_pipeWritable = writable;
    } else if (writable != m_pipeWritable) {
        watch(fd, PipeKey, events, false);
        m_pipeWritable = writable;
    }
}

void HttpServerLoop::sweep(qint64 nowNs)
{
    const bool stopping = m_stopping.load(std::memory_order_relaxed);
    if (m_acceptPaused && !stopping) {
        m_acceptPaused = false;
        watch(m_listenFd, ListenKey, EPOLLIN, true);
    }
    std::vector<quint64> idle;
    for (const auto &[id, connection] : m_connections) {
        if (connection->lingering) {
            // Answered already: on stop, like the idle ones, it does not wait.
            if (stopping || nowNs >= connection->lingerEndNs)
                idle.push_back(id);
            continue;
        }
        if (connection->busy || connection->outOffset < connection->out.size())
            continue;
        const bool started = connection->parser.started();
        if (stopping || nowNs - connection->lastActiveNs >= (started ? RequestTimeoutNs : IdleTimeoutNs))
            idle.push_back(id);
    }
    for (const quint64 id : idle)
        close(id);
}

} // namespace lantern
