#include "serve/httprequestparser.h"

#include <http_parser.h>

#include <QLatin1String>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstring>
#include <utility>

namespace lantern {

/** http_parser's C callbacks, forwarding to the parser that owns the http_parser (its `data`). */
struct HttpRequestParser::Callbacks {
    static HttpRequestParser *self(http_parser *parser) { return static_cast<HttpRequestParser *>(parser->data); }

    static int messageBegin(http_parser *p) { return self(p)->onMessageBegin(); }
    static int url(http_parser *p, const char *at, size_t n) { return self(p)->onUrl(at, qsizetype(n)); }
    static int headerField(http_parser *p, const char *at, size_t n) { return self(p)->onHeaderField(at, qsizetype(n)); }
    static int headerValue(http_parser *p, const char *at, size_t n) { return self(p)->onHeaderValue(at, qsizetype(n)); }
    static int headersComplete(http_parser *p) { return self(p)->onHeadersComplete(); }
    static int body(http_parser *p, const char *at, size_t n) { return self(p)->onBody(at, qsizetype(n)); }
    static int messageComplete(http_parser *p) { return self(p)->onMessageComplete(); }

    static constexpr http_parser_settings settings{
        .on_message_begin = messageBegin,
        .on_url = url,
        .on_status = nullptr,
        .on_header_field = headerField,
        .on_header_value = headerValue,
        .on_headers_complete = headersComplete,
        .on_body = body,
        .on_message_complete = messageComplete,
        .on_chunk_header = nullptr,
        .on_chunk_complete = nullptr,
    };
};

namespace {

// A callback's non-zero return stops http_parser (1 and 2 mean something else in on_headers_complete).
constexpr int Stop = -1;

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

} // namespace

void HttpRequestParser::ShortText::append(const char *at, qsizetype length)
{
    const qsizetype room = qsizetype(sizeof(data)) - size;
    if (room > 0)
        std::memcpy(data + size, at, size_t(std::min(room, length)));
    size += length;
}

bool HttpRequestParser::ShortText::equalsNoCase(const char *latin1) const
{
    if (size > qsizetype(sizeof(data)))
        return false;
    qsizetype length = size;
    while (length > 0 && isBlank(data[length - 1]))
        --length;
    return qstrnicmp(data, length, latin1) == 0;
}

HttpRequestParser::HttpRequestParser() : HttpRequestParser(Limits{})
{
}

HttpRequestParser::HttpRequestParser(Limits limits)
    : m_limits(limits), m_parser(std::make_unique<http_parser>()), m_chunks(limits.maxChunkLineBytes)
{
    http_parser_init(m_parser.get(), HTTP_REQUEST);
    m_parser->data = this;
}

HttpRequestParser::~HttpRequestParser() = default;

qsizetype HttpRequestParser::feed(const char *data, qsizetype size)
{
    if (m_state != State::NeedMore || size <= 0)
        return 0;
    qsizetype consumed = 0;
    if (!m_headersComplete) {
        // http_parser never sees more header bytes than the limit allows (its own is 80 KiB).
        const qsizetype headerPart = std::min(size, m_limits.maxHeaderBytes - m_headerBytes);
        // The request line comes first in what is fed, and http_parser reads all of it.
        if (m_requestLine.verdict() == RequestLineCheck::Verdict::NeedMore) {
            m_requestLine.scan(data, headerPart);
            if (m_requestLine.verdict() == RequestLineCheck::Verdict::Bad) {
                fail(400, tr("malformed request line: it must be the method, one space, the target, one space and the HTTP version"));
                return 0;
            }
        }
        consumed = execute(data, headerPart);
        if (m_state != State::NeedMore)
            return consumed;
        if (!m_headersComplete) {
            m_headerBytes += consumed;
            if (m_headerBytes >= m_limits.maxHeaderBytes)
                fail(431, tr("request headers too large: at most %1 bytes").arg(m_limits.maxHeaderBytes));
            return consumed;
        }
        // onHeadersComplete paused http_parser on the last byte of the headers: the body starts after it.
        http_parser_pause(m_parser.get(), 0);
        consumed += execute(data + consumed, 1);
        if (m_state != State::NeedMore)
            return consumed;
    }
    if (consumed < size) {
        const qsizetype bodyPart = execute(data + consumed, size - consumed);
        if (m_chunked && m_state != State::Failed)
            checkChunks(data + consumed, bodyPart);
        consumed += bodyPart;
    }
    return consumed;
}

void HttpRequestParser::checkChunks(const char *data, qsizetype size)
{
    m_chunks.scan(data, size);
    switch (m_chunks.verdict()) {
    case ChunkedBodyCheck::Verdict::NeedMore:
    case ChunkedBodyCheck::Verdict::Good:
        return;
    case ChunkedBodyCheck::Verdict::BadExtension:
        fail(400, tr("malformed chunked body: a chunk extension must be ;name or ;name=value, the value a token or a quoted string"));
        return;
    case ChunkedBodyCheck::Verdict::BadLineEnd:
        fail(400, tr("malformed chunked body: a chunk-size line and a chunk's data must end in CRLF"));
        return;
    case ChunkedBodyCheck::Verdict::LineTooLong:
        fail(400, tr("malformed chunked body: a chunk-size line with its extensions is at most %1 bytes").arg(m_chunks.maxLineBytes()));
        return;
    }
}

qsizetype HttpRequestParser::execute(const char *data, qsizetype size)
{
    if (size <= 0)
        return 0;  // to http_parser, zero bytes mean the end of the stream
    const qsizetype parsed = qsizetype(http_parser_execute(m_parser.get(), &Callbacks::settings, data, size_t(size)));
    const http_errno error = HTTP_PARSER_ERRNO(m_parser.get());
    // HPE_PAUSED is onMessageComplete's doing; a callback that stopped the parser has already failed.
    if (error != HPE_OK && error != HPE_PAUSED && m_state != State::Failed) {
        if (error == HPE_HEADER_OVERFLOW)
            fail(431, tr("request headers too large: at most %1 bytes").arg(HTTP_MAX_HEADER_SIZE));
        else
            fail(400, tr("malformed request: %1").arg(QLatin1String(http_errno_description(error))));
    }
    return parsed;
}

ApiRequest HttpRequestParser::take()
{
    ApiRequest request;
    take(request);
    return request;
}

void HttpRequestParser::emptyKeepingRoom(ApiRequest &request)
{
    constexpr qsizetype KeptRoom = 4 * 1024;  // a request's path or Authorization fits many times over
    const auto empty = [](QByteArray &buffer) {
        if (buffer.isDetached() && buffer.capacity() <= KeptRoom)
            buffer.resize(0);
        else
            buffer = QByteArray();  // shared (a blocking endpoint's copy), raw (the method) or large
    };
    empty(request.method);
    empty(request.path);
    empty(request.query);
    empty(request.authorization);
    empty(request.body);
    request.headers.clear();
}

void HttpRequestParser::take(ApiRequest &request)
{
    Q_ASSERT(m_state == State::Complete);
    if (m_state != State::Complete) {
        request = {};
        return;
    }
    m_state = State::NeedMore;
    m_headerBytes = 0;
    m_headerPhase = HeaderPhase::None;
    m_currentHeader = KnownHeader::Other;
    m_started = false;
    m_headersComplete = false;
    m_chunked = false;
    m_requestLine.reset();
    m_chunks.reset();
    m_authorizationSeen = false;
    m_expectsContinue = false;
    http_parser_pause(m_parser.get(), 0);
    std::swap(m_request, request);
    emptyKeepingRoom(m_request);
}

void HttpRequestParser::fail(int status, const QString &message)
{
    m_state = State::Failed;
    m_errorStatus = status;
    m_errorMessage = message;
}

int HttpRequestParser::onMessageBegin()
{
    m_started = true;
    return 0;
}

int HttpRequestParser::onUrl(const char *at, qsizetype length)
{
    m_request.path.append(at, length);  // split into path and query once complete
    return 0;
}

int HttpRequestParser::onHeaderField(const char *at, qsizetype length)
{
    if (m_headersComplete)
        return 0;  // a chunked body's trailer: nothing we use
    // The system's libhttp_parser is built non-strict: it takes "Content-Length : 5" as a
    // Content-Length, which RFC 9112 5.1 says to reject (a request smuggling vector).
    if (std::memchr(at, ' ', size_t(length))) {
        fail(400, tr("malformed request: whitespace in a header name"));
        return Stop;
    }
    if (m_headerPhase != HeaderPhase::Field) {
        if (m_headerPhase == HeaderPhase::Value)
            finishValue();
        m_headerPhase = HeaderPhase::Field;
        m_fieldName.size = 0;
    }
    m_fieldName.append(at, length);
    return 0;
}

int HttpRequestParser::onHeaderValue(const char *at, qsizetype length)
{
    if (m_headersComplete)
        return 0;
    if (m_headerPhase == HeaderPhase::Field) {
        finishField();
        if (m_state == State::Failed)
            return Stop;
        m_headerPhase = HeaderPhase::Value;
    }
    switch (m_currentHeader) {
    case KnownHeader::Authorization:
        m_request.authorization.append(at, length);
        break;
    case KnownHeader::Expect:
        m_expectValue.append(at, length);
        break;
    case KnownHeader::Kept:
        m_request.headers.last().second.append(at, length);
        break;
    case KnownHeader::Other:
        break;
    }
    return 0;
}

void HttpRequestParser::finishField()
{
    m_currentHeader = KnownHeader::Other;
    if (m_fieldName.equalsNoCase("authorization")) {
        if (m_authorizationSeen) {
            fail(400, tr("malformed request: more than one Authorization header"));
            return;
        }
        m_authorizationSeen = true;
        m_currentHeader = KnownHeader::Authorization;
    } else if (m_fieldName.equalsNoCase("expect")) {
        m_currentHeader = KnownHeader::Expect;
        m_expectValue.size = 0;
    } else {
        for (const QByteArray &name : std::as_const(m_keptNames)) {
            if (m_fieldName.equalsNoCase(name.constData())) {
                m_currentHeader = KnownHeader::Kept;
                m_request.headers.append({name, {}});
                break;
            }
        }
    }
}

void HttpRequestParser::finishValue()
{
    if (m_currentHeader == KnownHeader::Authorization || m_currentHeader == KnownHeader::Kept) {
        // http_parser drops the leading blanks but keeps trailing ones.
        QByteArray &value = m_currentHeader == KnownHeader::Authorization ? m_request.authorization : m_request.headers.last().second;
        qsizetype end = value.size();
        while (end > 0 && isBlank(value.at(end - 1)))
            --end;
        qsizetype begin = 0;
        while (begin < end && isBlank(value.at(begin)))
            ++begin;
        value.truncate(end);
        if (begin > 0)
            value.remove(0, begin);
    } else if (m_currentHeader == KnownHeader::Expect && m_expectValue.equalsNoCase("100-continue")) {
        m_expectsContinue = true;
    }
    m_currentHeader = KnownHeader::Other;
}

int HttpRequestParser::onHeadersComplete()
{
    if (m_headerPhase == HeaderPhase::Field) {
        finishField();
        if (m_state == State::Failed)
            return Stop;
    }
    if (m_headerPhase != HeaderPhase::None)
        finishValue();
    m_headerPhase = HeaderPhase::None;

    const http_parser *parser = m_parser.get();
    if (parser->http_major != 1 || parser->http_minor > 1) {
        fail(505, tr("HTTP version %1.%2 is not supported: use HTTP/1.1").arg(parser->http_major).arg(parser->http_minor));
        return Stop;
    }
    // http_parser sets `upgrade` for CONNECT and for "Upgrade" with "Connection: upgrade".
    if (parser->upgrade) {
        fail(501, parser->method == HTTP_CONNECT ? tr("CONNECT is not supported")
                                                 : tr("protocol upgrades are not supported"));
        return Stop;
    }
    const bool hasLength = (parser->flags & F_CONTENTLENGTH) && !(parser->flags & F_CHUNKED);
    if (hasLength && parser->content_length > quint64(m_limits.maxBodyBytes)) {
        fail(400, tr("request body too large: at most %1 bytes").arg(m_limits.maxBodyBytes));
        return Stop;
    }

    // http_method_str returns static strings: no copy needed.
    const char *method = http_method_str(static_cast<http_method>(parser->method));
    m_request.method = QByteArray::fromRawData(method, qsizetype(std::strlen(method)));
    splitTarget();
    if (hasLength && parser->content_length > 0)
        m_request.body.reserve(qsizetype(parser->content_length));
    // RFC 9110 10.1.1: a 100-continue expectation in an HTTP/1.0 request is ignored.
    m_expectsContinue = m_expectsContinue && parser->http_minor == 1;
    m_chunked = (parser->flags & F_CHUNKED) != 0;
    m_headersComplete = true;
    // feed() goes on from here, so that it knows where the body starts.
    http_parser_pause(m_parser.get(), 1);
    return 0;
}

void HttpRequestParser::splitTarget()
{
    QByteArray &path = m_request.path;
    qsizetype begin = 0;
    const bool absoluteForm = !path.startsWith('/') && path.indexOf("://") > 0;
    if (absoluteForm) {
        begin = path.indexOf("://") + 3;
        while (begin < path.size() && path.at(begin) != '/' && path.at(begin) != '?' && path.at(begin) != '#')
            ++begin;
    }
    qsizetype end = path.indexOf('#', begin);
    if (end < 0)
        end = path.size();
    const qsizetype question = path.indexOf('?', begin);
    if (question >= 0 && question < end) {
        m_request.query = path.sliced(question + 1, end - question - 1);
        end = question;
    }
    // In place: the target was accumulated into `path`, which nothing else shares.
    path.truncate(end);
    if (begin > 0)
        path.remove(0, begin);
    if (absoluteForm && path.isEmpty())
        path = QByteArrayLiteral("/");
}

int HttpRequestParser::onBody(const char *at, qsizetype length)
{
    // Only a chunked body can get here too large: a Content-Length one failed in onHeadersComplete.
    if (m_request.body.size() + length > m_limits.maxBodyBytes) {
        fail(400, tr("request body too large: at most %1 bytes").arg(m_limits.maxBodyBytes));
        return Stop;
    }
    m_request.body.append(at, length);
    return 0;
}

int HttpRequestParser::onMessageComplete()
{
    m_keepAlive = http_should_keep_alive(m_parser.get()) != 0;
    m_state = State::Complete;
    // http_parser_execute then returns right after this request's last byte.
    http_parser_pause(m_parser.get(), 1);
    return 0;
}

} // namespace lantern
