#pragma once

#include "redis/redishandles.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QString>

#include <optional>
#include <string>

struct redisReply;

namespace lantern {

/** Appends `args` as one RESP command (an array of bulk strings) to `out`. Written here in one
    buffer: hiredis 0.14's redisFormatSdsCommandArgv runs sdscatfmt per argument (~600
    instructions each). */
void appendRespCommand(std::string &out, const QByteArrayList &args);

/** An owned copy of a hiredis reply (throws RedisReplyError for a type RESP2 does not have). */
RedisValue toRedisValue(const redisReply *reply);

/** hiredis's RESP parser over bytes someone else read (a socket, a TLS session): the one reply
    reader of both clients. */
class RespReader final {
public:
    /** `source` names the node in errors ("127.0.0.1:6379"). */
    explicit RespReader(QString source);

    /** Throws RedisIoError when the bytes are not RESP. */
    void feed(const char *data, size_t size);
    /** The next complete reply among the bytes fed, if there is one. */
    std::optional<RedisValue> next();

private:
    [[noreturn]] void failUnreadable() const;

    QString m_source;
    RedisReaderPtr m_reader;
};

} // namespace lantern
