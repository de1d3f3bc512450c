#include "commandcontext.h"

#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/redisdurability.h"
#include "settings/configconnections.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "token/usertoken.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcessEnvironment>

#include <algorithm>
#include <cstdio>

namespace lantern::cli {

CommandContext::CommandContext(CommandLine line)
    : m_line(std::move(line)), m_config(Config::resolve(m_line.settings())), m_keys(m_config.keyPrefix, m_config.shards)
{
    if (m_line.has(QStringLiteral("operator")))
        actor();  // an unusable --operator is refused before anything is contacted
    // Asked for by name, said at start (DESIGN §8): --redis-verify none checks no certificate.
    if (const QString warning = m_config.redis.tls.warning(m_config.redis.redacted()); !warning.isEmpty()) {
        std::fprintf(stderr, "lanternd: %s\n",
                     QCoreApplication::translate("lantern::cli::Commands", "warning: %1").arg(warning).toLocal8Bit().constData());
        std::fflush(stderr);
    }
}

CommandContext::~CommandContext() = default;

qint64 CommandContext::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

RedisClient &CommandContext::redis()
{
    if (!m_redis) {
        m_redis = openRedis(m_config);
        m_redis->ensureConnected();
    }
    return *m_redis;
}

SqlConnection &CommandContext::sql()
{
    if (!m_sql)
        m_sql = openSql(m_config);
    return *m_sql;
}

std::unique_ptr<SqlConnection> CommandContext::takeSql()
{
    sql();
    return std::move(m_sql);
}

qint64 CommandContext::user() const
{
    const bool hasUid = m_line.has(QStringLiteral("uid"));
    const bool hasToken = m_line.has(QStringLiteral("token"));
    if (hasUid == hasToken)
        throw InvalidInputError(hasUid ? tr("give --uid or --token, not both") : tr("missing --uid (or --token)"));
    if (hasUid)
        return parseUid(m_line.value(QStringLiteral("uid")));
    const QString token = m_line.value(QStringLiteral("token"));
    const auto uid = UserTokens(m_config.tokenSalt).uidOf(token);
    if (!uid)
        throw InvalidInputError(tr("invalid user token '%1'").arg(token));
    return *uid;
}

QString CommandContext::actor()
{
    QString typed;
    if (m_line.has(QStringLiteral("operator"))) {
        typed = m_line.value(QStringLiteral("operator")).trimmed();
        const bool unprintable = std::any_of(typed.cbegin(), typed.cend(), [](QChar c) {
            return c.category() == QChar::Other_Control || c == QChar::ReplacementCharacter;
        });
        if (typed.isEmpty() || typed.size() > MaxOperatorLength || unprintable || !typed.isValidUtf16())
            throw InvalidInputError(QCoreApplication::translate("lantern::cli::Campaign",
                                                                "invalid --operator: expected 1 to %1 characters, no control characters, valid UTF-8")
                                            .arg(MaxOperatorLength));
    }
    if (m_sql || m_identity) {
        // An operator's own account is the actor; nobody types another name for it.
        if (const access::AccountIdentity &who = identity(); who.role) {
            if (!typed.isEmpty() && typed != who.account)
                throw InvalidInputError(QCoreApplication::translate("lantern::cli::Campaign",
                                                                    "--operator %1: this account's actions are recorded as %2 (--operator is "
                                                                    "for shared accounts)")
                                                .arg(typed, who.account));
            return who.account;
        }
    }
    if (!typed.isEmpty())
        return typed;
    const QString user = QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER"));
    return user.isEmpty() ? QStringLiteral("lanternd") : user;
}

const access::AccountIdentity &CommandContext::identity()
{
    if (!m_identity) {
        if (m_config.db.dialect == DbUrl::Dialect::MySql) {
            m_identity = access::AccountIdentity::of(sql());
        } else {
            access::AccountIdentity who;
            who.account = !m_config.redis.user.isEmpty() ? m_config.redis.user
                                                         : QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER"));
            m_identity = who;
        }
    }
    return *m_identity;
}

void CommandContext::authorize(access::Action action)
{
    m_action = action;
    if (action == access::Action::None || m_config.db.dialect != DbUrl::Dialect::MySql)
        return;  // SQLite has no accounts; Redis alone refuses with NOPERM (mapped the same way)
    try {
        identity();
    } catch (const UnavailableError &) {
        return;  // SQL is down: a command that needs no SQL (a grab) goes on, and the servers decide
    }
    if (!identity().allows(action))
        throw ForbiddenError(identity().refusal(action));
}

QString CommandContext::refusal()
{
    if (!m_identity) {
        access::AccountIdentity who;
        who.account = !m_config.db.user.isEmpty() ? m_config.db.user : m_config.redis.user;
        if (who.account.isEmpty())
            who.account = QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER"));
        return who.refusal(m_action);
    }
    return m_identity->refusal(m_action);
}

void warnIfGrabsCanBeLost(CommandContext &context, const char *command)
{
    try {
        RedisClient &redis = context.redis();
        if (redis.command({QByteArrayLiteral("SCARD"), context.keys().campaignSet()}).toInteger() == 0)
            return;  // no envelope campaign has been launched on this Redis
        const QString warning = RedisDurability::read(redis).warning();
        if (!warning.isEmpty()) {
            std::fprintf(stderr, "lanternd %s: %s\n", command,
                         QCoreApplication::translate("lantern::cli::Commands", "warning: %1").arg(warning).toLocal8Bit().constData());
            std::fflush(stderr);
        }
    } catch (const UnavailableError &) {
    }
}

void printJson(const QJsonObject &object)
{
    const QByteArray text = QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), stdout);
    std::fflush(stdout);
}

} // namespace lantern::cli
