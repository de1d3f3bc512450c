#pragma once

#include <QByteArrayView>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringView>

#include <array>
#include <memory>
#include <optional>

namespace lantern {

/** Hashids (hashids.org v1 algorithm): turns non-negative integers into short opaque strings and back.
    Compatible with hashids.js / hashids PHP outputs for the same salt, min length and alphabet.

    Characters of the salt and alphabet are handled as Unicode code points (as hashids.js >= 2 and
    the PHP port's mb_* functions do); for BMP characters this is identical to hashids.js v1, which
    worked on UTF-16 code units. Hashids is not encryption: do not use it to protect secrets. */
class Hashids final {
public:
    static constexpr QStringView DefaultAlphabet = u"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890";

    /** Throws std::invalid_argument for an alphabet with < 16 unique chars or containing spaces.
        A negative minLength is treated as 0. (Qt 6.4 has no QString(QStringView) constructor, hence
        the toString() in the default argument.) */
    explicit Hashids(const QString &salt = {}, int minLength = 0,
                     const QString &alphabet = DefaultAlphabet.toString());

    /** Empty string for an empty list or if any number is negative. */
    [[nodiscard]] QString encode(const QList<qint64> &numbers) const;
    [[nodiscard]] QString encode(qint64 number) const;

    /** Decodes; returns std::nullopt when the string is not a valid hash for this salt/alphabet
        (including the re-encode check that hashids.js does: decode(x) must re-encode to x),
        when it is empty, or when a number would not fit in a qint64. */
    [[nodiscard]] std::optional<QList<qint64>> decode(const QString &hash) const;
    /** decode() of `latin1` (a bearer's token, as bytes) when it yields exactly one number, else
        std::nullopt. For an ASCII alphabet (the default) it reads and re-encodes the hash with
        tables made once, on the stack (issue 28: decode()'s lists were a third of the bearer
        check); anything else, and a hash short enough to be padded, takes decode() itself. */
    [[nodiscard]] std::optional<qint64> decodeOne(QByteArrayView latin1) const;

private:
    using CodePoints = QList<char32_t>;
    struct AsciiTables;

    [[nodiscard]] CodePoints encodeToCodePoints(const QList<qint64> &numbers) const;
    /** The alphabet of a hash's first number, which depends on its lottery character alone:
        from the table the constructor fills (one shuffle per character, once), else shuffled. */
    [[nodiscard]] CodePoints firstAlphabet(char32_t lottery) const;
    void buildAsciiTables();
    std::optional<qint64> decodeOneInGeneral(QByteArrayView latin1) const;

    CodePoints m_salt;
    CodePoints m_alphabet;
    CodePoints m_separators;
    CodePoints m_guards;
    QHash<char32_t, CodePoints> m_firstAlphabets;  // lottery -> nextAlphabet(m_alphabet, lottery, m_salt)
    std::shared_ptr<const AsciiTables> m_ascii;  // null unless every character is ASCII
    int m_minLength = 0;
};

} // namespace lantern
