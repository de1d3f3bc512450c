// RespReader (the reply reader of both Redis clients) against hiredis's own reply objects, and
// appendRespCommand against hiredis's redisFormatCommandArgv, byte for byte.
#include "redis/rediserror.h"
#include "redis/resp.h"
#include "testsuite.h"

#include <hiredis/hiredis.h>

#include <QTest>

#include <algorithm>
#include <optional>
#include <vector>

namespace tst_respreader {

using namespace lantern;

namespace {

/** A value as text, to compare two readers' trees: "int:5", "str:abc", "[int:1,nil]". */
QByteArray describe(const RedisValue &value)
{
    switch (value.type) {
    case RedisValue::Type::Nil: return "nil";
    case RedisValue::Type::Integer: return "int:" + QByteArray::number(value.integer);
    case RedisValue::Type::String: return "str:" + value.string.toHex();
    case RedisValue::Type::Status: return "status:" + value.string.toHex();
    case RedisValue::Type::Error: return "error:" + value.string.toHex();
    case RedisValue::Type::Array: {
        QByteArrayList parts;
        for (const RedisValue &element : value.elements)
            parts << describe(element);
        return '[' + parts.join(',') + ']';
    }
    }
    return "?";
}

/** hiredis's default reply object, described the same way: the reference. */
QByteArray describe(const redisReply *reply)
{
    switch (reply->type) {
    case REDIS_REPLY_NIL: return "nil";
    case REDIS_REPLY_INTEGER: return "int:" + QByteArray::number(reply->integer);
    case REDIS_REPLY_STRING: return "str:" + QByteArray(reply->str, qsizetype(reply->len)).toHex();
    case REDIS_REPLY_STATUS: return "status:" + QByteArray(reply->str, qsizetype(reply->len)).toHex();
    case REDIS_REPLY_ERROR: return "error:" + QByteArray(reply->str, qsizetype(reply->len)).toHex();
    case REDIS_REPLY_ARRAY: {
        QByteArrayList parts;
        for (size_t i = 0; i < reply->elements; ++i)
            parts << describe(reply->element[i]);
        return '[' + parts.join(',') + ']';
    }
    default: return "?";
    }
}

QByteArrayList referenceReplies(const QByteArray &bytes)
{
    const RedisReaderPtr reader(redisReaderCreate());
    redisReaderFeed(reader.get(), bytes.constData(), size_t(bytes.size()));
    QByteArrayList out;
    for (;;) {
        void *raw = nullptr;
        if (redisReaderGetReply(reader.get(), &raw) != REDIS_OK || !raw)
            return out;
        const RedisReplyPtr reply(static_cast<redisReply *>(raw));
        out << describe(reply.get());
    }
}

/** Every reply RespReader reads from `bytes` fed in pieces of `piece` bytes (0: at once). */
QByteArrayList ourReplies(const QByteArray &bytes, qsizetype piece)
{
    RespReader reader(QStringLiteral("test"));
    QByteArrayList out;
    const qsizetype step = piece > 0 ? piece : std::max<qsizetype>(bytes.size(), 1);
    for (qsizetype at = 0; at < bytes.size(); at += step) {
        reader.feed(bytes.constData() + at, size_t(std::min(step, bytes.size() - at)));
        while (const std::optional<RedisValue> value = reader.next())
            out << describe(*value);
    }
    return out;
}

} // namespace

class TestRespReader : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void sameAsHiredis_data();
    void sameAsHiredis();
    void unreadable_data();
    void unreadable();
    void commandBytes_data();
    void commandBytes();
};

