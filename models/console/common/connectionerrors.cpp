#include "console/common/connectionerrors.h"

#include "access/accountidentity.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "sql/sqlconnection.h"

namespace lantern {

namespace {

bool containsAny(const QString &text, std::initializer_list<const char *> needles)
{
    for (const char *needle : needles) {
        if (text.contains(QLatin1String(needle), Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace

PlainFailure ConnectionErrors::explain(const std::exception &error, const Config &config)
{
    const QString detail = QString::fromStdString(error.what());
    const QString redis = config.redis.redacted();
    const QString db = config.db.redacted();
    if (dynamic_cast<const RedisReadOnlyError *>(&error) || dynamic_cast<const SqlReadOnlyError *>(&error))
        return {tr("This connection is read-only: the request would have changed data, so it was not sent."), detail};
    if (dynamic_cast<const ForbiddenError *>(&error)) {
        // A server refused for want of a right (issue 25): rights changed since the console read
        // the account's role, or an account without a Lantern role.
        const QString account = !config.db.user.isEmpty() ? config.db.user : config.redis.user;
        return {tr("The account %1 may not do this: the servers refused it (its rights may have changed since the console read them).")
                        .arg(account),
                detail};
    }
    if (const auto *notReady = dynamic_cast<const RedisNotReadyError *>(&error)) {
        switch (notReady->state()) {
        case RedisNotReadyError::State::Loading:
            return {tr("Redis at %1 is loading its dataset after a restart. Try again in a moment.").arg(redis), detail};
        case RedisNotReadyError::State::Busy:
            return {tr("Redis at %1 is busy running a script. Try again in a moment.").arg(redis), detail};
        case RedisNotReadyError::State::MasterDown:
            return {tr("Redis at %1 is a replica that lost its link to the primary. Try again in a moment.").arg(redis), detail};
        case RedisNotReadyError::State::ClusterDown:
        case RedisNotReadyError::State::TryAgain:
            return {tr("The Redis cluster of %1 cannot serve this request right now. Try again in a moment.").arg(redis), detail};
        }
    }
    if (dynamic_cast<const RedisTlsError *>(&error)) {
        // The words say what is wrong with the certificate or the port: they are the message.
        const qsizetype cut = detail.indexOf(QLatin1Char(' '), detail.indexOf(QLatin1String("Redis at ")) + 9);
        return {tr("TLS to Redis at %1 failed: the server %2").arg(redis, cut > 0 ? detail.mid(cut + 1) : detail), detail};
    }
    if (dynamic_cast<const RedisUrlMismatchError *>(&error))
        return {detail, detail};
    if (dynamic_cast<const RedisIoError *>(&error)) {
        if (containsAny(detail, {"NOPERM"}))
            return {tr("The Redis user of %1 is not allowed to connect this way.").arg(redis), detail};
        // AUTH answered with an error: WRONGPASS, "invalid password", or a password given to a
        // server that has none.
        if (containsAny(detail, {"WRONGPASS", "invalid password", "invalid username-password", "NOAUTH", "without any password configured"}))
            return {tr("Redis at %1 refused the user name or password.").arg(redis), detail};
        if (dynamic_cast<const RedisTimeoutError *>(&error))
            return {tr("Redis at %1 did not answer in time. Check that it is running and reachable, then try again.").arg(redis), detail};
        return {tr("Redis at %1 does not answer. Check that it is running, then try again.").arg(redis), detail};
    }
    if (dynamic_cast<const RedisReplyError *>(&error)) {
        if (containsAny(detail, {"NOPERM"}))
            return {tr("The Redis user of %1 is not allowed to do this.").arg(redis), detail};
        return {tr("Redis refused the request."), detail};
    }
    if (dynamic_cast<const SqlUnavailableError *>(&error)) {
        if (containsAny(detail, {"Access denied for user", "[1045]"}))
            return {tr("The database at %1 refused the user name or password.").arg(db), detail};
        if (containsAny(detail, {"Unknown database", "[1049]"}))
            return {tr("The database server at %1 has no database named “%2”.").arg(db, config.db.database), detail};
        if (config.db.dialect == DbUrl::Dialect::Sqlite)
            return {tr("The database file %1 cannot be opened. Check that it exists and can be read.").arg(config.db.path), detail};
        return {tr("The database at %1 cannot be reached. Check that it is running, then try again.").arg(db), detail};
    }
    if (dynamic_cast<const SqlError *>(&error)) {
        if (containsAny(detail, {"[1792]", "READ ONLY transaction", "attempt to write a readonly database"}))
            return {tr("This connection is read-only: the database refused a change."), detail};
        if (containsAny(detail, {"[1142]", "[1044]", "command denied", "[1227]"}))
            return {tr("The database user of %1 is not allowed to do this.").arg(db), detail};
        if (containsAny(detail, {"no such table", "[1146]"}))
            return {tr("The database at %1 has no Lantern tables yet (run “lanternd migrate” first).").arg(db), detail};
        return {tr("The database refused the request."), detail};
    }
    if (const auto *invalid = dynamic_cast<const InvalidInputError *>(&error))
        return {invalid->message(), {}};  // already worded for people by whoever threw it
    if (const auto *refused = dynamic_cast<const RefusedError *>(&error))
        return {refused->message(), {}};  // a business rule said no, in its own words
    return {tr("Something went wrong while talking to Redis or the database."), detail};
}

QString ConnectionErrors::redisStatus(const std::exception &error)
{
    // Each follows "Redis" in the status bar: "Redis is loading · SQL 1.2 ms".
    if (const auto *notReady = dynamic_cast<const RedisNotReadyError *>(&error)) {
        switch (notReady->state()) {
        //: Redis state in the status bar, after "Redis": it is reading its data after a restart.
        case RedisNotReadyError::State::Loading: return tr("is loading");
        //: Redis state in the status bar, after "Redis": a script is running too long.
        case RedisNotReadyError::State::Busy: return tr("is busy");
        //: Redis state in the status bar, after "Redis": it answers but cannot serve for now.
        default: return tr("is unavailable");
        }
    }
    //: Redis state in the status bar, after "Redis": its certificate or TLS set-up was refused.
    if (dynamic_cast<const RedisTlsError *>(&error))
        return tr("TLS refused");
    //: Redis state in the status bar, after "Redis": it does not answer.
    return tr("down");
}

bool ConnectionErrors::dropsSqlConnection(const std::exception &error)
{
    return dynamic_cast<const SqlUnavailableError *>(&error) != nullptr;
}

PlainFailure ConnectionErrors::explain(const std::exception &error, const Config &config, LazyConnections &connections)
{
    if (dynamic_cast<const RedisIoError *>(&error))
        connections.dropRedis();
    if (dropsSqlConnection(error))
        connections.dropSql();
    return explain(error, config);
}

PlainFailure ConnectionErrors::explain(const std::exception &error, const Config &config, LazyConnections &connections, access::Action action)
{
    if (!dynamic_cast<const ForbiddenError *>(&error))
        return explain(error, config, connections);
    // Named as the console's disabled button would have named it, with the role the account has
    // now (its rights may have changed since the session began).
    access::AccountIdentity identity;
    try {
        identity = access::AccountIdentity::of(connections.sql());
    } catch (const std::exception &) {
        identity.account = !config.db.user.isEmpty() ? config.db.user : config.redis.user;
    }
    if (identity.account.isEmpty())
        return explain(error, config);  // no account to name (SQLite, Redis's default user)
    QString refusal = identity.refusal(action);
    if (!refusal.isEmpty())
        refusal[0] = refusal[0].toUpper();
    return {tr("%1: the servers refused it (its rights may have changed since the console read them).").arg(refusal),
            QString::fromStdString(error.what())};
}

} // namespace lantern
