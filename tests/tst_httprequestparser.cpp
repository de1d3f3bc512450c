// HttpRequestParser on raw request bytes (whole, byte by byte, pipelined) and appendHttpResponse's exact output.
#include "serve/httprequestparser.h"
#include "serve/httpresponse.h"
#include "testsuite.h"

#include <QTest>

#include <algorithm>

namespace tst_httprequestparser {

using namespace lantern;
using State = HttpRequestParser::State;
using HeaderList = QList<QPair<QByteArray, QByteArray>>;

namespace {

/** Feeds `bytes` in pieces of `piece` bytes (0: all at once) until the parser stops; returns the bytes it consumed. */
qsizetype feedInPieces(HttpRequestParser &parser, const QByteArray &bytes, qsizetype piece = 0)
{
    qsizetype consumed = 0;
    while (consumed < bytes.size() && parser.state() == State::NeedMore) {
        const qsizetype size = piece > 0 ? std::min(piece, bytes.size() - consumed) : bytes.size() - consumed;
        const qsizetype used = parser.feed(bytes.constData() + consumed, size);
        consumed += used;
        if (used < size)
            break;
    }
    return consumed;
}

/** A chunked POST whose body is `framing` as it is. */
QByteArray chunkedWith(const QByteArray &framing)
{
    return "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + framing;
}

QByteArray chunked(const QByteArray &body, qsizetype chunkSize)
{
    QByteArray out;
    for (qsizetype i = 0; i < body.size(); i += chunkSize) {
        const QByteArray chunk = body.mid(i, chunkSize);
        out += QByteArray::number(chunk.size(), 16) + "\r\n" + chunk + "\r\n";
    }
    return out + "0\r\n\r\n";
}

} // namespace

class TestHttpRequestParser : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void pipelined_data();
    void pipelined();
    void keepAlive_data();
    void keepAlive();
    void takeIntoReusedBuffers();
    void failures_data();
    void failures();
    void strictForEveryPipelinedRequest_data();
    void strictForEveryPipelinedRequest();
    void limitBoundaries_data();
    void limitBoundaries();
    void expectContinue_data();
    void expectContinue();
    void startedAndHeadersComplete();
    void keptHeaders_data();
    void keptHeaders();
    void response_data();
    void response();
    void reasonPhrases_data();
    void reasonPhrases();
};

