#pragma once

#include "redis/redishandles.h"
#include "redis/redisvalue.h"

#include <QByteArrayList>
#include <QString>

#include <optional>
#include <string>

namespace lantern {

/** Appends `args` as one RESP command (an array of bulk strings) to `out`. Written here in one
    buffer: hiredis 0.14's redisFormatSdsCommandArgv runs sdscatfmt per argument (~600
    instructions each). */
void appendRespCommand(std::string &out, const QByteArrayList &args);

/** hiredis's RESP parser over bytes someone else read (a socket, a TLS session): the one reply
    reader of both clients. The parser builds RedisValues itself (redisReplyObjectFunctions): no
    redisReply tree is allocated per reply and copied, and a reply's arrays and integers cost no
    allocation beyond their RedisValue's own. */
class RespReader final {
public:
    /** `source` names the node in errors ("127.0.0.1:6379"). */
    explicit RespReader(QString source);
    ~RespReader();
    RespReader(const RespReader &) = delete;
    RespReader &operator=(const RespReader &) = delete;

    /** Throws RedisIoError when the bytes are not RESP. */
    void feed(const char *data, size_t size);
    /** The next complete reply among the bytes fed, if there is one. */
    std::optional<RedisValue> next();

private:
    [[noreturn]] void failUnreadable() const;

    QString m_source;
    RedisValue m_root;  // the reply being read: the parser writes its values in place (before m_reader: it outlives it)
    RedisReaderPtr m_reader;
};

} // namespace lantern
