#include "redis/redisclient.h"

#include "redis/clusterprobe.h"
#include "redis/rediscluster.h"
#include "redis/redisconnection.h"
#include "redis/rediserror.h"
#include "redis/redissentinel.h"

#include <QSet>
#include <QStringList>

#include <optional>
#include <vector>

namespace lantern {

void throwOnErrorReply(const RedisValue &reply)
{
    if (!reply.isError())
        return;
    if (isPermissionRefusal(reply.string))
        throw ForbiddenError(QString::fromUtf8(reply.string));
    throw RedisReplyError(QString::fromUtf8(reply.string));
}

bool isPermissionRefusal(const QByteArray &errorReply)
{
    // 7.0: "NOPERM ...", and inside a script "The user executing the script can't run this
    // command or subcommand" / "... can't access at least one of the keys"; 7.2+: "ACL failure
    // in script".
    return errorReply.startsWith("NOPERM") || errorReply.contains("The user executing the script can't")
            || errorReply.contains("ACL failure in script");
}

void throwOnErrorReply(const std::vector<RedisValue> &replies)
{
    for (const RedisValue &reply : replies)
        throwOnErrorReply(reply);
}

long long RedisValue::toInteger() const
{
    if (type == Type::Integer)
        return integer;
    if (type == Type::String || type == Type::Status) {
        bool ok = false;
        const long long parsed = string.toLongLong(&ok);
        if (ok)
            return parsed;
    }
    throw RedisReplyError(QCoreApplication::translate("lantern::RedisClient", "expected an integer reply from Redis"));
}

QByteArray RedisValue::toBytes() const
{
    if (type == Type::String || type == Type::Status || type == Type::Nil)
        return string;
    if (type == Type::Integer)
        return QByteArray::number(integer);
    throw RedisReplyError(QCoreApplication::translate("lantern::RedisClient", "expected a string reply from Redis"));
}

QByteArrayList RedisValue::toBytesList() const
{
    QByteArrayList result;
    result.reserve(static_cast<qsizetype>(elements.size()));
    for (const RedisValue &element : elements)
        result << element.toBytes();
    return result;
}

RedisClient::RedisClient(RedisUrl url, RedisOptions options) : m_url(std::move(url)), m_options(options) {}
RedisClient::~RedisClient() = default;
RedisClient::RedisClient(RedisClient &&) noexcept = default;
RedisClient &RedisClient::operator=(RedisClient &&) noexcept = default;

bool RedisClient::isConnected() const
{
    return m_cluster ? m_cluster->isConnected() : m_single && m_single->isOpen();
}

QList<RedisEndpoint> RedisClient::clusterMasters() const
{
    return m_cluster ? m_cluster->masters() : QList<RedisEndpoint>();
}

QString RedisClient::connectedNode() const
{
    return m_single && m_single->isOpen() ? m_single->endpoint().text() : QString();
}

QString RedisClient::transportSummary() const
{
    return m_single ? m_single->transportSummary() : QString();
}

RedisRoutingStats RedisClient::routingStats() const
{
    return m_cluster ? m_cluster->stats() : RedisRoutingStats();
}

void RedisClient::ensureConnected()
{
    if (m_cluster) {
        m_cluster->ensureConnected();
        return;
    }
    if (m_single && m_single->isOpen() && !m_single->isUsable())
        m_single->close();  // hung up while idle: connect afresh (a Sentinel is asked again)
    if (m_single && m_single->isOpen()) {
        if (m_probed)
            return;
        // Kept while it could not say what it is (loading, busy): ask again on the same connection.
        m_single->append(ClusterProbe::command());
        const RedisValue reply = m_single->read();
        takeProbe(std::move(m_single), reply);
        return;
    }
    connect();
}

void RedisClient::connect()
{
    if (m_url.isSentinel()) {  // asked again on every new connection (redis.io "Sentinel clients")
        m_single = RedisSentinel::connectToMaster(m_url, m_options);
        m_probed = true;  // a master Sentinel watches is a single server
        return;
    }
    const QList<RedisEndpoint> seeds = m_url.seeds();
    QStringList failures;
    std::optional<RedisNotReadyError> notReady;
    for (const RedisEndpoint &seed : seeds) {
        auto connection = std::make_unique<RedisConnection>(seed, m_url, m_options);
        try {
            const std::vector<RedisValue> probe = connection->open({ClusterProbe::command()});
            takeProbe(std::move(connection), probe.front());
            return;
        } catch (const RedisNotReadyError &error) {
            if (!m_url.isSeedList())
                throw;
            notReady = error;
            failures << error.message();
        } catch (const UnavailableError &error) {
            if (!m_url.isSeedList())
                throw;  // one node: its own error, as ever
            failures << error.message();
        }
    }
    if (notReady && failures.size() == 1)
        throw *notReady;
    throw RedisIoError(tr("no seed of the Redis Cluster %1 answered: %2").arg(m_url.redacted(), failures.join(QStringLiteral("; "))));
}

void RedisClient::takeProbe(std::unique_ptr<RedisConnection> connection, const RedisValue &reply)
{
    const RedisEndpoint node = connection->endpoint();
    ClusterProbe probe = ClusterProbe::of(reply, node);
    switch (probe.kind) {
    case ClusterProbe::Kind::Cluster:
        m_single.reset();
        m_probed = false;
        m_cluster = std::make_unique<RedisCluster>(m_url, m_options, std::move(*connection), std::move(probe.map));
        return;
    case ClusterProbe::Kind::NotReady:
        m_single = std::move(connection);
        m_probed = false;  // the connection is kept; the next call asks again
        throw RedisNotReadyError::at(*probe.state, node.host, node.port);
    case ClusterProbe::Kind::SingleServer:
        m_single = std::move(connection);
        m_probed = true;
        if (m_url.isSeedList()) {
            m_single.reset();
            throw notAClusterNode(m_url, node, probe.refusal);
        }
        return;
    }
}

InvalidInputError RedisClient::notAClusterNode(const RedisUrl &url, const RedisEndpoint &node, const QByteArray &refusal)
{
    return InvalidInputError(tr("invalid Redis URL %1: a seed list names the nodes of a Redis Cluster, but %2 is not a "
                                "cluster node (%3)")
                                     .arg(url.redacted(), node.text(), QString::fromUtf8(refusal.left(200))));
}

RedisValue RedisClient::command(const QByteArrayList &args)
{
    std::vector<RedisValue> replies = pipeline({args});
    RedisValue &reply = replies.front();
    throwOnErrorReply(reply);
    return std::move(reply);
}

bool RedisClient::isReadCommand(const QByteArrayList &args)
{
    static const QSet<QByteArray> reads{
            "GET",       "MGET",      "STRLEN",     "GETRANGE",     "SUBSTR",      "EXISTS",     "TTL",
            "PTTL",      "EXPIRETIME", "PEXPIRETIME", "TYPE",        "SCAN",        "PING",       "ECHO",
            "INFO",      "TIME",      "DBSIZE",     "HGET",         "HMGET",       "HGETALL",    "HLEN",
            "HEXISTS",   "HKEYS",     "HVALS",      "HSTRLEN",      "HSCAN",       "HRANDFIELD", "LLEN",
            "LINDEX",    "LRANGE",    "LPOS",       "SMEMBERS",     "SCARD",       "SISMEMBER",  "SMISMEMBER",
            "SSCAN",     "SRANDMEMBER", "SINTER",   "SUNION",       "SDIFF",       "SINTERCARD", "ZCARD",
            "ZSCORE",    "ZMSCORE",   "ZRANK",      "ZREVRANK",     "ZCOUNT",      "ZRANGE",     "ZREVRANGE",
            "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZSCAN",
            "XLEN",      "XRANGE",    "XREVRANGE",  "BITFIELD_RO",  "GETBIT",      "BITCOUNT",   "BITPOS"};
    if (args.isEmpty())
        return false;
    const QByteArray name = args.first().toUpper();
    if (reads.contains(name))
        return true;
    if (name == "BITFIELD") {  // BITFIELD key GET type offset [GET type offset ...]
        if (args.size() < 5 || (args.size() - 2) % 3 != 0)
            return false;
        for (qsizetype i = 2; i < args.size(); i += 3) {
            if (args.at(i).toUpper() != "GET")
                return false;
        }
        return true;
    }
    return false;
}

void RedisClient::refuseUnlessRead(const QByteArrayList &args) const
{
    if (isReadCommand(args))
        return;
    const QString name = args.isEmpty() ? QString() : QString::fromUtf8(args.first().toUpper().left(32));
    throw RedisReadOnlyError(tr("read-only connection (setting read-only): %1 was not sent to %2; only read commands are allowed")
                                     .arg(name, m_url.redacted()));
}

std::vector<std::pair<RedisEndpoint, RedisValue>> RedisClient::onEveryMaster(const QByteArrayList &args)
{
    if (m_options.readOnly)
        refuseUnlessRead(args);
    ensureConnected();
    if (m_cluster) {
        std::vector<std::pair<RedisEndpoint, RedisValue>> replies;
        ++m_roundTrips;  // the map, read now
        for (const RedisEndpoint &master : m_cluster->mastersNow()) {
            ++m_roundTrips;
            replies.emplace_back(master, m_cluster->onMaster(master, args));
        }
        return replies;
    }
    ++m_roundTrips;
    m_single->append(args);
    return {{m_single->endpoint(), m_single->read()}};
}

RedisValue RedisClient::onMaster(const RedisEndpoint &master, const QByteArrayList &args)
{
    if (m_options.readOnly)
        refuseUnlessRead(args);
    ensureConnected();
    ++m_roundTrips;
    if (m_cluster)
        return m_cluster->onMaster(master, args);
    m_single->append(args);
    return m_single->read();
}

std::vector<RedisValue> RedisClient::pipeline(const QList<QByteArrayList> &commands)
{
    if (m_options.readOnly) {
        for (const auto &args : commands)
            refuseUnlessRead(args);  // before anything is sent: all or nothing
    }
    ensureConnected();
    ++m_roundTrips;
    m_commandsSent += quint64(commands.size());
    if (m_cluster) {
        try {
            return m_cluster->pipeline(commands);
        } catch (const RedisClusterRefusal &) {
            --m_roundTrips;  // refused before anything was sent
            throw;
        }
    }
    for (const auto &args : commands)
        m_single->append(args);
    std::vector<RedisValue> replies;
    replies.reserve(static_cast<size_t>(commands.size()));
    for (qsizetype i = 0; i < commands.size(); ++i)
        replies.push_back(m_single->read());
    // Every reply is read first, so the connection stays in step and is kept.
    const RedisEndpoint node = m_single->endpoint();
    for (const RedisValue &reply : replies) {
        if (!reply.isError())
            continue;
        if (m_url.isSentinel() && RedisSentinel::saysDemoted(reply)) {
            m_single.reset();  // the master moved: the next call asks the sentinels
            throw RedisSentinel::demoted(m_url, node);
        }
        if (const auto state = RedisNotReadyError::stateOf(reply.string))
            throw RedisNotReadyError::at(*state, node.host, node.port);
    }
    return replies;
}

} // namespace lantern
