#include "redis/resp.h"

#include "redis/rediserror.h"

#include <hiredis/hiredis.h>

#include <QCoreApplication>

namespace lantern {

namespace {

void appendHeader(std::string &out, char kind, size_t n)
{
    char digits[24];
    char *end = digits + sizeof digits;
    char *p = end;
    do {
        *--p = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n != 0);
    out.push_back(kind);
    out.append(p, static_cast<size_t>(end - p));
    out.append("\r\n", 2);
}

} // namespace

void appendRespCommand(std::string &out, const QByteArrayList &args)
{
    appendHeader(out, '*', static_cast<size_t>(args.size()));
    for (const QByteArray &arg : args) {
        appendHeader(out, '$', static_cast<size_t>(arg.size()));
        out.append(arg.constData(), static_cast<size_t>(arg.size()));
        out.append("\r\n", 2);
    }
}

RedisValue toRedisValue(const redisReply *reply)
{
    RedisValue value;
    switch (reply->type) {
    case REDIS_REPLY_NIL:
        value.type = RedisValue::Type::Nil;
        break;
    case REDIS_REPLY_INTEGER:
        value.type = RedisValue::Type::Integer;
        value.integer = reply->integer;
        break;
    case REDIS_REPLY_STRING:
        value.type = RedisValue::Type::String;
        value.string = QByteArray(reply->str, static_cast<qsizetype>(reply->len));
        break;
    case REDIS_REPLY_STATUS:
        value.type = RedisValue::Type::Status;
        value.string = QByteArray(reply->str, static_cast<qsizetype>(reply->len));
        break;
    case REDIS_REPLY_ERROR:
        value.type = RedisValue::Type::Error;
        value.string = QByteArray(reply->str, static_cast<qsizetype>(reply->len));
        break;
    case REDIS_REPLY_ARRAY:
        value.type = RedisValue::Type::Array;
        value.elements.reserve(reply->elements);
        for (size_t i = 0; i < reply->elements; ++i)
            value.elements.push_back(toRedisValue(reply->element[i]));
        break;
    default:
        throw RedisReplyError(QCoreApplication::translate("lantern::RedisClient", "unsupported Redis reply type %1").arg(reply->type));
    }
    return value;
}

RespReader::RespReader(QString source) : m_source(std::move(source)), m_reader(redisReaderCreate())
{
    if (!m_reader)
        throw std::bad_alloc();
}

void RespReader::failUnreadable() const
{
    throw RedisIoError(QCoreApplication::translate("lantern::RedisClient", "Redis at %1 sent a reply that cannot be read: %2")
                               .arg(m_source, QString::fromUtf8(m_reader->errstr)));
}

void RespReader::feed(const char *data, size_t size)
{
    if (redisReaderFeed(m_reader.get(), data, size) != REDIS_OK)
        failUnreadable();
}

std::optional<RedisValue> RespReader::next()
{
    void *raw = nullptr;
    if (redisReaderGetReply(m_reader.get(), &raw) != REDIS_OK)
        failUnreadable();
    if (!raw)
        return std::nullopt;
    const RedisReplyPtr reply(static_cast<redisReply *>(raw));
    return toRedisValue(reply.get());
}

} // namespace lantern
