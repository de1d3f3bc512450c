// Hashids::decodeOne, the bearer check's table-driven decode (issue 28), against Hashids::decode
// itself: for every string tried, decodeOne gives the number exactly when decode gives one number,
// and nothing otherwise — on valid hashes of one and of two numbers, short ones (guards, padding),
// large ones (overflow), every one-character change, cut and insertion of valid hashes, random
// strings over the alphabet, its separators and guards, and alphabets that take the general path.
#include "testsuite.h"
#include "token/hashids.h"

#include <QRandomGenerator>
#include <QTest>

#include <limits>

namespace tst_hashidsone {

using lantern::Hashids;

namespace {

std::optional<qint64> reference(const Hashids &hashids, const QString &hash)
{
    const std::optional<QList<qint64>> numbers = hashids.decode(hash);
    return numbers && numbers->size() == 1 ? std::optional<qint64>(numbers->front()) : std::nullopt;
}

/** The strings to try around `valid`: itself, each character replaced by each of `chars`, each cut
    and each insertion of one of `chars`. */
QStringList variants(const QString &valid, const QString &chars)
{
    QStringList out{valid};
    for (qsizetype i = 0; i <= valid.size(); ++i) {
        if (i < valid.size())
            out << QString(valid).remove(i, 1);
        for (const QChar c : chars) {
            out << QString(valid).insert(i, c);
            if (i < valid.size() && valid.at(i) != c)
                out << QString(valid).replace(i, 1, c);
        }
    }
    return out;
}

} // namespace

class TestHashidsOne final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void agreesWithDecode_data();
    void agreesWithDecode();
};

void TestHashidsOne::agreesWithDecode_data()
{
    QTest::addColumn<QString>("salt");
    QTest::addColumn<int>("minLength");
    QTest::addColumn<QString>("alphabet");

    const QString defaultAlphabet = Hashids::DefaultAlphabet.toString();
    QTest::newRow("lantern's tokens: salt 'lantern', at least 8 characters") << QStringLiteral("lantern") << 8 << defaultAlphabet;
    QTest::newRow("no salt, no minimum") << QString() << 0 << defaultAlphabet;
    QTest::newRow("at least 30 characters: padded with shuffled alphabets") << QStringLiteral("pepper") << 30 << defaultAlphabet;
    QTest::newRow("16 characters, none a default separator") << QStringLiteral("salt") << 6 << QStringLiteral("abdegjklmnopqrvw");
    QTest::newRow("two letters besides the separators: base 2, guards from the separators")
            << QStringLiteral("salt") << 4 << QStringLiteral("cfhistuCFHISTUab");
    QTest::newRow("non-ASCII alphabet: the general path") << QStringLiteral("salt") << 8 << QStringLiteral("abcdefghijklmnopqrstuvwxyzäöü");
    QTest::newRow("ASCII alphabet, non-ASCII salt") << QStringLiteral("sälz") << 8 << defaultAlphabet;
}

void TestHashidsOne::agreesWithDecode()
{
    QFETCH(QString, salt);
    QFETCH(int, minLength);
    QFETCH(QString, alphabet);
    const Hashids hashids(salt, minLength, alphabet);

    QRandomGenerator random(28);
    QList<qint64> numbers{0, 1, 2, 99, 100, 12345, 1000000000000, 1999999999999, std::numeric_limits<qint64>::max() - 1,
                          std::numeric_limits<qint64>::max()};
    for (int i = 0; i < 40; ++i)
        numbers << qint64(random.generate64() >> (1 + random.bounded(63)));
    const QString mutations = alphabet + QStringLiteral("0.-") + QChar(0xe9);
    QStringList hashes;
    for (qsizetype i = 0; i < numbers.size(); ++i) {
        hashes << hashids.encode(numbers[i]) << hashids.encode(QList<qint64>{numbers[i], 7});
        if (i < 12)
            hashes << variants(hashids.encode(numbers[i]), mutations);
    }
    for (int i = 0; i < 2000; ++i) {
        QString text;
        const int length = 1 + int(random.bounded(16));
        for (int c = 0; c < length; ++c)
            text += alphabet.at(random.bounded(alphabet.size()));
        hashes << text;
    }
    hashes << QString() << QStringLiteral("f") << QStringLiteral("zXVjmzBamYlqX");

    int decoded = 0;
    for (const QString &hash : std::as_const(hashes)) {
        const std::optional<qint64> expected = reference(hashids, hash);
        decoded += expected.has_value();
        const QByteArray latin1 = hash.toLatin1();
        if (QString::fromLatin1(latin1) != hash)
            continue;  // a bearer's bytes are Latin-1: nothing else reaches decodeOne
        QVERIFY2(hashids.decodeOne(latin1) == expected,
                 qPrintable(QStringLiteral("%1: decode says %2").arg(hash, expected ? QString::number(*expected) : QStringLiteral("nothing"))));
    }
    QVERIFY2(decoded >= numbers.size(), "every single number's hash decodes");
}

LANTERN_TEST_SUITE(TestHashidsOne);

} // namespace tst_hashidsone

#include "tst_hashidsone.moc"