void TestHttpRequestParser::parse_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<qsizetype>("piece");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("query");
    QTest::addColumn<QByteArray>("authorization");
    QTest::addColumn<QByteArray>("body");

    struct Case {
        const char *name;
        QByteArray raw, method, path, query, authorization, body;
    };
    const QByteArray json = R"({"note":"hello"})";
    const QByteArray bigBody(16 * 1024, 'x');
    const QList<Case> cases = {
        {"simple GET with query",
         "GET /v1/calendar?month=2026-03&x=%20y HTTP/1.1\r\nHost: api\r\nAuthorization: Bearer abc.def\r\n\r\n",
         "GET", "/v1/calendar", "month=2026-03&x=%20y", "Bearer abc.def", {}},
        {"POST with Content-Length body",
         "POST /v1/checkin HTTP/1.1\r\nHost: api\r\nContent-Type: application/json\r\nContent-Length: 16\r\n"
         "Authorization: Bearer t\r\n\r\n" + json,
         "POST", "/v1/checkin", {}, "Bearer t", json},
        {"absolute-form target keeps only path and query",
         "GET http://api.example:8080/v1/campaigns/7?full=1#top HTTP/1.1\r\nHost: api.example\r\n\r\n",
         "GET", "/v1/campaigns/7", "full=1", {}, {}},
        {"absolute-form target without a path is /",
         "GET http://api.example:8080 HTTP/1.1\r\n\r\n", "GET", "/", {}, {}, {}},
        {"fragment dropped from path and query",
         "GET /p?a=1#frag HTTP/1.1\r\n\r\n", "GET", "/p", "a=1", {}, {}},
        {"fragment without query",
         "GET /p#frag?notquery HTTP/1.1\r\n\r\n", "GET", "/p", {}, {}, {}},
        {"percent-encoding left as sent",
         "GET /a%2Fb?q=%C3%A9 HTTP/1.1\r\n\r\n", "GET", "/a%2Fb", "q=%C3%A9", {}, {}},
        {"chunked body decoded, trailer ignored",
         "POST /v1/campaigns/3/grab HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
         "5;ext=1\r\n{\"not\r\nb\r\ne\":\"hello\"}\r\n0\r\nAuthorization: trailer\r\n\r\n",
         "POST", "/v1/campaigns/3/grab", {}, {}, json},
        {"Authorization name in any case, value trimmed",
         "GET / HTTP/1.1\r\naUtHoRiZaTiOn: \t Bearer  spaced \t \r\n\r\n", "GET", "/", {}, "Bearer  spaced", {}},
        {"empty Authorization value",
         "GET / HTTP/1.1\r\nAuthorization:\r\n\r\n", "GET", "/", {}, {}, {}},
        {"a header named like Authorization but longer is not it",
         "GET / HTTP/1.1\r\nAuthorization-Extra: x\r\nX-Authorization: y\r\n\r\n", "GET", "/", {}, {}, {}},
        {"HTTP/1.0 POST without length has an empty body",
         "POST /v1/checkin HTTP/1.0\r\n\r\n", "POST", "/v1/checkin", {}, {}, {}},
        {"blank lines before the request line are skipped",
         "\r\n\r\nDELETE /x HTTP/1.1\r\n\r\n", "DELETE", "/x", {}, {}, {}},
        {"bare LF line ends accepted",
         "GET /lf?x HTTP/1.1\nHost: a\n\n", "GET", "/lf", "x", {}, {}},
        {"OPTIONS * target",
         "OPTIONS * HTTP/1.1\r\n\r\n", "OPTIONS", "*", {}, {}, {}},
        {"body of exactly 16 KiB accepted",
         "POST /b HTTP/1.1\r\nContent-Length: 16384\r\n\r\n" + bigBody, "POST", "/b", {}, {}, bigBody},
        {"chunked body of exactly 16 KiB accepted",
         "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(bigBody, 1000), "POST", "/b", {}, {}, bigBody},
        {"chunk extensions: several, blanks around ; and =, token and quoted values",
         "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
         "5 ;a ; b=1\t;c = \"q \\\" \t\x80;\"\r\nhello\r\n0;last\r\n\r\n",
         "POST", "/b", {}, {}, "hello"},
        {"chunk size in upper-case hex with leading zeros",
         "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n00A\r\n0123456789\r\n0\r\n\r\n", "POST", "/b", {}, {},
         "0123456789"},
        {"request line with a token method and an absolute path with query",
         "GET /a/b;c?d=e&f=%20 HTTP/1.0\r\n\r\n", "GET", "/a/b;c", "d=e&f=%20", {}, {}},
    };
    for (const Case &c : cases) {
        QTest::addRow("%s, all at once", c.name) << c.raw << qsizetype(0) << c.method << c.path << c.query << c.authorization << c.body;
        QTest::addRow("%s, byte by byte", c.name) << c.raw << qsizetype(1) << c.method << c.path << c.query << c.authorization << c.body;
        QTest::addRow("%s, 7-byte pieces", c.name) << c.raw << qsizetype(7) << c.method << c.path << c.query << c.authorization << c.body;
    }
}

void TestHttpRequestParser::parse()
{
    QFETCH(QByteArray, raw);
    QFETCH(qsizetype, piece);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, query);
    QFETCH(QByteArray, authorization);
    QFETCH(QByteArray, body);

    HttpRequestParser parser;
    QCOMPARE(feedInPieces(parser, raw, piece), raw.size());
    QCOMPARE(parser.state(), State::Complete);
    QVERIFY(parser.headersComplete());
    QVERIFY(parser.started());
    QCOMPARE(parser.errorStatus(), 0);
    const ApiRequest request = parser.take();
    QCOMPARE(request.method, method);
    QCOMPARE(request.path, path);
    QCOMPARE(request.query, query);
    QCOMPARE(request.authorization, authorization);
    QCOMPARE(request.body, body);
    QCOMPARE(parser.state(), State::NeedMore);
    QVERIFY(!parser.headersComplete());
    QVERIFY(!parser.started());
}

