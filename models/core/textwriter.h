#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace lantern {

/** Writes bytes into one QByteArray sized once for what is expected (it grows if more comes):
    the hot path's Redis keys and JSON answers (issue 28), without a QByteArray per number and
    without QByteArray::append's checks per piece. */
class TextWriter final {
public:
    explicit TextWriter(qsizetype expected) : m_text(expected, Qt::Uninitialized), m_cursor(m_text.data()) {}

    TextWriter &operator<<(char c)
    {
        room(1);
        *m_cursor++ = c;
        return *this;
    }
    TextWriter &operator<<(QByteArrayView text)
    {
        room(text.size());
        if (!text.isEmpty())
            std::memcpy(m_cursor, text.data(), size_t(text.size()));
        m_cursor += text.size();
        return *this;
    }
    /** In decimal, as QByteArray::number writes it. */
    TextWriter &number(qint64 value)
    {
        room(20);
        m_cursor = std::to_chars(m_cursor, m_cursor + 20, value).ptr;
        return *this;
    }
    qsizetype size() const { return m_cursor - m_text.constData(); }
    QByteArray take()
    {
        m_text.truncate(size());
        return std::move(m_text);
    }

private:
    void room(qsizetype bytes)
    {
        const qsizetype used = size();
        if (used + bytes <= m_text.size())
            return;
        m_text.resize(std::max(2 * m_text.size(), used + bytes));
        m_cursor = m_text.data() + used;
    }

    QByteArray m_text;
    char *m_cursor;
};

/** `value` in decimal, as QByteArray::number writes it, in one allocation (QByteArray::number
    goes through QByteArray::setNum's general path, ~450 instructions: the hot path's arguments). */
inline QByteArray decimal(qint64 value)
{
    char digits[20];
    const char *end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    return QByteArray(digits, end - digits);
}

} // namespace lantern
