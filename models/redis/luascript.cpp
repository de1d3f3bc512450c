#include "redis/luascript.h"

#include "core/textwriter.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QCryptographicHash>
#include <QFile>
#include <QHash>
#include <QMutex>

#include <stdexcept>

namespace lantern {

namespace {

struct ScriptRegistry {
    QMutex mutex;
    QHash<QByteArray, QByteArray> bodies;  // sha1 -> body
};

ScriptRegistry &registry()
{
    static ScriptRegistry instance;
    return instance;
}

void remember(const QByteArray &sha1, const QByteArray &body)
{
    ScriptRegistry &scripts = registry();
    const QMutexLocker lock(&scripts.mutex);
    scripts.bodies.insert(sha1, body);
}

} // namespace

QByteArray LuaScript::bodyForSha1(const QByteArray &sha1)
{
    ScriptRegistry &scripts = registry();
    const QMutexLocker lock(&scripts.mutex);
    return scripts.bodies.value(sha1);
}

LuaScript::LuaScript(const QString &name) : m_name(name)
{
    QFile file(QStringLiteral(":/lua/") + name + QStringLiteral(".lua"));
    if (!file.open(QIODevice::ReadOnly))
        throw std::logic_error("Lua script resource missing: " + name.toStdString());
    m_body = file.readAll();
    m_sha1 = QCryptographicHash::hash(m_body, QCryptographicHash::Sha1).toHex();
    remember(m_sha1, m_body);
}

LuaScript::LuaScript(const QString &name, const QByteArray &body)
    : m_name(name), m_body(body), m_sha1(QCryptographicHash::hash(m_body, QCryptographicHash::Sha1).toHex())
{
    remember(m_sha1, m_body);
}

QByteArrayList LuaScript::evalshaCommand(const QByteArrayList &keys, const QByteArrayList &args) const
{
    return evalshaCommand(QByteArrayList(keys), QByteArrayList(args));
}

QByteArrayList LuaScript::evalshaCommand(QByteArrayList &&keys, QByteArrayList &&args) const
{
    QByteArrayList command;
    command.reserve(3 + keys.size() + args.size());
    command << QByteArrayLiteral("EVALSHA") << m_sha1 << decimal(keys.size());
    for (QByteArray &key : keys)
        command << std::move(key);
    for (QByteArray &argument : args)
        command << std::move(argument);
    return command;
}

RedisValue LuaScript::run(RedisClient &redis, const QByteArrayList &keys, const QByteArrayList &args) const
{
    try {
        return redis.command(evalshaCommand(keys, args));
    } catch (const RedisReplyError &error) {
        if (!error.message().startsWith(QLatin1String("NOSCRIPT")))
            throw;
    }
    QByteArray loaded;
    try {
        loaded = redis.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), m_body}).toBytes();
    } catch (const ForbiddenError &) {
        // An operator's account may not load scripts (docs/security.md): the services do.
        throw UnavailableError(tr("Redis %1 does not hold Lantern's script %2 (after a restart or SCRIPT FLUSH) and this account may "
                                  "not load it: start a worker or the API, or run lanternd access install, which load the scripts")
                                       .arg(redis.url().redacted(), m_name));
    }
    if (loaded != m_sha1)
        throw RedisReplyError(tr("Redis computed a different SHA1 for script %1").arg(m_name));
    return redis.command(evalshaCommand(keys, args));
}

} // namespace lantern