void TestHttpRequestParser::pipelined_data()
{
    QTest::addColumn<QByteArray>("first");
    QTest::addColumn<QByteArray>("second");
    QTest::addColumn<QByteArray>("secondPath");
    QTest::addColumn<QByteArray>("secondBody");

    QTest::newRow("two GETs in one buffer")
        << QByteArray("GET /one HTTP/1.1\r\nHost: a\r\n\r\n") << QByteArray("GET /two HTTP/1.1\r\nHost: a\r\n\r\n")
        << QByteArray("/two") << QByteArray();
    QTest::newRow("POST body followed directly by a POST")
        << QByteArray("POST /one HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc")
        << QByteArray("POST /two HTTP/1.1\r\nContent-Length: 2\r\n\r\nde") << QByteArray("/two") << QByteArray("de");
    QTest::newRow("chunked POST followed by a GET")
        << QByteArray("POST /one HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
        << QByteArray("GET /two?x=1 HTTP/1.1\r\n\r\n") << QByteArray("/two") << QByteArray();
    QTest::newRow("HTTP/1.0 keep-alive GET followed by a GET")
        << QByteArray("GET /one HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        << QByteArray("GET /two HTTP/1.0\r\n\r\n") << QByteArray("/two") << QByteArray();
}

void TestHttpRequestParser::pipelined()
{
    QFETCH(QByteArray, first);
    QFETCH(QByteArray, second);
    QFETCH(QByteArray, secondPath);
    QFETCH(QByteArray, secondBody);

    const QByteArray buffer = first + second;
    HttpRequestParser parser;
    QCOMPARE(parser.feed(buffer.constData(), buffer.size()), first.size());
    QCOMPARE(parser.state(), State::Complete);
    // Until the request is taken, nothing more is consumed.
    QCOMPARE(parser.feed(buffer.constData() + first.size(), second.size()), qsizetype(0));
    QCOMPARE(parser.take().path, QByteArray("/one"));
    QVERIFY(parser.keepAlive());

    QCOMPARE(parser.feed(buffer.constData() + first.size(), second.size()), second.size());
    QCOMPARE(parser.state(), State::Complete);
    const ApiRequest request = parser.take();
    QCOMPARE(request.path, secondPath);
    QCOMPARE(request.body, secondBody);
}

void TestHttpRequestParser::takeIntoReusedBuffers()
{
    // lanternd serve's way: each request taken into the connection's ApiRequest, emptied after
    // its answer; the buffers go back and forth, and nothing of one request shows in the next.
    const QList<QByteArray> requests = {
            "POST /v1/campaigns/12345/grab?try=1 HTTP/1.1\r\nAuthorization: Bearer abcdefghijklmnopqrstuvwxyz\r\n"
            "X-Kept: one\r\nContent-Length: 5\r\n\r\nhello",
            "GET /b HTTP/1.1\r\n\r\n",
            "POST /v1/checkin HTTP/1.1\r\nAuthorization: Bearer x\r\nContent-Length: 2\r\n\r\n{}",
            "GET /v1/calendar?month=2026-03 HTTP/1.1\r\nX-Kept: two\r\n\r\n",
    };
    HttpRequestParser parser;
    parser.keepHeaders({"x-kept"});
    HttpRequestParser fresh;  // the same requests through take(), one new ApiRequest each
    fresh.keepHeaders({"x-kept"});
    ApiRequest reused;
    for (const QByteArray &raw : requests) {
        QCOMPARE(feedInPieces(parser, raw), raw.size());
        QCOMPARE(feedInPieces(fresh, raw), raw.size());
        parser.take(reused);
        const ApiRequest expected = fresh.take();
        QCOMPARE(reused.method, expected.method);
        QCOMPARE(reused.path, expected.path);
        QCOMPARE(reused.query, expected.query);
        QCOMPARE(reused.authorization, expected.authorization);
        QCOMPARE(reused.body, expected.body);
        QCOMPARE(reused.headers, expected.headers);
        HttpRequestParser::emptyKeepingRoom(reused);
        QVERIFY(reused.path.isEmpty() && reused.authorization.isEmpty() && reused.body.isEmpty() && reused.headers.isEmpty());
    }
}

void TestHttpRequestParser::keepAlive_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<bool>("keepAlive");

    QTest::newRow("HTTP/1.1 default: keep-alive") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\n\r\n") << true;
    QTest::newRow("HTTP/1.1 Connection: close") << QByteArray("GET / HTTP/1.1\r\nConnection: close\r\n\r\n") << false;
    QTest::newRow("HTTP/1.1 Connection: CLOSE (any case)") << QByteArray("GET / HTTP/1.1\r\nconnection: CLOSE\r\n\r\n") << false;
    QTest::newRow("HTTP/1.0 default: close") << QByteArray("GET / HTTP/1.0\r\n\r\n") << false;
    QTest::newRow("HTTP/1.0 Connection: keep-alive") << QByteArray("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") << true;
    QTest::newRow("HTTP/1.1 POST with body, default") << QByteArray("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}") << true;
}

void TestHttpRequestParser::keepAlive()
{
    QFETCH(QByteArray, raw);
    QFETCH(bool, keepAlive);

    HttpRequestParser parser;
    QCOMPARE(feedInPieces(parser, raw), raw.size());
    QCOMPARE(parser.state(), State::Complete);
    QCOMPARE(parser.keepAlive(), keepAlive);
    parser.take();
    QCOMPARE(parser.keepAlive(), keepAlive);  // still known while the response is written
}

void TestHttpRequestParser::failures_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<qsizetype>("piece");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("messagePart");

    const QByteArray hugeHeader = "GET / HTTP/1.1\r\nX-Filler: " + QByteArray(9000, 'a') + "\r\n\r\n";
    const QByteArray manyHeaders = "GET / HTTP/1.1\r\n" + QByteArray("X-A: b\r\n").repeated(1200) + "\r\n";
    const QByteArray chunkedOver = "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(QByteArray(16 * 1024 + 1, 'x'), 4096);
    struct Case {
        const char *name;
        QByteArray raw;
        int status;
        QString messagePart;
    };
    const QList<Case> cases = {
        {"garbage bytes (a TLS ClientHello) -> 400", QByteArray("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11), 400,
         QStringLiteral("malformed request")},
        {"garbage text -> 400", "HELLO THERE\r\n\r\n", 400, QStringLiteral("malformed request")},
        {"unknown method -> 400", "FETCH / HTTP/1.1\r\n\r\n", 400, QStringLiteral("method")},
        {"space inside the target -> 400", "GET /a b HTTP/1.1\r\n\r\n", 400, QStringLiteral("malformed request")},
        {"control character in a header name -> 400", "GET / HTTP/1.1\r\nBad\x01Header: x\r\n\r\n", 400,
         QStringLiteral("malformed request")},
        {"space inside a header name -> 400", "GET / HTTP/1.1\r\nBad Header: x\r\n\r\n", 400,
         QStringLiteral("whitespace")},
        {"space before the colon of Content-Length -> 400", "POST / HTTP/1.1\r\nContent-Length : 3\r\n\r\nabc", 400,
         QStringLiteral("whitespace")},
        {"space before the colon of Transfer-Encoding -> 400",
         "POST / HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400, QStringLiteral("whitespace")},
        {"space before the colon of Authorization -> 400", "GET / HTTP/1.1\r\nAuthorization : Bearer a\r\n\r\n", 400,
         QStringLiteral("whitespace")},
        {"HTTP/2.0 request line -> 505", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505, QStringLiteral("2.0")},
        {"HTTP/3.1 request line -> 505", "GET / HTTP/3.1\r\nHost: a\r\n\r\n", 505, QStringLiteral("3.1")},
        {"HTTP/1.2 request line -> 505", "GET / HTTP/1.2\r\n\r\n", 505, QStringLiteral("1.2")},
        {"HTTP/0.9 request line (no version) -> 505", "GET /\r\n\r\n", 505, QStringLiteral("0.9")},
        {"two-digit version HTTP/10.0 is malformed -> 400", "GET / HTTP/10.0\r\n\r\n", 400,
         QStringLiteral("version")},
        {"HTTP/2 prior-knowledge preface -> 400", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, QStringLiteral("method")},
        {"one header over 8 KiB -> 431", hugeHeader, 431, QStringLiteral("8192")},
        {"many small headers over 8 KiB -> 431", manyHeaders, 431, QStringLiteral("8192")},
        {"Content-Length over 16 KiB -> 400 after the headers alone",
         "POST /b HTTP/1.1\r\nContent-Length: 16385\r\n\r\n", 400, QStringLiteral("16384")},
        {"Content-Length beyond 64 bits -> 400", "POST /b HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
         400, QStringLiteral("content-length")},
        {"chunked body over 16 KiB -> 400", chunkedOver, 400, QStringLiteral("16384")},
        {"invalid chunk size -> 400", "POST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400,
         QStringLiteral("chunk size")},
        {"Content-Length and chunked together -> 400",
         "POST /b HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", 400,
         QStringLiteral("content-length")},
        {"two different Content-Lengths -> 400", "POST /b HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
         400, QStringLiteral("content-length")},
        {"Transfer-Encoding other than chunked -> 400", "POST /b HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\nabc", 400,
         QStringLiteral("transfer-encoding")},
        {"duplicate Authorization -> 400", "GET / HTTP/1.1\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n",
         400, QStringLiteral("Authorization")},
        {"duplicate Authorization in another case -> 400",
         "GET / HTTP/1.1\r\nAuthorization: Bearer a\r\nHost: x\r\nAUTHORIZATION: Bearer a\r\n\r\n", 400,
         QStringLiteral("Authorization")},
        // RFC 9112 3: method SP request-target SP HTTP-version, one space each, nothing else.
        {"two spaces after the target -> 400", "GET /healthz  HTTP/1.1\r\nHost: a\r\n\r\n", 400, QStringLiteral("request line")},
        {"two spaces after the method -> 400", "GET  /healthz HTTP/1.1\r\nHost: a\r\n\r\n", 400, QStringLiteral("request line")},
        {"a tab between method and target -> 400", "GET\t/healthz HTTP/1.1\r\n\r\n", 400, QStringLiteral("request line")},
        {"a space after the version -> 400", "GET /healthz HTTP/1.1 \r\n\r\n", 400, QStringLiteral("request line")},
        {"a tab after the version -> 400", "GET /healthz HTTP/1.1\t\r\n\r\n", 400, QStringLiteral("request line")},
        {"a space before the method -> 400", " GET /healthz HTTP/1.1\r\n\r\n", 400, QStringLiteral("malformed request")},
        {"a tab inside the target -> 400", "GET /a\tb HTTP/1.1\r\n\r\n", 400, QStringLiteral("request line")},
        {"a DEL inside the target -> 400", "GET /a\x7f HTTP/1.1\r\n\r\n", 400, QStringLiteral("request line")},
        {"a version that is not HTTP/ -> 400", "GET / HXXP/1.1\r\n\r\n", 400, QStringLiteral("request line")},
        {"a lower-case http/1.1 -> 400", "GET / http/1.1\r\n\r\n", 400, QStringLiteral("request line")},
        {"a CR not followed by LF after the version -> 400", "GET / HTTP/1.1\rHost: a\r\n\r\n", 400, QStringLiteral("request line")},
        // RFC 9112 7.1.1: chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ), name a token, value a token or quoted-string.
        {"NUL in a chunk extension name -> 400", chunkedWith(QByteArrayLiteral("5;e\0x=1\r\nhello\r\n0\r\n\r\n")), 400, QStringLiteral("chunk extension")},
        {"NUL in a chunk extension value -> 400", chunkedWith(QByteArrayLiteral("5;ext=\0\r\nhello\r\n0\r\n\r\n")), 400, QStringLiteral("chunk extension")},
        {"NUL in a quoted chunk extension value -> 400", chunkedWith(QByteArrayLiteral("5;ext=\"a\0b\"\r\nhello\r\n0\r\n\r\n")), 400,
         QStringLiteral("chunk extension")},
        {"NUL in the last chunk's extension -> 400", chunkedWith(QByteArrayLiteral("5\r\nhello\r\n0;\0\r\n\r\n")), 400, QStringLiteral("chunk extension")},
        {"control character (0x01) in a chunk extension -> 400", chunkedWith("5;e=\x01\r\nhello\r\n0\r\n\r\n"), 400,
         QStringLiteral("chunk extension")},
        {"DEL in a chunk extension -> 400", chunkedWith("5;e\x7f\r\nhello\r\n0\r\n\r\n"), 400, QStringLiteral("chunk extension")},
        {"a chunk extension without a name -> 400", chunkedWith("5;\r\nhello\r\n0\r\n\r\n"), 400, QStringLiteral("chunk extension")},
        {"a chunk extension with = but no value -> 400", chunkedWith("5;a=\r\nhello\r\n0\r\n\r\n"), 400, QStringLiteral("chunk extension")},
        {"a chunk extension name with a space inside -> 400", chunkedWith("5;a b\r\nhello\r\n0\r\n\r\n"), 400,
         QStringLiteral("chunk extension")},
        {"an unterminated quoted chunk extension -> 400", chunkedWith("5;a=\"x\r\nhello\r\n0\r\n\r\n"), 400,
         QStringLiteral("chunk extension")},
        {"a chunk size followed by a space and no extension -> 400", chunkedWith("5 \r\nhello\r\n0\r\n\r\n"), 400,
         QStringLiteral("chunk extension")},
        {"a chunk size line ending in CR without LF -> 400", chunkedWith("5\rXhello\r\n0\r\n\r\n"), 400, QStringLiteral("CRLF")},
        {"chunk data not followed by CRLF -> 400", chunkedWith("5\r\nhelloXY0\r\n\r\n"), 400, QStringLiteral("CRLF")},
        {"a chunk extension over 1 KiB -> 400", chunkedWith("5;a=" + QByteArray(1100, 'v') + "\r\nhello\r\n0\r\n\r\n"), 400,
         QStringLiteral("1024")},
        {"WebSocket upgrade -> 501",
         "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n", 501,
         QStringLiteral("upgrade")},
        {"CONNECT -> 501", "CONNECT api.example:443 HTTP/1.1\r\nHost: api.example:443\r\n\r\n", 501,
         QStringLiteral("CONNECT")},
    };
    for (const Case &c : cases) {
        QTest::addRow("%s, all at once", c.name) << c.raw << qsizetype(0) << c.status << c.messagePart;
        QTest::addRow("%s, byte by byte", c.name) << c.raw << qsizetype(1) << c.status << c.messagePart;
    }
}

void TestHttpRequestParser::failures()
{
    QFETCH(QByteArray, raw);
    QFETCH(qsizetype, piece);
    QFETCH(int, status);
    QFETCH(QString, messagePart);

    HttpRequestParser parser;
    feedInPieces(parser, raw, piece);
    QCOMPARE(parser.state(), State::Failed);
    QCOMPARE(parser.errorStatus(), status);
    QVERIFY2(parser.errorMessage().contains(messagePart, Qt::CaseInsensitive), qPrintable(parser.errorMessage()));
    QVERIFY(!parser.errorMessage().contains(QLatin1Char('\n')));
    QVERIFY(!parser.keepAlive());
    QVERIFY(!parser.expectsContinue());
    const QByteArray more = "GET / HTTP/1.1\r\n\r\n";
    QCOMPARE(parser.feed(more.constData(), more.size()), qsizetype(0));
    QCOMPARE(parser.state(), State::Failed);
}

void TestHttpRequestParser::strictForEveryPipelinedRequest_data()
{
    QTest::addColumn<QByteArray>("second");
    QTest::addColumn<QString>("messagePart");

    QTest::newRow("second request line with two spaces") << QByteArray("GET /two  HTTP/1.1\r\n\r\n") << QStringLiteral("request line");
    QTest::newRow("second request's chunk extension with a NUL")
        << chunkedWith(QByteArrayLiteral("2;x\0\r\nab\r\n0\r\n\r\n")) << QStringLiteral("chunk extension");
}

/** The checks start over with each request on a connection, behind a chunked one too. */
void TestHttpRequestParser::strictForEveryPipelinedRequest()
{
    QFETCH(QByteArray, second);
    QFETCH(QString, messagePart);

    const QByteArray first = chunkedWith("3;a=\"b\"\r\nabc\r\n0\r\n\r\n");
    for (const qsizetype piece : {qsizetype(0), qsizetype(1)}) {
        HttpRequestParser parser;
        QCOMPARE(feedInPieces(parser, first + second, piece), first.size());
        QCOMPARE(parser.state(), State::Complete);
        QCOMPARE(parser.take().body, QByteArray("abc"));
        feedInPieces(parser, second, piece);
        QCOMPARE(parser.state(), State::Failed);
        QCOMPARE(parser.errorStatus(), 400);
        QVERIFY2(parser.errorMessage().contains(messagePart, Qt::CaseInsensitive), qPrintable(parser.errorMessage()));
    }
}

void TestHttpRequestParser::limitBoundaries_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<State>("state");
    QTest::addColumn<int>("status");

    // Limits in this test: 64 header bytes, 10 body bytes, 16 bytes of a chunk-size line.
    const QByteArray line = "POST /p HTTP/1.1\r\n";  // 18 bytes
    const auto headersOf = [&line](qsizetype total, const QByteArray &lengthHeader) -> QByteArray {
        const QByteArray fixed = line + lengthHeader + "X: " + "\r\n\r\n";
        return line + lengthHeader + "X: " + QByteArray(total - fixed.size(), 'v') + "\r\n\r\n";
    };
    QTest::newRow("headers exactly at the limit -> complete") << headersOf(64, {}) << State::Complete << 0;
    QTest::newRow("headers one byte over the limit -> 431") << headersOf(65, {}) << State::Failed << 431;
    QTest::newRow("blank lines before the request line count -> 431")
        << QByteArray(QByteArray("\r\n") + headersOf(64, {})) << State::Failed << 431;
    QTest::newRow("Content-Length at the body limit -> complete")
        << QByteArray(headersOf(64, "Content-Length: 10\r\n") + "0123456789") << State::Complete << 0;
    QTest::newRow("Content-Length one over the body limit -> 400")
        << headersOf(64, "Content-Length: 11\r\n") << State::Failed << 400;
    QTest::newRow("chunked body at the limit -> complete")
        << QByteArray(QByteArray("POST /p HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") + chunked("0123456789", 4))
        << State::Complete << 0;
    QTest::newRow("chunked body one over the limit -> 400")
        << QByteArray(QByteArray("POST /p HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n") + chunked("0123456789A", 4))
        << State::Failed << 400;
    QTest::newRow("chunk-size line with its CRLF at the limit -> complete")
        << chunkedWith("4;x=" + QByteArray(10, 'v') + "\r\nabcd\r\n0\r\n\r\n") << State::Complete << 0;
    QTest::newRow("chunk-size line one over the limit -> 400")
        << chunkedWith("4;x=" + QByteArray(11, 'v') + "\r\nabcd\r\n0\r\n\r\n") << State::Failed << 400;
}

void TestHttpRequestParser::limitBoundaries()
{
    QFETCH(QByteArray, raw);
    QFETCH(State, state);
    QFETCH(int, status);

    for (const qsizetype piece : {qsizetype(0), qsizetype(1), qsizetype(5)}) {
        HttpRequestParser parser(HttpRequestParser::Limits{.maxHeaderBytes = 64, .maxBodyBytes = 10, .maxChunkLineBytes = 16});
        feedInPieces(parser, raw, piece);
        QCOMPARE(parser.state(), state);
        QCOMPARE(parser.errorStatus(), status);
    }
}

void TestHttpRequestParser::expectContinue_data()
{
    QTest::addColumn<QByteArray>("headers");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("expects");

    QTest::newRow("HTTP/1.1 Expect: 100-continue -> expects until the body is in")
        << QByteArray("POST /p HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n") << QByteArray("hello") << true;
    QTest::newRow("Expect name and value in other case, chunked body -> expects")
        << QByteArray("POST /p HTTP/1.1\r\nEXPECT: 100-Continue \r\nTransfer-Encoding: chunked\r\n\r\n")
        << QByteArray("5\r\nhello\r\n0\r\n\r\n") << true;
    QTest::newRow("HTTP/1.0 Expect: 100-continue is ignored")
        << QByteArray("POST /p HTTP/1.0\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n") << QByteArray("hello") << false;
    QTest::newRow("other Expect value -> no")
        << QByteArray("POST /p HTTP/1.1\r\nContent-Length: 5\r\nExpect: 100-continue-later\r\n\r\n") << QByteArray("hello") << false;
    QTest::newRow("no Expect header -> no")
        << QByteArray("POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\n") << QByteArray("hello") << false;
}

void TestHttpRequestParser::expectContinue()
{
    QFETCH(QByteArray, headers);
    QFETCH(QByteArray, body);
    QFETCH(bool, expects);

    HttpRequestParser parser;
    QVERIFY(!parser.expectsContinue());
    QCOMPARE(feedInPieces(parser, headers, 1), headers.size());
    QCOMPARE(parser.state(), State::NeedMore);
    QVERIFY(parser.headersComplete());
    QCOMPARE(parser.expectsContinue(), expects);
    QCOMPARE(feedInPieces(parser, body.first(2)), qsizetype(2));
    QCOMPARE(parser.expectsContinue(), expects);
    QCOMPARE(feedInPieces(parser, body.sliced(2)), body.size() - 2);
    QCOMPARE(parser.state(), State::Complete);
    QVERIFY(!parser.expectsContinue());
    QCOMPARE(parser.take().body, QByteArray("hello"));
    QVERIFY(!parser.expectsContinue());
}

void TestHttpRequestParser::startedAndHeadersComplete()
{
    HttpRequestParser parser;
    QVERIFY(!parser.started());
    QCOMPARE(parser.feed("\r\n", 2), qsizetype(2));
    QVERIFY(!parser.started());
    QCOMPARE(parser.feed("P", 1), qsizetype(1));
    QVERIFY(parser.started());
    const QByteArray rest = "OST /p HTTP/1.1\r\nContent-Length: 2\r\n\r\n";
    QCOMPARE(parser.feed(rest.constData(), rest.size()), rest.size());
    QVERIFY(parser.headersComplete());
    QCOMPARE(parser.state(), State::NeedMore);
    QCOMPARE(parser.feed("{}", 2), qsizetype(2));
    QCOMPARE(parser.state(), State::Complete);
    const ApiRequest request = parser.take();
    QCOMPARE(request.method, QByteArray("POST"));
    QCOMPARE(request.body, QByteArray("{}"));
    QVERIFY(!parser.started());
    QVERIFY(!parser.headersComplete());
}

void TestHttpRequestParser::keptHeaders_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<qsizetype>("piece");
    QTest::addColumn<HeaderList>("expected");

    const QByteArray payout = "POST /v1/payouts HTTP/1.1\r\nContent-Type: application/json\r\nIdempotency-Key:  cp:7:3 \t\r\n"
                              "X-Other: no\r\nContent-Length: 2\r\n\r\n{}";
    const HeaderList both{{"content-type", "application/json"}, {"idempotency-key", "cp:7:3"}};
    QTest::newRow("kept headers in the order sent, trimmed") << payout << qsizetype(0) << both;
    QTest::newRow("the same, byte by byte") << payout << qsizetype(1) << both;
    QTest::newRow("names in any case")
        << QByteArray("GET / HTTP/1.1\r\nIDEMPOTENCY-KEY: k\r\n\r\n") << qsizetype(0) << HeaderList{{"idempotency-key", "k"}};
    QTest::newRow("a name that only starts like a kept one is not kept")
        << QByteArray("GET / HTTP/1.1\r\nIdempotency-Keys: k\r\nContent-Typo: x\r\n\r\n") << qsizetype(0) << HeaderList{};
    QTest::newRow("none sent") << QByteArray("GET / HTTP/1.1\r\nHost: a\r\n\r\n") << qsizetype(0) << HeaderList{};
}

