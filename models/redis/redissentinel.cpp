#include "redis/redissentinel.h"

#include "core/monotonicclock.h"
#include "redis/redisconnection.h"

#include <QHash>
#include <QStringList>

#include <mutex>
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

RedisEndpoint RedisSentinel::askSentinels(const RedisUrl &url, const RedisOptions &options)
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
            const RedisValue reply =
                    connection.open({{"SENTINEL", "GET-MASTER-ADDR-BY-NAME", url.sentinelMaster.toUtf8()}}).front();
            if (reply.type == RedisValue::Type::Array && reply.elements.size() == 2) {
                bool ok = false;
                const int port = reply.elements[1].toBytes().toInt(&ok);
                if (ok && port > 0 && port <= 65535) {
                    answered(url, sentinel);
                    return {QString::fromUtf8(reply.elements[0].toBytes()), port};
                }
            }
            if (reply.isNil())
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
