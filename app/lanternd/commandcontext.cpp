#include "commandcontext.h"

#include "core/errors.h"
#include "redis/redisclient.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QProcessEnvironment>

#include <cstdio>

namespace lantern::cli {

CommandContext::CommandContext(CommandLine line)
    : m_line(std::move(line)), m_config(Config::resolve(m_line.settings())), m_keys(m_config.keyPrefix, m_config.shards)
{
}

CommandContext::~CommandContext() = default;

qint64 CommandContext::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

RedisClient &CommandContext::redis()
{
    if (!m_redis) {
        m_redis = std::make_unique<RedisClient>(m_config.redis);
        m_redis->ensureConnected();
    }
    return *m_redis;
}

SqlConnection &CommandContext::sql()
{
    if (!m_sql)
        m_sql = openMigrated(m_config.db);
    return *m_sql;
}

void CommandContext::closeSql()
{
    m_sql.reset();
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
    if (m_line.has(QStringLiteral("operator")))
        return m_line.value(QStringLiteral("operator"));
    const QString user = QProcessEnvironment::systemEnvironment().value(QStringLiteral("USER"));
    return user.isEmpty() ? QStringLiteral("lanternd") : user;
}

void printJson(const QJsonObject &object)
{
    const QByteArray text = QJsonDocument(object).toJson(QJsonDocument::Compact) + '\n';
    std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), stdout);
    std::fflush(stdout);
}

} // namespace lantern::cli