void TestHttpRequestParser::keptHeaders()
{
    QFETCH(QByteArray, raw);
    QFETCH(qsizetype, piece);
    QFETCH(HeaderList, expected);

    HttpRequestParser parser;
    parser.keepHeaders({"content-type", "idempotency-key"});
    QCOMPARE(feedInPieces(parser, raw, piece), raw.size());
    QCOMPARE(parser.state(), State::Complete);
    QCOMPARE(parser.take().headers, expected);
    // Each request its own: a second one on the connection starts with none.
    const QByteArray plain = "GET / HTTP/1.1\r\n\r\n";
    QCOMPARE(feedInPieces(parser, plain), plain.size());
    QCOMPARE(parser.take().headers, HeaderList{});

    HttpRequestParser defaults;  // keeps none unless told
    QCOMPARE(feedInPieces(defaults, raw, piece), raw.size());
    QCOMPARE(defaults.take().headers, HeaderList{});
}

void TestHttpRequestParser::response_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("contentType");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<HeaderList>("headers");
    QTest::addColumn<bool>("keepAlive");
    QTest::addColumn<QByteArray>("before");
    QTest::addColumn<QByteArray>("expected");

    QTest::newRow("200 with a header, keep-alive")
        << 200 << QByteArray("application/json") << QByteArray(R"({"ok":true})")
        << HeaderList{{"Cache-Control", "no-store"}} << true << QByteArray()
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n"
                      "Cache-Control: no-store\r\n\r\n{\"ok\":true}");
    QTest::newRow("429 with Retry-After, not keep-alive")
        << 429 << QByteArray("application/json") << QByteArray(R"({"error":"rate_limited"})")
        << HeaderList{{"Retry-After", "3"}} << false << QByteArray()
        << QByteArray("HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: 24\r\n"
                      "Retry-After: 3\r\nConnection: close\r\n\r\n{\"error\":\"rate_limited\"}");
    QTest::newRow("appended after a pending response")
        << 404 << QByteArray("application/json") << QByteArray("{}") << HeaderList{} << true
        << QByteArray("HTTP/1.1 200 OK\r\n...")
        << QByteArray("HTTP/1.1 200 OK\r\n...HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
                      "Content-Length: 2\r\n\r\n{}");
    QTest::newRow("Prometheus text content type")
        << 200 << QByteArray("text/plain; version=0.0.4") << QByteArray("up 1\n") << HeaderList{} << true << QByteArray()
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: 5\r\n\r\nup 1\n");
    QTest::newRow("empty body still gets Content-Length: 0")
        << 500 << QByteArray("application/json") << QByteArray() << HeaderList{} << false << QByteArray()
        << QByteArray("HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: 0\r\n"
                      "Connection: close\r\n\r\n");
    QTest::newRow("100 Continue is interim: status line only")
        << 100 << QByteArray("application/json") << QByteArray() << HeaderList{} << false << QByteArray()
        << QByteArray("HTTP/1.1 100 Continue\r\n\r\n");
    QTest::newRow("204 has no Content-Type, Content-Length or body")
        << 204 << QByteArray("application/json") << QByteArray("ignored") << HeaderList{} << true << QByteArray()
        << QByteArray("HTTP/1.1 204 No Content\r\n\r\n");
    QTest::newRow("505 reason phrase, no content type")
        << 505 << QByteArray() << QByteArray("x") << HeaderList{} << false << QByteArray()
        << QByteArray("HTTP/1.1 505 HTTP Version Not Supported\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx");
    QTest::newRow("unknown status: empty reason phrase")
        << 299 << QByteArray("application/json") << QByteArray() << HeaderList{} << true << QByteArray()
        << QByteArray("HTTP/1.1 299 \r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n");
}

