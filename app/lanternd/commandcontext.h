#pragma once

#include "access/accountidentity.h"
#include "commandline.h"
#include "redis/keyschema.h"
#include "settings/config.h"

#include <QCoreApplication>
#include <QJsonObject>

#include <memory>

namespace lantern {
class RedisClient;
class SqlConnection;
}

namespace lantern::cli {

/** What a command handler gets: its parsed line, the resolved configuration and connections
    opened on first use (so validation always runs before anything is contacted). */
class CommandContext final {
    Q_DECLARE_TR_FUNCTIONS(lantern::cli::CommandContext)

public:
    explicit CommandContext(CommandLine line);
    ~CommandContext();
    Q_DISABLE_COPY_MOVE(CommandContext)

    const CommandLine &line() const { return m_line; }
    const Config &config() const { return m_config; }
    const KeySchema &keys() const { return m_keys; }
    QDate today() const { return m_config.today(); }
    qint64 nowMs() const;

    RedisClient &redis();
    /** Opens SQL and brings its schema up to date (migrations are idempotent). */
    SqlConnection &sql();
    /** Hands the SQL connection over to a caller that keeps it (a worker's shift, which drops it
        after an outage); opened first when it is not yet. The next sql() opens a new one. */
    std::unique_ptr<SqlConnection> takeSql();

    /** The user a command is about: --uid (a positive number) or --token (a public token). */
    qint64 user() const;
    static constexpr int MaxOperatorLength = 64;

    /** Who runs an operator action. Under an account with a Lantern role: that account (an
        --operator naming anyone else is refused). Else --operator (trimmed; 1 to 64
        characters, no control characters, valid UTF-8, else InvalidInputError — checked on
        construction), else $USER. The audit row's `account` is stamped by the database either way. */
    QString actor();

    /** Who the servers know this command as (MariaDB/MySQL: read once; else the Redis or
        database URL's user, or $USER, with no role). */
    const access::AccountIdentity &identity();
    /** Refuses (ForbiddenError, before anything is written) an action the account's role does not
        allow; remembers the action for the message of a server's refusal later. */
    void authorize(access::Action action);
    /** "the account alice (support) may not launch campaigns", for the authorized action. */
    QString refusal();

private:
    CommandLine m_line;
    Config m_config;
    KeySchema m_keys;
    std::unique_ptr<RedisClient> m_redis;
    std::unique_ptr<SqlConnection> m_sql;
    std::optional<access::AccountIdentity> m_identity;
    access::Action m_action = access::Action::None;
};

/** For long-running commands: a line on stderr when envelope campaigns run on a Redis whose
    persistence can lose grabs it acknowledged (RedisDurability). Silent when Redis is down: the
    command's own loop reports that. */
void warnIfGrabsCanBeLost(CommandContext &context, const char *command);

/** Prints one JSON object on stdout (DESIGN §6). */
void printJson(const QJsonObject &object);

} // namespace lantern::cli