void TestRespReader::sameAsHiredis_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<int>("replies");

    const QByteArray big(100'000, 'x');
    QTest::newRow("integer") << QByteArray(":42\r\n") << 1;
    QTest::newRow("negative integer, the smallest") << QByteArray(":-9223372036854775808\r\n") << 1;
    QTest::newRow("bulk string") << QByteArray("$3\r\nabc\r\n") << 1;
    QTest::newRow("empty bulk string") << QByteArray("$0\r\n\r\n") << 1;
    QTest::newRow("nil bulk string") << QByteArray("$-1\r\n") << 1;
    QTest::newRow("binary bulk string with CRLF and NUL") << QByteArray("$6\r\na\r\n\0b\r\r\n", 12) << 1;
    QTest::newRow("status") << QByteArray("+OK\r\n") << 1;
    QTest::newRow("error") << QByteArray("-NOSCRIPT No matching script\r\n") << 1;
    QTest::newRow("empty array") << QByteArray("*0\r\n") << 1;
    QTest::newRow("nil array") << QByteArray("*-1\r\n") << 1;
    QTest::newRow("grab's answer: array of status, integers, nil")
            << QByteArray("*5\r\n$2\r\nok\r\n:17\r\n:1234\r\n$-1\r\n:1\r\n") << 1;
    QTest::newRow("nested arrays, three deep, empty and nil inside")
            << QByteArray("*3\r\n*2\r\n*1\r\n:1\r\n*0\r\n*-1\r\n$1\r\nz\r\n") << 1;
    QTest::newRow("an error inside an array (EXEC)") << QByteArray("*2\r\n+OK\r\n-ERR wrong\r\n") << 1;
    QTest::newRow("several replies in a row") << QByteArray("+OK\r\n:1\r\n*2\r\n:2\r\n:3\r\n$-1\r\n-ERR x\r\n") << 5;
    QTest::newRow("a 100 KB bulk string") << QByteArray("$100000\r\n" + big + "\r\n") << 1;
    QByteArray wide("*1000\r\n");
    for (int i = 0; i < 1000; ++i)
        wide += ":" + QByteArray::number(i) + "\r\n";
    QTest::newRow("an array of 1000 integers") << wide << 1;
}

void TestRespReader::sameAsHiredis()
{
    QFETCH(QByteArray, bytes);
    QFETCH(int, replies);

    const QByteArrayList expected = referenceReplies(bytes);
    QCOMPARE(expected.size(), replies);
    for (const qsizetype piece : {qsizetype(0), qsizetype(1), qsizetype(3), qsizetype(1000)})
        QCOMPARE(ourReplies(bytes, piece), expected);
}

void TestRespReader::unreadable_data()
{
    QTest::addColumn<QByteArray>("bytes");

    QTest::newRow("unknown type byte") << QByteArray("?what\r\n");
    QTest::newRow("bad bulk length") << QByteArray("$abc\r\n");
    QTest::newRow("unknown type inside an array, after elements were read") << QByteArray("*3\r\n:1\r\n$3\r\nabc\r\n?x\r\n");
    QTest::newRow("unknown type deep in nested arrays") << QByteArray("*2\r\n*2\r\n:1\r\n?x\r\n:2\r\n");
}

void TestRespReader::unreadable()
{
    QFETCH(QByteArray, bytes);

    RespReader reader(QStringLiteral("127.0.0.1:6379"));
    try {
        reader.feed(bytes.constData(), size_t(bytes.size()));
        while (reader.next()) {
        }
        QFAIL("no error for bytes that are not RESP");
    } catch (const RedisIoError &error) {
        QVERIFY2(error.message().contains(QLatin1String("127.0.0.1:6379")), qPrintable(error.message()));
    }
}

void TestRespReader::commandBytes_data()
{
    QTest::addColumn<QByteArrayList>("args");

    QTest::newRow("PING") << QByteArrayList{"PING"};
    QTest::newRow("an empty argument") << QByteArrayList{"SET", "k", ""};
    QTest::newRow("binary argument") << QByteArrayList{"SET", "k", QByteArray("a\r\n\0b", 5)};
    QTest::newRow("ten arguments, lengths of one to three digits")
            << QByteArrayList{"EVALSHA", QByteArray(40, 'f'), "2", "a", "b", QByteArray(9, '1'), QByteArray(10, '2'), QByteArray(99, '3'),
                              QByteArray(100, '4'), QByteArray(1000, '5')};
}

void TestRespReader::commandBytes()
{
    QFETCH(QByteArrayList, args);

    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    for (const QByteArray &arg : args) {
        argv.push_back(arg.constData());
        lengths.push_back(size_t(arg.size()));
    }
    char *formatted = nullptr;
    const long long size = redisFormatCommandArgv(&formatted, int(args.size()), argv.data(), lengths.data());
    QVERIFY(size > 0);
    const QByteArray expected(formatted, qsizetype(size));
    redisFreeCommand(formatted);

    std::string out = "prefix";  // appended, never overwritten
    appendRespCommand(out, args);
    QCOMPARE(QByteArray::fromStdString(out), "prefix" + expected);
}

LANTERN_TEST_SUITE(TestRespReader);

} // namespace tst_respreader

#include "tst_respreader.moc"
