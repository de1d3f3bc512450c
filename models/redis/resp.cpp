#include "redis/resp.h"

#include "redis/rediserror.h"

#include <hiredis/hiredis.h>

#include <QCoreApplication>

#include <charconv>
#include <cstring>

namespace lantern {

namespace {

size_t headerSize(size_t n)
{
    size_t digits = 1;
    while (n >= 10) {
        n /= 10;
        ++digits;
    }
    return digits + 3;  // kind, digits, CRLF
}

char *putHeader(char *p, char kind, size_t n)
{
    *p++ = kind;
    p = std::to_chars(p, p + 20, n).ptr;
    *p++ = '\r';
    *p++ = '\n';
    return p;
}

// The reader's object functions: hiredis asks for each value of a reply as it parses it, and each
// is written in place, the reply itself into the reader's root (the task's privdata), an array's
// elements into the array, which was sized when its header was read (so no element moves while
// its children are written). Nothing here allocates beyond a RedisValue's own string or elements;
// a failed allocation is answered with null, which hiredis reports as "Out of memory".

RedisValue *slotOf(const redisReadTask *task)
{
    if (!task->parent)
        return static_cast<RedisValue *>(task->privdata);
    auto *array = static_cast<RedisValue *>(task->parent->obj);
    return &array->elements[static_cast<size_t>(task->idx)];
}

void *createString(const redisReadTask *task, char *str, size_t len) noexcept
{
    RedisValue *value = slotOf(task);
    switch (task->type) {
    case REDIS_REPLY_STATUS: value->type = RedisValue::Type::Status; break;
    case REDIS_REPLY_ERROR: value->type = RedisValue::Type::Error; break;
    default: value->type = RedisValue::Type::String; break;
    }
    try {
        value->string = QByteArray(str, static_cast<qsizetype>(len));
    } catch (...) {
        return nullptr;
    }
    return value;
}

void *createArray(const redisReadTask *task, int elements) noexcept
{
    RedisValue *value = slotOf(task);
    value->type = RedisValue::Type::Array;
    try {
        value->elements.resize(static_cast<size_t>(elements));
    } catch (...) {
        return nullptr;
    }
    return value;
}

void *createInteger(const redisReadTask *task, long long integer) noexcept
{
    RedisValue *value = slotOf(task);
    value->type = RedisValue::Type::Integer;
    value->integer = integer;
    return value;
}

void *createNil(const redisReadTask *task) noexcept
{
    RedisValue *value = slotOf(task);
    value->type = RedisValue::Type::Nil;
    return value;
}

// A reply abandoned half-read (a protocol error, the reader freed): its values are the reader's
// root and what hangs from it, owned there; emptying the root is all that is left to do.
void freeObject(void *object) noexcept
{
    *static_cast<RedisValue *>(object) = RedisValue{};
}

redisReplyObjectFunctions inPlaceFunctions{createString, createArray, createInteger, createNil, freeObject};

} // namespace

void appendRespCommand(std::string &out, const QByteArrayList &args)
{
    // The command's exact size first, then one resize and plain copies.
    size_t size = headerSize(static_cast<size_t>(args.size()));
    for (const QByteArray &arg : args)
        size += headerSize(static_cast<size_t>(arg.size())) + static_cast<size_t>(arg.size()) + 2;
    const size_t start = out.size();
    out.resize(start + size);
    char *p = putHeader(out.data() + start, '*', static_cast<size_t>(args.size()));
    for (const QByteArray &arg : args) {
        p = putHeader(p, '$', static_cast<size_t>(arg.size()));
        if (!arg.isEmpty())
            std::memcpy(p, arg.constData(), static_cast<size_t>(arg.size()));
        p += arg.size();
        *p++ = '\r';
        *p++ = '\n';
    }
}

RespReader::RespReader(QString source) : m_source(std::move(source)), m_reader(redisReaderCreateWithFunctions(&inPlaceFunctions))
{
    if (!m_reader)
        throw std::bad_alloc();
    m_reader->privdata = &m_root;
}

RespReader::~RespReader() = default;

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
    void *reply = nullptr;
    if (redisReaderGetReply(m_reader.get(), &reply) != REDIS_OK)
        failUnreadable();
    if (!reply)
        return std::nullopt;
    return std::exchange(m_root, RedisValue{});
}

} // namespace lantern
