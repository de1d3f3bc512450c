#include "redis/rediscluster.h"

#include "redis/clusterprobe.h"
#include "redis/clusterreply.h"
#include "redis/commandroute.h"
#include "redis/keyslot.h"
#include "redis/rediserror.h"

#include <QSet>

#include <algorithm>
#include <thread>

namespace lantern {

namespace {

constexpr std::chrono::milliseconds FirstBackOff{10};
constexpr std::chrono::milliseconds LongestBackOff{250};

QByteArray commandName(const QByteArrayList &args)
{
    return args.isEmpty() ? QByteArray() : args.first().toUpper();
}

bool isCommand(const QByteArrayList &args, const char *name)
{
    return !args.isEmpty() && args.first().compare(name, Qt::CaseInsensitive) == 0;
}

QString printableKey(const QByteArray &key)
{
    return QString::fromUtf8(key.left(120));
}

} // namespace

struct RedisCluster::Unit {
    qsizetype first = 0;  // commands [first, first + count): one command, or MULTI ... EXEC
    qsizetype count = 1;
    CommandRoute::Kind kind = CommandRoute::Kind::AnyNode;
    CommandRoute::Merge merge = CommandRoute::Merge::First;
    int slot = -1;
    std::optional<RedisEndpoint> ask;  // the next send goes there, after ASKING
    int redirects = 0;
    bool done = false;
    std::vector<RedisValue> replies;
    RedisEndpoint answeredBy;
    QList<RedisEndpoint> answered;          // EveryMaster: the masters that have answered
    std::vector<RedisValue> masterReplies;  // EveryMaster: their replies
};

struct RedisCluster::Send {
    size_t unit = 0;
    bool asking = false;
};

RedisCluster::RedisCluster(RedisUrl url, RedisOptions options, RedisConnection first, ClusterSlotMap map)
    : m_url(std::move(url)), m_options(options), m_map(std::move(map))
{
    m_mapAge.start();
    if (m_map.masters().contains(first.endpoint()))
        m_connections.emplace(first.endpoint().text(), std::make_unique<RedisConnection>(std::move(first)));
}

RedisCluster::~RedisCluster() = default;

bool RedisCluster::isConnected() const
{
    return std::any_of(m_connections.cbegin(), m_connections.cend(), [](const auto &entry) { return entry.second->isOpen(); });
}

void RedisCluster::ensureConnected()
{
    if (!isConnected())
        refreshMap();
}

RedisConnection &RedisCluster::connectionTo(const RedisEndpoint &node)
{
    auto &connection = m_connections[node.text()];
    if (!connection)
        connection = std::make_unique<RedisConnection>(node, m_url, m_options);
    return *connection;
}

QList<RedisEndpoint> RedisCluster::mastersNow()
{
    refreshMap();
    return m_map.masters();
}

RedisValue RedisCluster::onMaster(const RedisEndpoint &master, const QByteArrayList &args)
{
    if (m_refreshWanted || m_mapAge.hasExpired(m_options.cluster.mapMaxAge.count()))
        refreshMap();
    RedisConnection &connection = connectionTo(master);
    if (!connection.isUsable())
        connection.open();
    connection.append(args);
    return connection.read();
}

std::optional<RedisEndpoint> RedisCluster::anyMaster() const
{
    const QList<RedisEndpoint> masters = m_map.masters();
    for (const RedisEndpoint &master : masters) {
        const auto open = m_connections.find(master.text());
        if (open != m_connections.cend() && open->second->isOpen())
            return master;
    }
    // None open: the first master that did not refuse a connection lately (a dead one stays in
    // the map until its replica takes over).
    for (const RedisEndpoint &master : masters) {
        if (!m_unreachable.contains(master))
            return master;
    }
    if (masters.isEmpty())
        return std::nullopt;
    return masters.first();
}

void RedisCluster::refreshMap()
{
    QList<RedisEndpoint> open;
    for (const auto &[name, connection] : m_connections) {
        if (connection->isOpen())
            open.append(connection->endpoint());
    }
    const auto connectionTo = [this](const RedisEndpoint &node) -> RedisConnection & { return this->connectionTo(node); };
    m_map = SlotMapReader::read(SlotMapReader::candidates(open, m_map, m_url), connectionTo, m_url, m_stats.mapReads);
    m_mapAge.restart();
    m_refreshWanted = false;
    const QList<RedisEndpoint> masters = m_map.masters();
    std::erase_if(m_connections, [&](const auto &entry) { return !masters.contains(entry.second->endpoint()); });
}

std::vector<RedisCluster::Unit> RedisCluster::plan(const QList<QByteArrayList> &commands) const
{
    std::vector<Unit> units;
    units.reserve(size_t(commands.size()));
    for (qsizetype i = 0; i < commands.size();) {
        // WAIT right after a keyed unit goes with it, to the node that took its writes (and with
        // it again after a redirect): how a grab waits for its replicas (GrabWait).
        if (isCommand(commands.at(i), "WAIT") && !units.empty() && units.back().kind == CommandRoute::Kind::Keys
            && units.back().first + units.back().count == i) {
            ++units.back().count;
            ++i;
            continue;
        }
        Unit unit;
        unit.first = i;
        qsizetype last = i;  // the unit's last command
        const bool transaction = isCommand(commands.at(i), "MULTI");
        if (transaction) {
            while (last < commands.size() && !isCommand(commands.at(last), "EXEC") && !isCommand(commands.at(last), "DISCARD"))
                ++last;
            if (last == commands.size())
                throw RedisClusterRefusal(tr("a MULTI without its EXEC in the same pipeline cannot be routed on a Redis Cluster; nothing was sent"));
        }
        unit.count = last - i + 1;

        QByteArray firstKey;
        for (qsizetype c = transaction ? i + 1 : i; c <= (transaction ? last - 1 : i); ++c) {
            const CommandRoute route = CommandRoute::of(commands.at(c));
            if (route.kind == CommandRoute::Kind::NotOnCluster)
                throw RedisClusterRefusal(tr("%1 has no cluster-wide answer on a Redis Cluster (each node answers for its own "
                                             "keys only); nothing was sent")
                                                  .arg(QString::fromUtf8(commandName(commands.at(c)))));
            if (route.kind == CommandRoute::Kind::EveryMaster && transaction)
                throw RedisClusterRefusal(tr("%1 inside MULTI ... EXEC would have to run on every master of the Redis Cluster; "
                                             "nothing was sent")
                                                  .arg(QString::fromUtf8(commandName(commands.at(c)))));
            if (!transaction && route.kind != CommandRoute::Kind::Keys) {
                unit.kind = route.kind;
                unit.merge = route.merge;
                continue;
            }
            for (const QByteArray &key : route.keys) {
                const int slot = keyslot::of(key);
                if (unit.slot < 0) {
                    unit.slot = slot;
                    unit.kind = CommandRoute::Kind::Keys;
                    firstKey = key;
                } else if (slot != unit.slot) {
                    throw RedisClusterRefusal(tr("%1 names keys in different slots of the Redis Cluster ('%2' in slot %3, '%4' "
                                                 "in slot %5): a command, a transaction or a script runs within one slot; "
                                                 "nothing was sent")
                                                      .arg(QString::fromUtf8(transaction ? QByteArrayLiteral("MULTI ... EXEC")
                                                                                         : commandName(commands.at(i))),
                                                           printableKey(firstKey))
                                                      .arg(unit.slot)
                                                      .arg(printableKey(key))
                                                      .arg(slot));
                }
            }
        }
        units.push_back(std::move(unit));
        i = last + 1;
    }
    return units;
}

/** What one pipeline() call has met so far, round after round. */
struct RedisCluster::Attempt {
    std::optional<RedisNotReadyError> notReady;  // why it waits: the error once the window is over
    std::exception_ptr unreachable;              // the last node that could not be reached
    std::exception_ptr broken;                   // a connection lost with commands on it: outcome unknown
    std::exception_ptr failure;                  // a unit that cannot finish (too many redirections)
    bool backOff = false;                        // wait before the next round

