#pragma once

#include "redis/redisvalue.h"

#include <QByteArrayList>

#include <string>

struct redisReply;

namespace lantern {

/** Appends `args` as one RESP command (an array of bulk strings) to `out`. Written here in one
    buffer: hiredis 0.14's redisFormatSdsCommandArgv runs sdscatfmt per argument (~600
    instructions each). */
void appendRespCommand(std::string &out, const QByteArrayList &args);

/** An owned copy of a hiredis reply (throws RedisReplyError for a type RESP2 does not have). */
RedisValue toRedisValue(const redisReply *reply);

} // namespace lantern
