#pragma once

#include "api/apihandler.h"
#include "serve/httpframingcheck.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QCoreApplication>
#include <QString>

#include <memory>

struct http_parser;

namespace lantern {

/** Reads HTTP/1.0 and 1.1 requests from a connection's bytes, one at a time (pipelined
    requests are left in the caller's buffer until the current one is taken). Built on the
    system's C http_parser; one instance per connection, reused for every request on it.
    What that parser, built non-strict, lets through is checked here: the request line's
    shape (RequestLineCheck) and a chunked body's framing (ChunkedBodyCheck). */
class HttpRequestParser final {
    Q_DECLARE_TR_FUNCTIONS(lantern::HttpRequestParser)

public:
    struct Limits {
        qsizetype maxHeaderBytes = 8 * 1024;  // request line + headers
        qsizetype maxBodyBytes = 16 * 1024;   // after chunked decoding too
        qsizetype maxChunkLineBytes = 1024;   // a chunk-size line with its extensions and CRLF
    };
    enum class State { NeedMore, Complete, Failed };

    HttpRequestParser();
    explicit HttpRequestParser(Limits limits);
    ~HttpRequestParser();
    Q_DISABLE_COPY_MOVE(HttpRequestParser)

    /** Feeds bytes; returns how many it consumed. It stops right after the end of one complete
        request (state() == Complete), so bytes of a next pipelined request are not consumed.
        In states Complete (until take()) and Failed it consumes nothing. */
    qsizetype feed(const char *data, qsizetype size);
    /** Also keeps these headers' values (names as given, lower case, at most 24 characters,
        compared case-insensitively; values without surrounding whitespace) in ApiRequest::headers,
        for a server that needs more than Authorization (the tests' and benches' payout provider). */
    void keepHeaders(QByteArrayList names) { m_keptNames = std::move(names); }
    State state() const { return m_state; }

    /** The complete request (only in state Complete); resets for the next request on the same
        connection. method "GET"/"POST"/... ; path = the target up to '?' (still percent-encoded,
        for absolute-form targets "http://host:port/p?q" only "/p"); query = after '?' without
        '#fragment', undecoded; authorization = the Authorization header value (case-insensitive
        name, value as sent minus surrounding whitespace; if sent twice: Failed 400); body = the body. */
    ApiRequest take();
    /** The same into `request`, whose buffers the parser keeps for the next request (emptied,
        their room kept: emptyKeepingRoom): on a kept-alive connection the path and the
        Authorization header are written without an allocation per request. */
    void take(ApiRequest &request);
    /** Empties `request`, keeping the room of the buffers it alone holds, up to a few KiB each. */
    static void emptyKeepingRoom(ApiRequest &request);

    /** Of the request just completed/taken: http_should_keep_alive semantics (1.1 default on,
        1.0 needs keep-alive, "Connection: close" off). Always false in state Failed. */
    bool keepAlive() const { return m_state != State::Failed && m_keepAlive; }
    /** The current request's headers have been read (its body may not). */
    bool headersComplete() const { return m_headersComplete; }
    /** Headers complete, an HTTP/1.1 "Expect: 100-continue" sent, body not complete yet. */
    bool expectsContinue() const { return m_state == State::NeedMore && m_headersComplete && m_expectsContinue; }
    /** At least one byte of a request not yet taken has been fed (blank lines before a request
        line, which HTTP allows and http_parser skips, do not count). */
    bool started() const { return m_started; }

    /** In state Failed: the HTTP status to answer before closing (400 malformed — request
        line, headers or chunked framing — or body too large, 431 headers too large, 505 HTTP
        version not 1.0/1.1, 501 Upgrade/CONNECT), and a one-line reason for the JSON error body. */
    int errorStatus() const { return m_errorStatus; }
    QString errorMessage() const { return m_errorMessage; }

private:
    struct Callbacks;
    friend struct Callbacks;

    /** A short header name or value kept without allocating: only a few are ever compared. */
    struct ShortText {
        char data[24];
        qsizetype size = 0;  // may exceed sizeof(data): then the text is longer than anything compared
        void append(const char *at, qsizetype length);
        bool equalsNoCase(const char *latin1) const;
    };
    enum class HeaderPhase { None, Field, Value };
    enum class KnownHeader { Other, Authorization, Expect, Kept };

    qsizetype execute(const char *data, qsizetype size);
    void fail(int status, const QString &message);
    void finishField();
    void finishValue();
    void splitTarget();
    void checkChunks(const char *data, qsizetype size);

    int onMessageBegin();
    int onUrl(const char *at, qsizetype length);
    int onHeaderField(const char *at, qsizetype length);
    int onHeaderValue(const char *at, qsizetype length);
    int onHeadersComplete();
    int onBody(const char *at, qsizetype length);
    int onMessageComplete();

    const Limits m_limits;
    std::unique_ptr<http_parser> m_parser;
    RequestLineCheck m_requestLine;
    ChunkedBodyCheck m_chunks;
    State m_state = State::NeedMore;
    ApiRequest m_request;          // path holds the whole target until the headers are complete
    qsizetype m_headerBytes = 0;   // fed for the current request before its headers completed
    HeaderPhase m_headerPhase = HeaderPhase::None;
    KnownHeader m_currentHeader = KnownHeader::Other;
    ShortText m_fieldName;
    ShortText m_expectValue;
    QByteArrayList m_keptNames;
    bool m_started = false;
    bool m_headersComplete = false;
    bool m_chunked = false;
    bool m_authorizationSeen = false;
    bool m_expectsContinue = false;
    bool m_keepAlive = false;
    int m_errorStatus = 0;
    QString m_errorMessage;
};

} // namespace lantern
