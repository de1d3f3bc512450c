#include "redis/luascript.h"

#include "redis/redisclient.h"
#include "redis/rediserror.h"

#include <QCryptographicHash>
#include <QFile>

#include <stdexcept>

namespace lantern {

LuaScript::LuaScript(const QString &name) : m_name(name)
{
    QFile file(QStringLiteral(":/lua/") + name + QStringLiteral(".lua"));
    if (!file.open(QIODevice::ReadOnly))
        throw std::logic_error("Lua script resource missing: " + name.toStdString());
    m_body = file.readAll();
    m_sha1 = QCryptographicHash::hash(m_body, QCryptographicHash::Sha1).toHex();
}

LuaScript::LuaScript(const QString &name, const QByteArray &body)
    : m_name(name), m_body(body), m_sha1(QCryptographicHash::hash(m_body, QCryptographicHash::Sha1).toHex())
{
}

QByteArrayList LuaScript::evalshaCommand(const QByteArrayList &keys, const QByteArrayList &args) const
{
    QByteArrayList command{QByteArrayLiteral("EVALSHA"), m_sha1, QByteArray::number(keys.size())};
    command << keys << args;
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
    const QByteArray loaded = redis.command({QByteArrayLiteral("SCRIPT"), QByteArrayLiteral("LOAD"), m_body}).toBytes();
    if (loaded != m_sha1)
        throw RedisReplyError(tr("Redis computed a different SHA1 for script %1").arg(m_name));
    return redis.command(evalshaCommand(keys, args));
}

} // namespace lantern
