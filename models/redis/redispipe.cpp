#include "redis/redispipe.h"

#include "core/monotonicclock.h"
#include "redis/clusterreply.h"
#include "redis/clustertopology.h"
#include "redis/commandroute.h"
#include "redis/keyslot.h"
#include "redis/redisconversation.h"
#include "redis/rediserror.h"
#include "redis/redissentinel.h"
#include "redis/sentinelwatch.h"

#include <QList>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <sys/epoll.h>
#include <unistd.h>

namespace lantern {

namespace {

constexpr qint64 FirstPauseNs = 10'000'000;     // a cluster reply to wait out: 10 ms, doubling
constexpr qint64 LongestPauseNs = 250'000'000;  // up to 250 ms
constexpr int EventsPerWait = 64;

qint64 nanoseconds(std::chrono::milliseconds ms)
{
    return qint64(ms.count()) * 1'000'000;
}

} // namespace

struct RedisPipeJob {
    std::unique_ptr<RedisConversation> conversation;
    RedisPipe::Done done;
    QList<QByteArrayList> round;
    std::vector<RedisValue> replies;
    std::vector<int> redirects;  // per command of the round (cluster)
    qsizetype outstanding = 0;
    qint64 retryUntilNs = 0;  // cluster: waiting out a reply ends here (set at the first wait)
    int pauses = 0;
    std::optional<RedisEndpoint> lastKeyedNode;  // cluster: where the round's last keyed command went (a WAIT follows it)
};

RedisPipe::RedisPipe(RedisUrl url, RedisOptions options, std::shared_ptr<ClusterTopology> cluster)
    : m_url(std::move(url)), m_options(options), m_cluster(std::move(cluster))
{
    if (m_url.isSentinel()) {
        m_sentinel = SentinelWatch::of(m_url, m_options);
        takeNewerMaster();
        return;
    }
    if (!m_cluster) {
        m_single = &nodeAt(RedisEndpoint{m_url.host, m_url.port});
        return;
    }
    m_epoll = ::epoll_create1(EPOLL_CLOEXEC);
    if (m_epoll < 0)
        throw LanternError(QStringLiteral("epoll_create1(): %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
    takeNewerMap();
}

RedisPipe::~RedisPipe()
{
    m_nodes.clear();  // closes their sockets first
    if (m_epoll >= 0)
        ::close(m_epoll);
}

RedisPipeNode &RedisPipe::nodeAt(const RedisEndpoint &endpoint)
{
    auto &node = m_nodes[endpoint.text()];
    if (!node)
        node = std::make_unique<RedisPipeNode>(endpoint, m_url, m_options, static_cast<RedisPipeNode::Sink &>(*this));
    return *node;
}

void RedisPipe::takeNewerMap()
{
    if (!m_cluster || !m_cluster->isNewerThan(m_mapVersion))
        return;
    ClusterTopology::Snapshot snapshot = m_cluster->snapshot();
    m_map = *snapshot.map;
    m_mapVersion = snapshot.version;
}

void RedisPipe::takeNewerMaster()
{
    if (!m_sentinel || !m_sentinel->isNewerThan(m_masterVersion))
        return;
    const SentinelWatch::Snapshot snapshot = m_sentinel->snapshot();
    m_masterVersion = snapshot.version;
    m_noMaster = snapshot.error;
    RedisPipeNode *previous = m_single;
    m_single = snapshot.master ? &nodeAt(*snapshot.master) : nullptr;
    if (m_single != previous)  // generation() grows past every value it had: the loop re-registers
        m_generationBase += (previous ? previous->generation() : 0) + 1;
    if (previous && previous != m_single)  // what is still on the old master's connection: outcome unknown
        previous->abandon(std::make_exception_ptr(RedisSentinel::demoted(m_url, previous->endpoint())));
}

void RedisPipe::start(std::unique_ptr<RedisConversation> conversation, Done done)
{
    auto job = std::make_shared<RedisPipeJob>();
    job->conversation = std::move(conversation);
    job->done = std::move(done);
    try {
        job->round = job->conversation->nextRound();
    } catch (...) {
        m_endedEarly.push_back({job, std::current_exception()});  // ends at the next flush()
        return;
    }
    if (job->round.isEmpty())
        m_endedEarly.push_back({job, nullptr});
    else
        sendRound(job);
}

void RedisPipe::sendRound(const std::shared_ptr<RedisPipeJob> &job)
{
    if (m_sentinel && !m_single) {  // no master known now: 503 at the next flush
        m_endedEarly.push_back({job, m_noMaster});
        return;
    }
    job->replies.assign(size_t(job->round.size()), RedisValue{});
    if (m_cluster)
        job->redirects.assign(size_t(job->round.size()), 0);
    job->outstanding = job->round.size();
    for (qsizetype i = 0; i < job->round.size() && job->done; ++i)
        route(job, i, job->round.at(i));
}

void RedisPipe::route(const std::shared_ptr<RedisPipeJob> &job, qsizetype index, const QByteArrayList &command)
{
    if (m_single) {
        m_single->send(job, index, command);
        return;
    }
    const CommandRoute target = CommandRoute::of(command);
    if (index > 0 && command.first().compare("WAIT", Qt::CaseInsensitive) == 0 && job->lastKeyedNode) {
        // WAIT goes to the node of the keyed command before it in the round (a grab's WAIT after
        // its script). Should that command be redirected (its slot moved), the WAIT has gone to
        // the first node and answers for that connection's writes, not the grab's: then the
        // grab is answered without a real wait (docs/cluster.md).
        nodeAt(*job->lastKeyedNode).send(job, index, command);
        return;
    }
    int slot = -1;
    if (target.kind == CommandRoute::Kind::Keys) {
        for (const QByteArray &key : target.keys) {
            const int keySlot = keyslot::of(key);
            if (slot >= 0 && keySlot != slot) {
                finish(job, std::make_exception_ptr(RedisClusterRefusal(
                                    tr("%1 names keys in different slots of the Redis Cluster (%2 and %3); nothing was sent")
                                            .arg(QString::fromUtf8(command.first()))
                                            .arg(slot)
                                            .arg(keySlot))));
                return;
            }
            slot = keySlot;
        }
    } else if (target.kind != CommandRoute::Kind::AnyNode) {
        finish(job, std::make_exception_ptr(RedisClusterRefusal(
                            tr("%1 is not sent by lanternd serve on a Redis Cluster; nothing was sent").arg(QString::fromUtf8(command.first())))));
        return;
    }
    std::optional<RedisEndpoint> master;
    if (slot >= 0) {
        master = m_map.masterOf(slot);
        job->lastKeyedNode = master;
    } else if (const QList<RedisEndpoint> masters = m_map.masters(); !masters.isEmpty()) {
        master = masters.first();
    }
    if (!master) {
        m_cluster->requestRefresh();
        ++m_stats.retried;
        retryLater(job, index, std::make_exception_ptr(RedisNotReadyError::at(RedisNotReadyError::State::ClusterDown, m_url.host, m_url.port)));
        return;
    }
    nodeAt(*master).send(job, index, command);
}

void RedisPipe::retryLater(const std::shared_ptr<RedisPipeJob> &job, qsizetype index, std::exception_ptr error,
                           std::optional<RedisEndpoint> ask)
{
    const qint64 now = monotonicNs();
    if (job->retryUntilNs == 0)
        job->retryUntilNs = now + nanoseconds(m_options.cluster.retryWindow);
    const qint64 pause = std::min(LongestPauseNs, FirstPauseNs << std::min(job->pauses, 10));
    if (now + pause > job->retryUntilNs) {
        finish(job, std::move(error));
        return;
    }
    ++job->pauses;
    m_delayed.push_back({now + pause, job, index, std::move(ask)});
}

void RedisPipe::onReply(RedisPipeNode &node, const std::shared_ptr<RedisPipeJob> &job, qsizetype index, RedisValue reply)
{
    if (!job->done)
        return;  // ended already: the rest of its round is read and dropped
    if (m_cluster && reply.isError() && followCluster(node, job, index, reply))
        return;
    if (m_sentinel && RedisSentinel::saysDemoted(reply)) {  // the master moved: ask the sentinels
        m_sentinel->requestRefresh();
        finish(job, std::make_exception_ptr(RedisSentinel::demoted(m_url, node.endpoint())));
        return;
    }
    if (const auto notReady = reply.isError() ? RedisNotReadyError::stateOf(reply.string) : std::nullopt) {
        // The conversation ends here; the connection stays open for the next one.
        finish(job, std::make_exception_ptr(RedisNotReadyError::at(*notReady, node.endpoint().host, node.endpoint().port)));
        return;
    }
    const QByteArrayList &command = job->round.at(index);
    if (isMissingScript(command, reply)) {
        // EVAL caches the script on the server: the other EVALSHAs of this batch find it.
        try {
            node.send(job, index, withScriptBody(command));
        } catch (...) {
            finish(job, std::current_exception());
        }
        return;
    }
    job->replies[size_t(index)] = std::move(reply);
    if (--job->outstanding == 0)
        advance(job);
}

bool RedisPipe::followCluster(RedisPipeNode &node, const std::shared_ptr<RedisPipeJob> &job, qsizetype index, const RedisValue &reply)
{
    using Action = clusterreply::Decision::Action;
    int &redirects = job->redirects[size_t(index)];
    clusterreply::Decision decision = clusterreply::decide(reply, node.endpoint(), redirects, m_options.cluster.maxRedirects);
    if (decision.readMapAgain)
        m_cluster->requestRefresh();  // a MOVED, a failover, a master demoted to a replica, a slot on its way
    switch (decision.action) {
    case Action::Answer:
        return false;
    case Action::GiveUp:
        finish(job, std::make_exception_ptr(std::move(*decision.notReady)));
        return true;
    case Action::Redirect: {
        ++redirects;
        const clusterreply::Redirect &redirect = decision.redirect;
        if (redirect.ask) {
            ++m_stats.asked;
        } else {
            ++m_stats.moved;
            m_map.assign(redirect.slot, redirect.target);
        }
        if (decision.pauseFirst) {  // bouncing between two nodes: a pause, as the blocking client does
            retryLater(job, index, std::make_exception_ptr(RedisNotReadyError::at(RedisNotReadyError::State::TryAgain,
                                                                                  node.endpoint().host, node.endpoint().port)),
                       redirect.ask ? std::optional<RedisEndpoint>(redirect.target) : std::nullopt);
            return true;
        }
        RedisPipeNode &target = nodeAt(redirect.target);
        if (redirect.ask)
            target.sendAsking();
        target.send(job, index, job->round.at(index));
        return true;
    }
    case Action::Wait:
        ++m_stats.retried;
        retryLater(job, index, std::make_exception_ptr(std::move(*decision.notReady)));
        return true;
    }
    return false;
}

void RedisPipe::onFailure(const std::shared_ptr<RedisPipeJob> &job, std::exception_ptr error)
{
    if (m_cluster)
        m_cluster->requestRefresh();  // a master that went away: its replica may serve its slots now
    if (m_sentinel)
        m_sentinel->requestRefresh();  // the sentinels may name another master now
    finish(job, std::move(error));
}

void RedisPipe::advance(const std::shared_ptr<RedisPipeJob> &job)
{
    try {
        job->conversation->takeReplies(std::move(job->replies));
        job->round = job->conversation->nextRound();
    } catch (...) {
        finish(job, std::current_exception());
        return;
    }
    job->retryUntilNs = 0;
    job->pauses = 0;
    if (job->round.isEmpty())
        finish(job, nullptr);
    else
        sendRound(job);
}

void RedisPipe::finish(const std::shared_ptr<RedisPipeJob> &job, std::exception_ptr error)
{
    if (!job->done)
        return;  // already ended (a failure after part of its round was answered)
    const Done done = std::exchange(job->done, nullptr);
    job->outstanding = 0;
    done(*job->conversation, std::move(error));
}

void RedisPipe::flush(qint64 nowNs)
{
    // Conversations that ended before sending anything (no round, or a failing first round).
    std::vector<std::pair<std::shared_ptr<RedisPipeJob>, std::exception_ptr>> ended;
    ended.swap(m_endedEarly);
    for (auto &[job, error] : ended)
        finish(job, error);
    takeNewerMaster();
    if (m_cluster) {
        takeNewerMap();
        if (!m_delayed.empty()) {
            std::vector<Delayed> due;
            const auto split = std::partition(m_delayed.begin(), m_delayed.end(), [&](const Delayed &d) { return d.dueNs > nowNs; });
            due.assign(std::make_move_iterator(split), std::make_move_iterator(m_delayed.end()));
            m_delayed.erase(split, m_delayed.end());
            for (const Delayed &retry : due) {
                if (!retry.job->done)
                    continue;
                if (retry.ask) {  // an ASK waited for: ASKING and the command on the target, as asked
                    RedisPipeNode &target = nodeAt(*retry.ask);
                    target.sendAsking();
                    target.send(retry.job, retry.index, retry.job->round.at(retry.index));
                } else {
                    route(retry.job, retry.index, retry.job->round.at(retry.index));
                }
            }
        }
    }
    for (auto &[name, node] : m_nodes)
        node->flush(nowNs);
    if (m_cluster)
        syncWatches();
}

void RedisPipe::syncWatches()
{
    for (auto &[name, node] : m_nodes) {
        Watch &watch = m_watches[node.get()];
        const int fd = node->fd();
        if (fd < 0) {
            watch.fd = -1;  // closed: it left the epoll set by itself
            continue;
        }
        const bool writable = node->wantsWrite();
        if (fd == watch.fd && node->generation() == watch.generation && writable == watch.writable)
            continue;
        epoll_event event{};
        event.events = EPOLLIN | (writable ? EPOLLOUT : 0u);
        event.data.ptr = node.get();
        const bool added = fd != watch.fd || node->generation() != watch.generation;
        if (::epoll_ctl(m_epoll, added ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &event) != 0 && added && errno == EEXIST)
            ::epoll_ctl(m_epoll, EPOLL_CTL_MOD, fd, &event);
        watch = {fd, node->generation(), writable};
    }
}

void RedisPipe::onReadable(qint64 nowNs)
{
    if (m_single) {
        m_single->onReadable(nowNs);
        return;
    }
    epoll_event events[EventsPerWait];
    const int ready = ::epoll_wait(m_epoll, events, EventsPerWait, 0);
    for (int i = 0; i < ready; ++i) {
        auto *node = static_cast<RedisPipeNode *>(events[i].data.ptr);
        const quint32 what = events[i].events;
        if (what & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            node->onWritable(nowNs);
        if (what & (EPOLLIN | EPOLLERR | EPOLLHUP))
            node->onReadable(nowNs);
    }
}

void RedisPipe::onWritable(qint64 nowNs)
{
    if (m_single)
        m_single->onWritable(nowNs);
    // On a cluster the epoll descriptor is only ever watched for input: onReadable() does both.
}

void RedisPipe::checkTimeouts(qint64 nowNs)
{
    for (auto &[name, node] : m_nodes)
        node->checkTimeouts(nowNs);
}

int RedisPipe::fd() const
{
    return m_single ? m_single->fd() : m_epoll;
}

bool RedisPipe::wantsWrite() const
{
    return m_single && m_single->wantsWrite();
}

quint64 RedisPipe::generation() const
{
    if (m_sentinel)
        return m_generationBase + (m_single ? m_single->generation() : 0);
    return m_single ? m_single->generation() : 1;
}

bool RedisPipe::hasUnsentWork() const
{
    if (!m_endedEarly.empty())
        return true;
    return std::any_of(m_nodes.cbegin(), m_nodes.cend(), [](const auto &entry) { return entry.second->fd() < 0 && entry.second->hasWork(); });
}

qint64 RedisPipe::nextDeadlineNs() const
{
    qint64 earliest = -1;
    const auto consider = [&earliest](qint64 deadline) {
        if (deadline >= 0 && (earliest < 0 || deadline < earliest))
            earliest = deadline;
    };
    for (const auto &[name, node] : m_nodes)
        consider(node->nextDeadlineNs());
    for (const Delayed &retry : m_delayed)
        consider(retry.dueNs);
    return earliest;
}

bool RedisPipe::isIdle() const
{
    return m_endedEarly.empty() && m_delayed.empty()
            && std::none_of(m_nodes.cbegin(), m_nodes.cend(), [](const auto &entry) { return entry.second->hasWork(); });
}

quint64 RedisPipe::commandsSent() const
{
    quint64 sent = 0;
    for (const auto &[name, node] : m_nodes)
        sent += node->commandsSent();
    return sent;
}

quint64 RedisPipe::writeCalls() const
{
    quint64 writes = 0;
    for (const auto &[name, node] : m_nodes)
        writes += node->writeCalls();
    return writes;
}

} // namespace lantern
