#pragma once

#include "core/errors.h"

#include <QByteArray>

#include <optional>

namespace lantern {

/** The connection failed or broke; the context was discarded and the next command reconnects. */
class RedisIoError : public UnavailableError {
public:
    using UnavailableError::UnavailableError;
};

/** TLS to Redis failed: a certificate that is not trusted, expired or for another name, a port
    that does not speak TLS, a client certificate the server refused. The words say which
    (docs/connect.md). An outage like RedisIoError (exit 3): nothing was sent. */
class RedisTlsError final : public RedisIoError {
public:
    using RedisIoError::RedisIoError;
};

/** The server is not what the URL says: a database it does not have, a database on a cluster
    node. The same error on every path (docs/connect.md): bad input for a command (exit 2, nothing
    opened), and HTTP 503 from `lanternd serve`, whose clients are not at fault. */
class RedisUrlMismatchError final : public InvalidInputError {
public:
    using InvalidInputError::InvalidInputError;
};

/** Redis did not answer within the command (or connect) timeout. */
class RedisTimeoutError final : public RedisIoError {
public:
    using RedisIoError::RedisIoError;
};

/** Redis answered with an error reply (-ERR, -NOSCRIPT, ...), or a reply of an unexpected shape. */
class RedisReplyError final : public LanternError {
public:
    using LanternError::LanternError;
};

/** A request a Redis Cluster cannot run as it is written: keys in different slots (what the
    cluster would refuse with -CROSSSLOT), or a command whose answer is per node (SCAN, KEYS,
    WAIT, SELECT). Refused before anything of it was sent (exit 1: the code must change, not the
    input). docs/cluster.md lists the product paths that meet it. */
class RedisClusterRefusal final : public LanternError {
public:
    using LanternError::LanternError;
};

/** Redis answered but cannot serve for now: it is loading its dataset after a restart (-LOADING),
    running a script past its time limit (-BUSY), a replica cut off from its primary
    (-MASTERDOWN), or part of a cluster that is down or moving keys (-CLUSTERDOWN, -TRYAGAIN).
    The commands answered so did not run (others of the same pipeline may have). An outage like
    RedisIoError (exit 3, HTTP 503), but the connection is healthy and kept. */
class RedisNotReadyError final : public UnavailableError {
public:
    enum class State { Loading, Busy, MasterDown, ClusterDown, TryAgain };

    RedisNotReadyError(State state, const QString &message) : UnavailableError(message), m_state(state) {}
    State state() const { return m_state; }

    /** The state an error reply names by its first word, if it is one of these passing states. */
    static std::optional<State> stateOf(const QByteArray &errorReply);
    /** The error for a reply naming `state` from Redis at host:port, in words for people. */
    static RedisNotReadyError at(State state, const QString &host, int port);

private:
    State m_state;
};

} // namespace lantern
