#include "serve/httpframingcheck.h"

#include <algorithm>
#include <cstring>

namespace lantern {

namespace {

/** RFC 9110 5.6.2 tchar: what a method, a token and an extension name are made of. */
bool isTokenChar(char c)
{
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
        return true;
    return c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr;
}

bool isControlChar(char c)
{
    return (c >= '\0' && c < ' ') || c == '\x7f';
}

/** RFC 9110 5.6.3 BWS: optional spaces and tabs. */
bool isSpaceOrTab(char c)
{
    return c == ' ' || c == '\t';
}

/** RFC 9110 5.6.4 qdtext, and what may follow a backslash in a quoted string. */
bool isQuotedText(char c, bool escaped)
{
    if (c == '\t' || c == ' ' || (static_cast<unsigned char>(c) >= 0x80))
        return true;
    return !isControlChar(c) && (escaped || (c != '"' && c != '\\'));
}

int hexValue(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

} // namespace

qsizetype RequestLineCheck::scan(const char *data, qsizetype size)
{
    qsizetype read = 0;
    while (read < size && m_verdict == Verdict::NeedMore)
        step(data[read++]);
    return read;
}

void RequestLineCheck::step(char c)
{
    static constexpr char Version[] = "HTTP/d.d";  // d: a digit
    const auto bad = [this] { m_verdict = Verdict::Bad; };
    switch (m_part) {
    case Part::Start:
        if (c == '\r' || c == '\n')
            return;  // an empty line before the request line
        if (!isTokenChar(c))
            return bad();
        m_part = Part::Method;
        return;
    case Part::Method:
        if (c == ' ')
            m_part = Part::TargetStart;
        else if (!isTokenChar(c))
            bad();
        return;
    case Part::TargetStart:
        // A space here would be a second one after the method.
        if (c == ' ' || isControlChar(c))
            return bad();
        m_part = Part::Target;
        return;
    case Part::Target:
        if (c == ' ')
            m_part = Part::Version;
        else if (c == '\r')
            m_part = Part::Cr;  // HTTP/0.9, without a version: the parser answers 505
        else if (c == '\n')
            m_verdict = Verdict::Good;
        else if (isControlChar(c))
            bad();
        return;
    case Part::Version: {
        const char expected = Version[m_versionLength];
        if (expected == 'd' ? (c < '0' || c > '9') : c != expected)
            return bad();
        if (++m_versionLength == int(sizeof(Version) - 1))
            m_part = Part::AfterVersion;
        return;
    }
    case Part::AfterVersion:
        if (c == '\r')
            m_part = Part::Cr;
        else if (c == '\n')
            m_verdict = Verdict::Good;  // RFC 9112 2.2: a bare LF may end a line
        else
            bad();
        return;
    case Part::Cr:
        m_verdict = c == '\n' ? Verdict::Good : Verdict::Bad;
        return;
    }
}

void ChunkedBodyCheck::scan(const char *data, qsizetype size)
{
    qsizetype at = 0;
    while (at < size && m_verdict == Verdict::NeedMore) {
        switch (m_part) {
        case Part::Data: {
            const qsizetype skip = qsizetype(std::min<quint64>(m_chunkLeft, quint64(size - at)));
            at += skip;
            m_chunkLeft -= quint64(skip);
            if (m_chunkLeft == 0)
                m_part = Part::DataCr;
            break;
        }
        case Part::DataCr:
            m_part = Part::DataLf;
            if (data[at++] != '\r')
                m_verdict = Verdict::BadLineEnd;
            break;
        case Part::DataLf:
            m_part = Part::SizeStart;
            if (data[at++] != '\n')
                m_verdict = Verdict::BadLineEnd;
            break;
        default:
            if (++m_lineBytes > m_maxLineBytes) {
                m_verdict = Verdict::LineTooLong;
                break;
            }
            stepLine(data[at++]);  // sets m_verdict when the byte breaks the grammar
            break;
        }
    }
}

void ChunkedBodyCheck::stepLine(char c)
{
    const auto badExtension = [this] { m_verdict = Verdict::BadExtension; };
    switch (m_part) {
    case Part::SizeStart:
    case Part::Size: {
        const int digit = hexValue(c);
        if (digit >= 0) {
            // Saturated: a size this large fails in the parser, and the body limit is far below.
            constexpr quint64 Largest = ~quint64(0);
            m_chunkLeft = m_chunkLeft > (Largest - 15) / 16 ? Largest : m_chunkLeft * 16 + quint64(digit);
            m_part = Part::Size;
        } else if (m_part == Part::SizeStart) {
            return badExtension();  // not a size at all (the parser says so first)
        } else if (c == '\r') {
            m_part = Part::SizeLf;
        } else if (c == ';') {
            m_part = Part::NameStart;
        } else if (isSpaceOrTab(c)) {
            m_part = Part::BeforeSemicolon;
        } else {
            return badExtension();
        }
        return;
    }
    case Part::BeforeSemicolon:
        if (c == ';')
            m_part = Part::NameStart;
        else if (!isSpaceOrTab(c))
            return badExtension();  // also a CR: blanks are allowed before ";" only
        return;
    case Part::NameStart:
        if (isTokenChar(c))
            m_part = Part::Name;
        else if (!isSpaceOrTab(c))
            return badExtension();
        return;
    case Part::Name:
        if (c == '\r')
            m_part = Part::SizeLf;
        else if (c == ';')
            m_part = Part::NameStart;
        else if (c == '=')
            m_part = Part::ValueStart;
        else if (isSpaceOrTab(c))
            m_part = Part::AfterName;
        else if (!isTokenChar(c))
            return badExtension();
        return;
    case Part::AfterName:
        if (c == ';')
            m_part = Part::NameStart;
        else if (c == '=')
            m_part = Part::ValueStart;
        else if (!isSpaceOrTab(c))
            return badExtension();
        return;
    case Part::ValueStart:
        if (c == '"')
            m_part = Part::Quoted;
        else if (isTokenChar(c))
            m_part = Part::Token;
        else if (!isSpaceOrTab(c))
            return badExtension();
        return;
    case Part::Token:
        if (c == '\r')
            m_part = Part::SizeLf;
        else if (c == ';')
            m_part = Part::NameStart;
        else if (isSpaceOrTab(c))
            m_part = Part::BeforeSemicolon;
        else if (!isTokenChar(c))
            return badExtension();
        return;
    case Part::Quoted:
        if (c == '"')
            m_part = Part::AfterValue;
        else if (c == '\\')
            m_part = Part::QuotedPair;
        else if (!isQuotedText(c, false))
            return badExtension();
        return;
    case Part::QuotedPair:
        if (!isQuotedText(c, true))
            return badExtension();
        m_part = Part::Quoted;
        return;
    case Part::AfterValue:
        if (c == '\r')
            m_part = Part::SizeLf;
        else if (c == ';')
            m_part = Part::NameStart;
        else if (isSpaceOrTab(c))
            m_part = Part::BeforeSemicolon;
        else
            return badExtension();
        return;
    case Part::SizeLf:
        if (c != '\n') {
            m_verdict = Verdict::BadLineEnd;
            return;
        }
        m_lineBytes = 0;
        m_part = Part::Data;
        if (m_chunkLeft == 0)
            m_verdict = Verdict::Good;  // the last chunk: the trailer section is the parser's
        return;
    case Part::Data:
    case Part::DataCr:
    case Part::DataLf:
        return;  // scan() reads these
    }
}

} // namespace lantern
