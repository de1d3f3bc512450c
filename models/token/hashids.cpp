#include "token/hashids.h"

#include <QtNumeric>

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

namespace lantern {

namespace {

using CodePoints = QList<char32_t>;

constexpr qsizetype MinAlphabetLength = 16;
// The separator ratio is 3.5 in every port; kept as the fraction 7/2 so the maths stays integral.
constexpr qsizetype SeparatorRatioNum = 7;
constexpr qsizetype SeparatorRatioDen = 2;
constexpr qsizetype GuardDivisor = 12;
constexpr std::u32string_view DefaultSeparators = U"cfhistuCFHISTU";

CodePoints toCodePoints(const QString &text)
{
    const QList<uint> ucs4 = text.toUcs4();
    CodePoints result;
    result.reserve(ucs4.size());
    for (const uint c : ucs4)
        result.append(static_cast<char32_t>(c));
    return result;
}

QString fromCodePoints(const CodePoints &chars)
{
    return QString::fromUcs4(chars.constData(), chars.size());
}

/** The "consistent shuffle" of every hashids port: a salt-driven Fisher-Yates variant. */
CodePoints shuffled(CodePoints chars, std::span<const char32_t> salt)
{
    if (salt.empty())
        return chars;
    const auto saltLength = static_cast<qsizetype>(salt.size());
    qint64 p = 0;
    for (qsizetype i = chars.size() - 1, v = 0; i > 0; --i, ++v) {
        v %= saltLength;
        const auto integer = static_cast<qint64>(salt[static_cast<std::size_t>(v)]);
        p += integer;
        const auto j = static_cast<qsizetype>((integer + v + p) % i);
        std::swap(chars[i], chars[j]);
    }
    return chars;
}

CodePoints shuffled(CodePoints chars, const CodePoints &salt)
{
    const std::span<const char32_t> saltView(salt.constData(), static_cast<std::size_t>(salt.size()));
    return shuffled(std::move(chars), saltView);
}

/** The per-number alphabet: shuffle with (lottery + salt + alphabet) cut to the alphabet's length. */
CodePoints nextAlphabet(const CodePoints &alphabet, char32_t lottery, const CodePoints &salt)
{
    CodePoints buffer;
    buffer.reserve(1 + salt.size() + alphabet.size());
    buffer.append(lottery);
    buffer.append(salt);
    buffer.append(alphabet);
    buffer.resize(alphabet.size());
    return shuffled(alphabet, buffer);
}

/** Appends number (>= 0) written in the base given by alphabet, most significant digit first. */
void appendInAlphabet(qint64 number, const CodePoints &alphabet, CodePoints &out)
{
    const qsizetype start = out.size();
    const auto base = static_cast<qint64>(alphabet.size());
    do {
        out.append(alphabet[static_cast<qsizetype>(number % base)]);
        number /= base;
    } while (number > 0);
    std::reverse(out.begin() + start, out.end());
}

/** Reads a number written in alphabet; nullopt for a character outside it or a qint64 overflow. */
std::optional<qint64> readFromAlphabet(const CodePoints &digits, const CodePoints &alphabet)
{
    const auto base = static_cast<qint64>(alphabet.size());
    qint64 value = 0;
    for (const char32_t c : digits) {
        const qsizetype index = alphabet.indexOf(c);
        if (index < 0)
            return std::nullopt;
        if (qMulOverflow(value, base, &value) || qAddOverflow(value, static_cast<qint64>(index), &value))
            return std::nullopt;
    }
    return value;
}

/** Splits chars at every character contained in delimiters (like String.split on a character class). */
QList<CodePoints> splitAt(const CodePoints &chars, const CodePoints &delimiters)
{
    QList<CodePoints> parts(1);
    for (const char32_t c : chars) {
        if (delimiters.contains(c))
            parts.append(CodePoints());
        else
            parts.last().append(c);
    }
    return parts;
}

} // namespace

Hashids::Hashids(const QString &salt, int minLength, const QString &alphabet)
    : m_salt(toCodePoints(salt))
    , m_minLength(std::max(minLength, 0))
{
    CodePoints unique;
    for (const char32_t c : toCodePoints(alphabet)) {
        if (!unique.contains(c))
            unique.append(c);
    }
    if (unique.size() < MinAlphabetLength) {
        throw std::invalid_argument("Hashids: alphabet must contain at least 16 unique characters, provided: "
                                    + fromCodePoints(unique).toStdString());
    }
    if (unique.contains(U' '))
        throw std::invalid_argument("Hashids: alphabet cannot contain spaces");

    // Separators are the default ones present in the alphabet (in their default order); the
    // alphabet keeps its own order minus those.
    for (const char32_t c : DefaultSeparators) {
        if (unique.contains(c))
            m_separators.append(c);
    }
    for (const char32_t c : std::as_const(unique)) {
        if (DefaultSeparators.find(c) == std::u32string_view::npos)
            m_alphabet.append(c);
    }

    m_separators = shuffled(m_separators, m_salt);

    // Too few separators (alphabet / separators > 3.5): take some from the alphabet's front.
    const qsizetype alphabetSize = m_alphabet.size();
    if (m_separators.isEmpty() || alphabetSize * SeparatorRatioDen > m_separators.size() * SeparatorRatioNum) {
        // ceil(alphabetSize / 3.5)
        qsizetype separatorCount =
            (alphabetSize * SeparatorRatioDen + SeparatorRatioNum - 1) / SeparatorRatioNum;
        if (separatorCount == 1)
            ++separatorCount;
        if (separatorCount > m_separators.size()) {
            const qsizetype diff = separatorCount - m_separators.size();
            m_separators.append(m_alphabet.mid(0, diff));
            m_alphabet = m_alphabet.mid(diff);
        } else {
            m_separators = m_separators.mid(0, separatorCount);
        }
    }

    m_alphabet = shuffled(m_alphabet, m_salt);

    const qsizetype guardCount = (m_alphabet.size() + GuardDivisor - 1) / GuardDivisor;
    if (m_alphabet.size() < 3) {
        m_guards = m_separators.mid(0, guardCount);
        m_separators = m_separators.mid(guardCount);
    } else {
        m_guards = m_alphabet.mid(0, guardCount);
        m_alphabet = m_alphabet.mid(guardCount);
    }
    // A first number's alphabet, per lottery character: two shuffles fewer per bearer checked
    // (the decode and its re-encode), the hot path of every API request (issue 28).
    for (const char32_t lottery : std::as_const(m_alphabet))
        m_firstAlphabets.insert(lottery, nextAlphabet(m_alphabet, lottery, m_salt));
    buildAsciiTables();
}

Hashids::CodePoints Hashids::firstAlphabet(char32_t lottery) const
{
    const auto found = m_firstAlphabets.constFind(lottery);
    return found != m_firstAlphabets.cend() ? *found : nextAlphabet(m_alphabet, lottery, m_salt);
}

QString Hashids::encode(const QList<qint64> &numbers) const
{
    if (numbers.isEmpty())
        return {};
    if (std::any_of(numbers.cbegin(), numbers.cend(), [](qint64 n) { return n < 0; }))
        return {};
    return fromCodePoints(encodeToCodePoints(numbers));
}

QString Hashids::encode(qint64 number) const
{
    return encode(QList<qint64>{number});
}

Hashids::CodePoints Hashids::encodeToCodePoints(const QList<qint64> &numbers) const
{
    // Every term is < i + 100, so the sum cannot overflow for any list that fits in memory.
    qint64 numbersId = 0;
    for (qsizetype i = 0; i < numbers.size(); ++i)
        numbersId += numbers[i] % (static_cast<qint64>(i) + 100);

    CodePoints alphabet = m_alphabet;
    const char32_t lottery = alphabet[static_cast<qsizetype>(numbersId % alphabet.size())];

    CodePoints ret;
    ret.append(lottery);
    for (qsizetype i = 0; i < numbers.size(); ++i) {
        const qint64 number = numbers[i];
        alphabet = i == 0 ? firstAlphabet(lottery) : nextAlphabet(alphabet, lottery, m_salt);
        const qsizetype start = ret.size();
        appendInAlphabet(number, alphabet, ret);
        if (i + 1 < numbers.size()) {
            const qint64 reduced = number % (static_cast<qint64>(ret[start]) + i);
            ret.append(m_separators[static_cast<qsizetype>(reduced % m_separators.size())]);
        }
    }

    if (ret.size() < m_minLength) {
        const qint64 prefixIndex = (numbersId + static_cast<qint64>(ret[0])) % m_guards.size();
        ret.prepend(m_guards[static_cast<qsizetype>(prefixIndex)]);
        if (ret.size() < m_minLength) {
            const qint64 suffixIndex = (numbersId + static_cast<qint64>(ret[2])) % m_guards.size();
            ret.append(m_guards[static_cast<qsizetype>(suffixIndex)]);
        }
    }

    const qsizetype halfLength = alphabet.size() / 2;
    while (ret.size() < m_minLength) {
        alphabet = shuffled(alphabet, alphabet);
        CodePoints padded;
        padded.reserve(ret.size() + alphabet.size());
        padded.append(alphabet.mid(halfLength));
        padded.append(ret);
        padded.append(alphabet.mid(0, halfLength));
        ret = std::move(padded);
        const qsizetype excess = ret.size() - m_minLength;
        if (excess > 0)
            ret = ret.mid(excess / 2, m_minLength);
    }
    return ret;
}

std::optional<QList<qint64>> Hashids::decode(const QString &hash) const
{
    if (hash.isEmpty())
        return std::nullopt;

    const QList<CodePoints> guardParts = splitAt(toCodePoints(hash), m_guards);
    // One guard: the id follows it; two guards: it sits between them.
    const qsizetype partIndex = (guardParts.size() == 2 || guardParts.size() == 3) ? 1 : 0;
    const CodePoints &breakdown = guardParts[partIndex];
    if (breakdown.isEmpty())
        return std::nullopt;

    const char32_t lottery = breakdown.front();
    const QList<CodePoints> subHashes = splitAt(breakdown.mid(1), m_separators);

    CodePoints alphabet = m_alphabet;
    QList<qint64> numbers;
    numbers.reserve(subHashes.size());
    for (const CodePoints &subHash : subHashes) {
        if (subHash.isEmpty())
            return std::nullopt;
        alphabet = numbers.isEmpty() ? firstAlphabet(lottery) : nextAlphabet(alphabet, lottery, m_salt);
        const std::optional<qint64> number = readFromAlphabet(subHash, alphabet);
        if (!number)
            return std::nullopt;
        numbers.append(*number);
    }

    // Malformed or foreign input may still parse; only accept what we would have produced.
    if (fromCodePoints(encodeToCodePoints(numbers)) != hash)
        return std::nullopt;
    return numbers;
}

/** decodeOne()'s tables: what each ASCII character is, and per lottery character its first
    number's alphabet with each character's digit. */
struct Hashids::AsciiTables {
    enum Role : quint8 { Other, Guard, Separator };
    struct Alphabet {
        std::array<char, 128> chars{};
        std::array<qint8, 128> digitOf{};  // -1: not in this alphabet
    };
    std::array<quint8, 128> roleOf{};
    std::array<qint8, 128> lotterySlot{};  // index in firstAlphabets, -1: not a lottery character
    std::vector<Alphabet> firstAlphabets;
    QByteArray alphabet;  // m_alphabet
    QByteArray guards;
};

void Hashids::buildAsciiTables()
{
    const auto ascii = [](const CodePoints &chars) { return std::all_of(chars.cbegin(), chars.cend(), [](char32_t c) { return c < 128; }); };
    // A base below 2 never ends a number; 127 digits are what qint8 holds.
    if (m_alphabet.size() < 2 || m_alphabet.size() > 127 || m_guards.isEmpty() || m_separators.isEmpty() || !ascii(m_alphabet)
        || !ascii(m_guards) || !ascii(m_separators))
        return;
    auto tables = std::make_shared<AsciiTables>();
    tables->lotterySlot.fill(-1);
    for (const char32_t c : std::as_const(m_separators))
        tables->roleOf[c] = AsciiTables::Separator;
    for (const char32_t c : std::as_const(m_guards)) {
        tables->roleOf[c] = AsciiTables::Guard;
        tables->guards.append(char(c));
    }
    for (const char32_t lottery : std::as_const(m_alphabet)) {
        AsciiTables::Alphabet alphabet;
        alphabet.digitOf.fill(-1);
        const CodePoints chars = firstAlphabet(lottery);
        for (qsizetype digit = 0; digit < chars.size(); ++digit) {
            alphabet.chars[size_t(digit)] = char(chars[digit]);
            alphabet.digitOf[chars[digit]] = qint8(digit);
        }
        tables->lotterySlot[lottery] = qint8(tables->firstAlphabets.size());
        tables->firstAlphabets.push_back(alphabet);
        tables->alphabet.append(char(lottery));
    }
    m_ascii = std::move(tables);
}

std::optional<qint64> Hashids::decodeOneInGeneral(QByteArrayView latin1) const
{
    const std::optional<QList<qint64>> numbers = decode(QString::fromLatin1(latin1));
    return numbers && numbers->size() == 1 ? std::optional<qint64>(numbers->front()) : std::nullopt;
}

std::optional<qint64> Hashids::decodeOne(QByteArrayView hash) const
{
    if (!m_ascii)
        return decodeOneInGeneral(hash);
    const AsciiTables &tables = *m_ascii;
    if (hash.isEmpty())
        return std::nullopt;
    // decode()'s split at the guards: the number is in the second of two or three parts, else in the first.
    qsizetype guards = 0;
    qsizetype firstGuard = -1;
    qsizetype secondGuard = -1;
    for (qsizetype i = 0; i < hash.size(); ++i) {
        const auto c = static_cast<unsigned char>(hash[i]);
        if (c >= 128)
            return decodeOneInGeneral(hash);
        if (tables.roleOf[c] == AsciiTables::Guard) {
            if (guards == 0)
                firstGuard = i;
            else if (guards == 1)
                secondGuard = i;
            ++guards;
        }
    }
    qsizetype begin = 0;
    qsizetype end = hash.size();
    if (guards == 1 || guards == 2) {
        begin = firstGuard + 1;
        end = guards == 2 ? secondGuard : hash.size();
    } else if (guards > 2) {
        end = firstGuard;
    }
    if (begin >= end)
        return std::nullopt;  // no lottery character
    const qint8 slot = tables.lotterySlot[static_cast<unsigned char>(hash[begin])];
    if (slot < 0)
        return decodeOneInGeneral(hash);  // a lottery outside the alphabet: decode() shuffles for it
    const AsciiTables::Alphabet &alphabet = tables.firstAlphabets[size_t(slot)];
    if (begin + 1 == end)
        return std::nullopt;  // an empty number
    const auto base = static_cast<qint64>(tables.alphabet.size());
    qint64 value = 0;
    for (qsizetype i = begin + 1; i < end; ++i) {
        const auto c = static_cast<unsigned char>(hash[i]);
        if (tables.roleOf[c] == AsciiTables::Separator)
            return std::nullopt;  // two numbers or more, or an empty one: not one number
        const qint8 digit = alphabet.digitOf[c];
        if (digit < 0 || qMulOverflow(value, base, &value) || qAddOverflow(value, static_cast<qint64>(digit), &value))
            return std::nullopt;
    }

    // The re-encode check: encodeToCodePoints({value}) on the stack, up to its padding.
    const qint64 numbersId = value % 100;
    const char lottery = tables.alphabet[qsizetype(numbersId % base)];
    const AsciiTables::Alphabet &encodeAlphabet = tables.firstAlphabets[size_t(tables.lotterySlot[static_cast<unsigned char>(lottery)])];
    char text[72];  // a guard, the lottery, up to 63 digits (base 2), a guard
    char digits[64];
    qsizetype digitCount = 0;
    qint64 rest = value;
    do {
        digits[digitCount++] = encodeAlphabet.chars[size_t(rest % base)];
        rest /= base;
    } while (rest > 0);
    qsizetype length = 0;
    text[length++] = lottery;
    while (digitCount > 0)
        text[length++] = digits[--digitCount];
    if (length < m_minLength) {
        const qsizetype guardCount = tables.guards.size();
        const char prefix = tables.guards[qsizetype((numbersId + static_cast<unsigned char>(text[0])) % guardCount)];
        std::memmove(text + 1, text, size_t(length++));
        text[0] = prefix;
        if (length < m_minLength)
            text[length++] = tables.guards[qsizetype((numbersId + static_cast<unsigned char>(text[2])) % guardCount)];
    }
    if (length < m_minLength)  // padded with shuffled alphabets: decode()'s own way
        return fromCodePoints(encodeToCodePoints({value})) == QLatin1StringView(hash.data(), hash.size()) ? std::optional<qint64>(value)
                                                                                                          : std::nullopt;
    return QByteArrayView(text, length) == hash ? std::optional<qint64>(value) : std::nullopt;
}

} // namespace lantern
