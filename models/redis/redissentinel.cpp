#include "redis/redissentinel.h"

#include "core/monotonicclock.h"
#include "redis/redisconnection.h"

#include <QHash>
#include <QStringList>

#include <mutex>
#include <optional>
#include <thread>

namespace lantern {

namespace {

std::mutex s_orderMutex;
QHash<QString, RedisEndpoint> s_lastAnswered;  // per URL: the sentinel that answered last

QString orderKey(const RedisUrl &url)
{
    return url.redacted();
}

} // namespace

QList<RedisEndpoint> RedisSentinel::sentinelsInOrder(const RedisUrl &url)
{
    QList<RedisEndpoint> sentinels = url.seeds();
    std::lock_guard lock(s_orderMutex);
    const auto last = s_lastAnswered.constFind(orderKey(url));
    if (last != s_lastAnswered.cend() && sentinels.removeOne(*last))
        sentinels.prepend(*last);
    return sentinels;
}

void RedisSentinel::answered(const RedisUrl &url, const RedisEndpoint &sentinel)
{
    std::lock_guard lock(s_orderMutex);
    s_lastAnswered.insert(orderKey(url), sentinel);
}

RedisValue RedisSentinel::askInOrder(const RedisUrl &url, const RedisOptions &options, const QByteArrayList &args,
                                     const std::function<bool(const RedisValue &)> &accepts)
{
    // The sentinels' own credentials, never the data nodes'; TLS as the URL says.
    RedisUrl sentinelUrl = url;
    sentinelUrl.user = url.sentinelUser;
    sentinelUrl.password = url.sentinelPassword;
    sentinelUrl.db = 0;
    RedisOptions quick = options;
    quick.connectTimeout = std::min(options.connectTimeout, std::chrono::milliseconds(SentinelTimeout));
    quick.commandTimeout = std::min(options.commandTimeout, std::chrono::milliseconds(SentinelTimeout));

    QStringList unreachable;
    QStringList unaware;
    for (const RedisEndpoint &sentinel : sentinelsInOrder(url)) {
        try {
            RedisConnection connection(sentinel, sentinelUrl, quick);
            RedisValue reply = connection.open({args}).front();
            if (accepts(reply)) {
                answered(url, sentinel);
                return reply;
            }
            // A null address, or SENTINEL REPLICAS's "-ERR No such master with that name".
            if (reply.isNil() || (reply.isError() && reply.string.contains("No such master")))
                unaware << sentinel.text();
            else
                unreachable << tr("%1 answered %2").arg(sentinel.text(), QString::fromUtf8(reply.toBytes().left(200)));
        } catch (const UnavailableError &error) {
            unreachable << error.message();
        } catch (const RedisReplyError &error) {
            unreachable << error.message();
        }
    }
    if (unreachable.isEmpty())
        throw RedisUrlMismatchError(tr("invalid Redis URL %1: no Redis Sentinel knows a master named '%2' (asked %3)")
                                            .arg(url.redacted(), url.sentinelMaster, unaware.join(QStringLiteral(", "))));
    if (unaware.isEmpty())
        throw RedisIoError(tr("no Redis Sentinel of %1 answered: %2").arg(url.redacted(), unreachable.join(QStringLiteral("; "))));
    throw RedisIoError(tr("no Redis Sentinel of %1 named the master '%2': %3 did not know it; %4")
                               .arg(url.redacted(), url.sentinelMaster, unaware.join(QStringLiteral(", ")),
                                    unreachable.join(QStringLiteral("; "))));
}

RedisEndpoint RedisSentinel::askSentinels(const RedisUrl &url, const RedisOptions &options)
{
    const auto address = [](const RedisValue &reply) -> std::optional<RedisEndpoint> {
        if (reply.type != RedisValue::Type::Array || reply.elements.size() != 2)
            return std::nullopt;
        bool ok = false;
        const int port = reply.elements[1].toBytes().toInt(&ok);
        if (!ok || port <= 0 || port > 65535)
            return std::nullopt;
        return RedisEndpoint{QString::fromUtf8(reply.elements[0].toBytes()), port};
    };
    const RedisValue reply = askInOrder(url, options, {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", url.sentinelMaster.toUtf8()},
                                        [&](const RedisValue &answer) { return address(answer).has_value(); });
    return *address(reply);
}

QList<RedisEndpoint> RedisSentinel::askReplicas(const RedisUrl &url, const RedisOptions &options)
{
    const RedisValue reply = askInOrder(url, options, {"SENTINEL", "REPLICAS", url.sentinelMaster.toUtf8()},
                                        [](const RedisValue &answer) { return answer.type == RedisValue::Type::Array; });
    QList<RedisEndpoint> replicas;
    for (const RedisValue &replica : reply.elements) {
        // A flat field, value, field, value... list per replica, down ones included.
        QByteArray ip;
        int port = 0;
        for (size_t i = 0; i + 1 < replica.elements.size(); i += 2) {
            const QByteArray field = replica.elements[i].toBytes();
            if (field == "ip")
                ip = replica.elements[i + 1].toBytes();
            else if (field == "port")
                port = replica.elements[i + 1].toBytes().toInt();
        }
        if (!ip.isEmpty() && port > 0)
            replicas.append({QString::fromUtf8(ip), port});
    }
    return replicas;
}

std::unique_ptr<RedisConnection> RedisSentinel::connectToMaster(const RedisUrl &url, const RedisOptions &options)
{
    const qint64 deadline = monotonicNs() + qint64(options.connectTimeout.count()) * 1'000'000;
    for (;;) {
        const RedisEndpoint master = askSentinels(url, options);
        auto connection = std::make_unique<RedisConnection>(master, url, options);
        const RedisValue role = connection->open({{"ROLE"}}).front();
        if (role.type == RedisValue::Type::Array && !role.elements.empty() && role.elements[0].toBytes() == "master")
            return connection;
        // Named before it was promoted, or demoted since: ask again after a pause.
        if (monotonicNs() + qint64(RolePause.count()) * 1'000'000 > deadline)
            throw RedisNotReadyError(RedisNotReadyError::State::MasterDown,
                                     tr("Redis at %1, which the sentinels name as the master '%2', answers ROLE as %3; a failover may "
                                        "be under way")
                                             .arg(master.text(), url.sentinelMaster,
                                                  QString::fromUtf8(role.isError() || role.elements.empty() ? role.string
                                                                                                              : role.elements[0].toBytes())));
        std::this_thread::sleep_for(RolePause);
    }
}

bool RedisSentinel::saysDemoted(const RedisValue &reply)
{
    return reply.isError() && reply.string.startsWith("READONLY");
}

RedisNotReadyError RedisSentinel::demoted(const RedisUrl &url, const RedisEndpoint &node)
{
    return RedisNotReadyError(RedisNotReadyError::State::MasterDown,
                              tr("Redis at %1 is no longer the master '%2' (a Sentinel failover); the next connection asks the "
                                 "sentinels again")
                                      .arg(node.text(), url.sentinelMaster));
}

} // namespace lantern
