#include "serve/httpresponse.h"

#include <http_parser.h>

#include <charconv>
#include <cstring>
#include <string_view>

namespace lantern {

namespace {

struct Decimal {
    char digits[24];
    qsizetype size;
    explicit Decimal(qint64 value)
    {
        size = qsizetype(std::to_chars(digits, digits + sizeof(digits), value).ptr - digits);
    }
};

} // namespace

void appendHttpResponse(QByteArray &out, const ApiResponse &response, bool keepAlive)
{
    using namespace std::string_view_literals;
    const int status = response.status;
    const bool interim = status >= 100 && status < 200;
    const bool withBody = !interim && status != 204 && status != 304;
    const bool withClose = !keepAlive && !interim;
    const char *reason = http_status_str(static_cast<http_status>(status));
    const std::string_view reasonText = std::strcmp(reason, "<unknown>") == 0 ? ""sv : std::string_view(reason);
    const Decimal statusText(status);
    const Decimal lengthText(response.body.size());

    constexpr auto statusLine = "HTTP/1.1 "sv;
    constexpr auto contentType = "Content-Type: "sv;
    constexpr auto contentLength = "Content-Length: "sv;
    constexpr auto close = "Connection: close\r\n"sv;
    constexpr auto separator = ": "sv;
    constexpr auto crlf = "\r\n"sv;

    qsizetype total = qsizetype(statusLine.size()) + statusText.size + 1 + qsizetype(reasonText.size() + crlf.size());
    if (withBody) {
        if (!response.contentType.isEmpty())
            total += qsizetype(contentType.size()) + response.contentType.size() + qsizetype(crlf.size());
        total += qsizetype(contentLength.size()) + lengthText.size + qsizetype(crlf.size()) + response.body.size();
    }
    for (const auto &[name, value] : response.headers)
        total += name.size() + qsizetype(separator.size()) + value.size() + qsizetype(crlf.size());
    if (withClose)
        total += qsizetype(close.size());
    total += qsizetype(crlf.size());

    // One allocation at most, growing geometrically when responses pile up in the write buffer.
    const qsizetype start = out.size();
    if (start + total > out.capacity())
        out.reserve(std::max(start + total, 2 * out.capacity()));
    out.resize(start + total);
    char *cursor = out.data() + start;
    const auto put = [&cursor](const char *data, qsizetype size) {
        if (size > 0)
            std::memcpy(cursor, data, size_t(size));
        cursor += size;
    };
    const auto putView = [&put](std::string_view text) { put(text.data(), qsizetype(text.size())); };

    putView(statusLine);
    put(statusText.digits, statusText.size);
    put(" ", 1);
    putView(reasonText);
    putView(crlf);
    if (withBody) {
        if (!response.contentType.isEmpty()) {
            putView(contentType);
            put(response.contentType.constData(), response.contentType.size());
            putView(crlf);
        }
        putView(contentLength);
        put(lengthText.digits, lengthText.size);
        putView(crlf);
    }
    for (const auto &[name, value] : response.headers) {
        put(name.constData(), name.size());
        putView(separator);
        put(value.constData(), value.size());
        putView(crlf);
    }
    if (withClose)
        putView(close);
    putView(crlf);
    if (withBody)
        put(response.body.constData(), response.body.size());
    Q_ASSERT(cursor == out.data() + out.size());
}

} // namespace lantern