    void waitFor(RedisNotReadyError error)
    {
        notReady = std::move(error);
        backOff = true;
    }
};

std::vector<RedisValue> RedisCluster::pipeline(const QList<QByteArrayList> &commands)
{
    std::vector<Unit> units = plan(commands);
    if (m_mapAge.hasExpired(m_options.cluster.mapMaxAge.count()))
        m_refreshWanted = true;

    QElapsedTimer waited;
    waited.start();
    std::chrono::milliseconds delay = FirstBackOff;
    Attempt attempt;
    for (;;) {
        finishEveryMaster(units);
        if (std::all_of(units.cbegin(), units.cend(), [](const Unit &unit) { return unit.done; }))
            break;
        if (attempt.backOff) {
            if (waited.elapsed() + delay.count() > m_options.cluster.retryWindow.count()) {
                if (attempt.notReady)
                    throw *attempt.notReady;
                if (attempt.unreachable)
                    std::rethrow_exception(attempt.unreachable);
                throw RedisNotReadyError::at(RedisNotReadyError::State::ClusterDown, m_url.host, m_url.port);
            }
            std::this_thread::sleep_for(delay);
            delay = std::min(delay * 2, LongestBackOff);
            m_refreshWanted = true;
            attempt.backOff = false;
        }
        if (m_refreshWanted) {
            try {
                refreshMap();
            } catch (const UnavailableError &) {
                attempt.unreachable = std::current_exception();
                attempt.backOff = true;
                continue;
            }
        }
        Batches batches = route(units, attempt);
        send(batches, units, commands, attempt);
        if (attempt.broken)
            std::rethrow_exception(attempt.broken);
        if (attempt.failure)
            std::rethrow_exception(attempt.failure);
    }

    std::vector<RedisValue> replies(size_t(commands.size()));
    for (Unit &unit : units) {
        for (qsizetype c = 0; c < unit.count; ++c)
            replies[size_t(unit.first + c)] = std::move(unit.replies[size_t(c)]);
    }
    // As on one server: a node that cannot serve (-BUSY) is an outage, once every reply is read.
    for (const Unit &unit : units) {
        for (qsizetype c = 0; c < unit.count; ++c) {
            const RedisValue &reply = replies[size_t(unit.first + c)];
            if (!reply.isError())
                continue;
            if (const auto state = RedisNotReadyError::stateOf(reply.string))
                throw RedisNotReadyError::at(*state, unit.answeredBy.host, unit.answeredBy.port);
        }
    }
    return replies;
}

void RedisCluster::finishEveryMaster(std::vector<Unit> &units) const
{
    std::optional<QList<RedisEndpoint>> masters;  // only read when a unit needs it
    for (Unit &unit : units) {
        if (unit.done || unit.kind != CommandRoute::Kind::EveryMaster || unit.answered.isEmpty())
            continue;
        if (!masters)
            masters = m_map.masters();
        if (!std::all_of(masters->cbegin(), masters->cend(), [&](const RedisEndpoint &m) { return unit.answered.contains(m); }))
            continue;
        const auto error = std::find_if(unit.masterReplies.cbegin(), unit.masterReplies.cend(), [](const RedisValue &v) { return v.isError(); });
        RedisValue merged = error != unit.masterReplies.cend() ? *error : unit.masterReplies.front();
        if (error == unit.masterReplies.cend() && unit.merge == CommandRoute::Merge::Sum) {
            merged.integer = 0;
            for (const RedisValue &reply : unit.masterReplies)
                merged.integer += reply.integer;
        }
        unit.replies = {merged};
        unit.answeredBy = unit.answered.front();
        unit.done = true;
    }
}

RedisCluster::Batches RedisCluster::route(std::vector<Unit> &units, Attempt &attempt) const
{
    Batches batches;
    const auto add = [&](const RedisEndpoint &node, Send send) {
        auto batch = std::find_if(batches.begin(), batches.end(), [&](const auto &b) { return b.first == node; });
        if (batch == batches.end())
            batch = batches.insert(batches.end(), {node, {}});
        batch->second.push_back(send);
    };
    const auto down = [this] { return RedisNotReadyError::at(RedisNotReadyError::State::ClusterDown, m_url.host, m_url.port); };
    for (size_t u = 0; u < units.size(); ++u) {
        const Unit &unit = units[u];
        if (unit.done)
            continue;
        if (unit.kind == CommandRoute::Kind::EveryMaster) {
            const QList<RedisEndpoint> masters = m_map.masters();
            if (masters.isEmpty())
                attempt.waitFor(down());
            for (const RedisEndpoint &master : masters) {
                if (!unit.answered.contains(master))
                    add(master, {u, false});
            }
            continue;
        }
        std::optional<RedisEndpoint> target = unit.ask;
        if (!target)
            target = unit.kind == CommandRoute::Kind::Keys ? m_map.masterOf(unit.slot) : anyMaster();
        if (!target) {  // a slot no master serves: the cluster is down or being reconfigured
            attempt.waitFor(down());
            continue;
        }
        add(*target, {u, unit.ask.has_value()});
    }
    return batches;
}

void RedisCluster::send(Batches &batches, std::vector<Unit> &units, const QList<QByteArrayList> &commands, Attempt &attempt)
{
    // Connect where needed: nothing is sent to a node that cannot be reached, so its units wait.
    std::vector<std::pair<RedisConnection *, const std::vector<Send> *>> ready;
    for (auto &batch : batches) {
        RedisConnection &connection = connectionTo(batch.first);
        if (!connection.isUsable()) {
            try {
                connection.open();
                m_unreachable.removeAll(batch.first);
            } catch (const RedisNotReadyError &error) {
                attempt.waitFor(error);
                continue;
            } catch (const UnavailableError &) {
                attempt.unreachable = std::current_exception();
                attempt.backOff = true;
                m_refreshWanted = true;
                if (!m_unreachable.contains(batch.first))
                    m_unreachable.append(batch.first);
                continue;
            }
        }
        ready.emplace_back(&connection, &batch.second);
    }
    if (ready.empty()) {
        attempt.backOff = true;  // nothing could be sent this round: never spin
        return;
    }

    // One write per node; then the replies, node by node.
    std::vector<bool> written(ready.size(), false);
    for (size_t b = 0; b < ready.size(); ++b) {
        auto &[connection, sends] = ready[b];
        try {
            for (const Send &send : *sends) {
                const Unit &unit = units[send.unit];
                if (send.asking)
                    connection->append({QByteArrayLiteral("ASKING")});
                for (qsizetype c = unit.first; c < unit.first + unit.count; ++c)
                    connection->append(commands.at(c));
            }
            connection->flush();
            ++m_stats.nodeWrites;
            written[b] = true;
        } catch (const UnavailableError &) {
            attempt.broken = std::current_exception();
            m_refreshWanted = true;
        }
    }
    for (size_t b = 0; b < ready.size(); ++b) {
        if (!written[b])
            continue;
        auto &[connection, sends] = ready[b];
        const RedisEndpoint node = connection->endpoint();
        for (const Send &send : *sends) {
            Unit &unit = units[send.unit];
            std::vector<RedisValue> replies;
            try {
                if (send.asking)
                    connection->read();  // +OK; the command's own reply says the rest
                for (qsizetype c = 0; c < unit.count; ++c)
                    replies.push_back(connection->read());
            } catch (const UnavailableError &) {
                attempt.broken = std::current_exception();
                m_refreshWanted = true;
                break;  // the connection is closed: this node's other units are unknown too
            }
            settle(unit, std::move(replies), node, attempt);
        }
    }
}

void RedisCluster::settle(Unit &unit, std::vector<RedisValue> replies, const RedisEndpoint &node, Attempt &attempt)
{
    using Action = clusterreply::Decision::Action;
    if (unit.kind == CommandRoute::Kind::EveryMaster) {
        const RedisValue &reply = replies.front();
        clusterreply::Decision decision = clusterreply::decide(reply, node, 0, m_options.cluster.maxRedirects);
        if (decision.action == Action::Wait) {
            ++m_stats.retried;
            attempt.waitFor(std::move(*decision.notReady));
            return;
        }
        unit.answered.append(node);
        unit.masterReplies.push_back(reply);
        return;
    }

    // The first reply that sends the unit elsewhere or makes it wait decides; in a transaction
    // that is a queued command's reply (EXEC then answers EXECABORT: nothing ran).
    for (const RedisValue &reply : replies) {
        clusterreply::Decision decision = clusterreply::decide(reply, node, unit.redirects, m_options.cluster.maxRedirects);
        if (decision.readMapAgain)
            m_refreshWanted = true;
        switch (decision.action) {
        case Action::Answer:
            continue;
        case Action::GiveUp:
            attempt.failure = std::make_exception_ptr(std::move(*decision.notReady));
            return;
        case Action::Redirect:
            ++unit.redirects;
            if (decision.pauseFirst)
                attempt.backOff = true;
            if (decision.redirect.ask) {
                ++m_stats.asked;
                unit.ask = decision.redirect.target;
            } else {
                ++m_stats.moved;
                m_map.assign(decision.redirect.slot, decision.redirect.target);
                unit.ask.reset();
            }
            return;
        case Action::Wait:
            ++m_stats.retried;
            attempt.waitFor(std::move(*decision.notReady));
            unit.ask.reset();
            return;
        }
    }
    unit.done = true;
    unit.replies = std::move(replies);
    unit.answeredBy = node;
}

} // namespace lantern