void TestHttpRequestParser::response()
{
    QFETCH(int, status);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, body);
    QFETCH(HeaderList, headers);
    QFETCH(bool, keepAlive);
    QFETCH(QByteArray, before);
    QFETCH(QByteArray, expected);

    ApiResponse response;
    response.status = status;
    response.contentType = contentType;
    response.body = body;
    response.headers = headers;
    QByteArray out = before;
    appendHttpResponse(out, response, keepAlive);
    QCOMPARE(out, expected);
}

void TestHttpRequestParser::reasonPhrases_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("statusLine");

    const QList<QPair<int, QByteArray>> phrases = {
        {100, "Continue"}, {200, "OK"}, {400, "Bad Request"}, {401, "Unauthorized"}, {404, "Not Found"},
        {405, "Method Not Allowed"}, {409, "Conflict"}, {411, "Length Required"}, {413, "Payload Too Large"},
        {429, "Too Many Requests"}, {431, "Request Header Fields Too Large"}, {500, "Internal Server Error"},
        {501, "Not Implemented"}, {503, "Service Unavailable"}, {505, "HTTP Version Not Supported"},
    };
    for (const auto &[status, phrase] : phrases)
        QTest::addRow("%d %s", status, phrase.constData()) << status << QByteArray("HTTP/1.1 " + QByteArray::number(status) + ' ' + phrase + "\r\n");
}

void TestHttpRequestParser::reasonPhrases()
{
    QFETCH(int, status);
    QFETCH(QByteArray, statusLine);

    ApiResponse response;
    response.status = status;
    QByteArray out;
    appendHttpResponse(out, response, true);
    QVERIFY2(out.startsWith(statusLine), out.constData());
}

LANTERN_TEST_SUITE(TestHttpRequestParser);

} // namespace tst_httprequestparser

#include "tst_httprequestparser.moc"
