#pragma once

#include "redis/rediserror.h"
#include "redis/redisoptions.h"
#include "redis/redisurl.h"
#include "redis/redisvalue.h"

#include <QCoreApplication>
#include <QList>

#include <functional>
#include <memory>

namespace lantern {

class RedisConnection;

/** The master of a redis-sentinel:// URL, found as redis.io's "Sentinel clients" steps say:
    the sentinels in order with short timeouts (the first that answers goes to the front, for
    this process), SENTINEL get-master-addr-by-name, a connection to the address it names with
    the URL's AUTH and SELECT, and ROLE: a node that is not (yet) the master is asked again after
    a pause, within the connect timeout. Asked again on every new connection: a client never
    remembers a master. Errors: no sentinel answered (RedisIoError, each sentinel's reason), no
    sentinel knows the master's name (RedisUrlMismatchError), the named node never became the
    master (RedisNotReadyError, MasterDown). */
class RedisSentinel final {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    /** Each sentinel is given this long to connect and answer (the connect timeout if shorter). */
    static constexpr std::chrono::milliseconds SentinelTimeout{300};
    /** A node that answers ROLE with anything but master is asked again after this pause. */
    static constexpr std::chrono::milliseconds RolePause{200};

    /** The master's address by the sentinels' word only (no connection to it). */
    static RedisEndpoint askSentinels(const RedisUrl &url, const RedisOptions &options);
    /** The master's replicas as the sentinels know them (SENTINEL REPLICAS), those they hold
        as down included; the same errors as askSentinels(). */
    static QList<RedisEndpoint> askReplicas(const RedisUrl &url, const RedisOptions &options);
    /** An open connection to the master, ROLE checked. */
    static std::unique_ptr<RedisConnection> connectToMaster(const RedisUrl &url, const RedisOptions &options);
    /** The error for a reply -READONLY from `node`: it was the master and is a replica now. */
    static RedisNotReadyError demoted(const RedisUrl &url, const RedisEndpoint &node);
    /** Whether `reply` says its node is a replica now (-READONLY): the master moved. */
    static bool saysDemoted(const RedisValue &reply);

private:
    /** The URL's sentinels, the one that answered last first. */
    static QList<RedisEndpoint> sentinelsInOrder(const RedisUrl &url);
    static void answered(const RedisUrl &url, const RedisEndpoint &sentinel);
    /** `args` to the sentinels in order (their own credentials, short timeouts) until one's
        reply `accepts`; a null reply or "No such master" means that sentinel does not know the
        master. Throws the errors askSentinels() names. */
    static RedisValue askInOrder(const RedisUrl &url, const RedisOptions &options, const QByteArrayList &args,
                                 const std::function<bool(const RedisValue &)> &accepts);
};

} // namespace lantern
