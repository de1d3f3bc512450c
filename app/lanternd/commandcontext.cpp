#include "commandcontext.h"

#include "sql/configconnections.h"
#include "core/errors.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "redis/redisdurability.h"
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

QString CommandContext::actor() const
{
    if (m_line.has(QStringLiteral("operator"))) {
        const QString name = m_line.value(QStringLiteral("operator")).trimmed();
        const bool unprintable = std::any_of(name.cbegin(), name.cend(), [](QChar c) {
            return c.category() == QChar::Other_Control || c == QChar::ReplacementCharacter;
        });
        if (name.isEmpty() || name.size() > MaxOperatorLength || unprintable || !name.isValidUtf16())
            throw InvalidInputError(QCoreApplication::translate("lantern::cli::Campaign",
                                                                "invalid --operator: expected 1 to %1 characters, no control characters, valid UTF-8")
                                            .arg(MaxOperatorLength));
        return name;
    }
    const QString user = QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER"));
    return user.isEmpty() ? QStringLiteral("lanternd") : user;
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
