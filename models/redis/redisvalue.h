#pragma once

#include <QByteArray>
#include <QByteArrayList>

#include <vector>

namespace lantern {

/** An owned copy of one RESP2 reply, so no hiredis memory escapes the client. */
struct RedisValue {
    enum class Type { Nil, Integer, String, Status, Array, Error };

    Type type = Type::Nil;
    long long integer = 0;
    QByteArray string;  // String, Status and Error payloads
    std::vector<RedisValue> elements;

    bool isNil() const { return type == Type::Nil; }
    bool isError() const { return type == Type::Error; }
    /** Integer replies, or strings that hold an integer; throws RedisReplyError otherwise. */
    long long toInteger() const;
    /** String/Status payload, empty for Nil; throws RedisReplyError for other types. */
    QByteArray toBytes() const;
    /** An array reply's elements, each as toBytes() (LRANGE, a script returning entries). */
    QByteArrayList toBytesList() const;
};

/** Throws RedisReplyError with the first error reply among a pipeline's replies. */
void throwOnErrorReply(const std::vector<RedisValue> &replies);
/** Throws RedisReplyError when `reply` is an error reply, ForbiddenError when it is an ACL
    refusal (isPermissionRefusal). */
void throwOnErrorReply(const RedisValue &reply);
/** Whether an error reply says the account may not run the command or touch its keys. */
bool isPermissionRefusal(const QByteArray &errorReply);

} // namespace lantern
