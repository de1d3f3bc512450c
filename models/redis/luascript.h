#pragma once

#include "redis/redisvalue.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QCoreApplication>
#include <QString>

namespace lantern {

class RedisClient;

/** A Lua script compiled into the binary from resources/lua/NAME.lua.
    Runs with EVALSHA; on NOSCRIPT (fresh or flushed server) it loads the body once and retries. */
class LuaScript final {
    Q_DECLARE_TR_FUNCTIONS(lantern::LuaScript)

public:
    /** Loads ":/lua/<name>.lua"; throws std::logic_error if the resource is missing. */
    explicit LuaScript(const QString &name);
    /** A script from source text (tests, tools); `name` is for messages only. */
    LuaScript(const QString &name, const QByteArray &body);

    RedisValue run(RedisClient &redis, const QByteArrayList &keys, const QByteArrayList &args) const;

    /** The EVALSHA command line, for pipelines and for redis-benchmark. */
    QByteArrayList evalshaCommand(const QByteArrayList &keys, const QByteArrayList &args) const;
    /** The same, moving the keys and arguments in rather than sharing them (a request's own). */
    QByteArrayList evalshaCommand(QByteArrayList &&keys, QByteArrayList &&args) const;
    const QByteArray &sha1() const { return m_sha1; }
    const QByteArray &body() const { return m_body; }
    const QString &name() const { return m_name; }

    /** The body of a script some LuaScript of this process holds, by its SHA1; empty if none. */
    static QByteArray bodyForSha1(const QByteArray &sha1);

private:
    QString m_name;
    QByteArray m_body;
    QByteArray m_sha1;  // lowercase hex, as SCRIPT LOAD returns it
};

} // namespace lantern
