#pragma once

#include <QtGlobal>

namespace lantern {

/** Follows a request line as its bytes arrive and checks it against RFC 9112 3:
    method SP request-target SP HTTP-version CRLF — a token, exactly one space, a target without
    spaces or control characters, exactly one space, "HTTP/" digit "." digit. Empty lines before
    it are skipped (RFC 9112 2.2), a bare LF may end it, and a line without a version (HTTP/0.9)
    passes for the parser to answer 505. The system's libhttp-parser, built non-strict, takes
    runs of spaces, tabs and more. */
class RequestLineCheck final {
public:
    enum class Verdict { NeedMore, Good, Bad };

    /** Reads bytes of the line (empty lines before it included) and returns how many it read:
        all of `size` until the line ends, up to its LF then, none once the verdict is in. */
    qsizetype scan(const char *data, qsizetype size);
    Verdict verdict() const { return m_verdict; }
    /** For the next request on the connection. */
    void reset() { *this = {}; }

private:
    enum class Part { Start, Method, TargetStart, Target, Version, AfterVersion, Cr };
    void step(char c);

    Part m_part = Part::Start;
    int m_versionLength = 0;  // bytes of "HTTP/x.y" read
    Verdict m_verdict = Verdict::NeedMore;
};

/** Follows a chunked body (RFC 9112 7.1) as its bytes arrive and checks what libhttp-parser
    lets through when built non-strict: chunk extensions must be `;name` or `;name=value` (a
    token, a value a token or a quoted string, blanks only around ";" and "="; so no NUL or
    other control character but a tab in a quoted string), every chunk-size line and every
    chunk's data must end in CRLF, and a chunk-size line with its extensions is at most
    `maxLineBytes` long (libhttp-parser reads extensions without end). The trailer section after
    the last chunk is the parser's. */
class ChunkedBodyCheck final {
public:
    enum class Verdict { NeedMore, Good, BadExtension, BadLineEnd, LineTooLong };

    explicit ChunkedBodyCheck(qsizetype maxLineBytes = 1024) : m_maxLineBytes(maxLineBytes) {}

    /** Reads body bytes that follow the ones read before (the parser consumed them all). */
    void scan(const char *data, qsizetype size);
    Verdict verdict() const { return m_verdict; }
    qsizetype maxLineBytes() const { return m_maxLineBytes; }
    /** For the next chunked body. */
    void reset() { *this = ChunkedBodyCheck(m_maxLineBytes); }

private:
    enum class Part {
        SizeStart, Size, BeforeSemicolon, NameStart, Name, AfterName, ValueStart, Token, Quoted, QuotedPair, AfterValue,
        SizeLf, Data, DataCr, DataLf
    };
    /** One byte of a chunk-size line; m_verdict says when it breaks the grammar, and how. */
    void stepLine(char c);

    qsizetype m_maxLineBytes;
    Part m_part = Part::SizeStart;
    quint64 m_chunkLeft = 0;  // data bytes of the current chunk still to come
    qsizetype m_lineBytes = 0;
    Verdict m_verdict = Verdict::NeedMore;
};

} // namespace lantern
