// The API's bearers (models/token): BearerSigner is RFC 2104's HMAC-SHA256 for every key length
// (checked against Qt's own HMAC, an independent implementation, on keys of 0 to 200 bytes and
// messages of 0 to 300), its base64url has no padding, and UserTokens refuses a bearer with a
// tampered signature, payload or expiry, an expired one, a malformed one and one signed with
// another secret.
#include "token/bearersigner.h"
#include "token/usertoken.h"
#include "testsuite.h"

#include <QMessageAuthenticationCode>
#include <QRandomGenerator>
#include <QTest>

#include <thread>

namespace tst_bearers {

using namespace lantern;

namespace {

QByteArray randomBytes(QRandomGenerator &random, int size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    for (char &byte : bytes)
        byte = char(random.bounded(256));
    return bytes;
}

QByteArray reference(const QByteArray &key, const QByteArray &message)
{
    return QMessageAuthenticationCode::hash(message, key, QCryptographicHash::Sha256);
}

} // namespace

class TestBearers final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void signerIsHmacSha256ForEveryKeyLength();
    void encodingIsBase64UrlWithoutPadding();
    void verifyRefusesEveryOtherSignature();
    void threadsSignWithTheirOwnContexts();
    void bearersRoundTripAndTamperingIsRefused();
};

void TestBearers::signerIsHmacSha256ForEveryKeyLength()
{
    QRandomGenerator random(2026);
    for (const int keySize : {0, 1, 31, 32, 63, 64, 65, 128, 200}) {
        const QByteArray key = randomBytes(random, keySize);
        const BearerSigner signer(key);
        for (const int messageSize : {0, 1, 55, 56, 63, 64, 65, 119, 120, 300}) {
            const QByteArray message = randomBytes(random, messageSize);
            const BearerSigner::Digest digest = signer.sign(message);
            QCOMPARE(QByteArray(reinterpret_cast<const char *>(digest.data()), BearerSigner::DigestSize), reference(key, message));
        }
    }
    // RFC 4231, test case 2.
    const BearerSigner jefe(QByteArrayLiteral("Jefe"));
    const BearerSigner::Digest digest = jefe.sign(QByteArrayLiteral("what do ya want for nothing?"));
    QCOMPARE(QByteArray(reinterpret_cast<const char *>(digest.data()), BearerSigner::DigestSize).toHex(),
             QByteArrayLiteral("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

void TestBearers::encodingIsBase64UrlWithoutPadding()
{
    QRandomGenerator random(7);
    const QByteArray key = randomBytes(random, 40);
    const BearerSigner signer(key);
    for (int i = 0; i < 200; ++i) {
        const QByteArray message = randomBytes(random, 1 + i);
        const QByteArray encoded = signer.encodedSignature(message);
        QCOMPARE(encoded.size(), BearerSigner::EncodedSize);
        QCOMPARE(encoded, reference(key, message).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
    }
}

void TestBearers::verifyRefusesEveryOtherSignature()
{
    const BearerSigner signer(QByteArrayLiteral("a secret of the API"));
    const QByteArray message = QByteArrayLiteral("k5Xd9qPz.1795000000");
    const QByteArray good = signer.encodedSignature(message);
    QVERIFY(signer.verify(message, good));
    QVERIFY(!signer.verify(message, good.chopped(1)));
    QVERIFY(!signer.verify(message, QByteArray(good + 'A')));
    QVERIFY(!signer.verify(message, QByteArray()));
    QVERIFY(!signer.verify(QByteArray(message + '0'), good));
    for (int at = 0; at < good.size(); ++at) {
        QByteArray bad = good;
        bad[at] = bad[at] == 'A' ? 'B' : 'A';
        QVERIFY2(!signer.verify(message, bad), qPrintable(QString::number(at)));
    }
    QVERIFY(!BearerSigner(QByteArrayLiteral("another secret")).verify(message, good));
}

void TestBearers::threadsSignWithTheirOwnContexts()
{
    const QByteArray key = QByteArrayLiteral("shared by the serve threads");
    const BearerSigner signer(key);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 2000; ++i) {
                const QByteArray message = QByteArray::number(t) + '.' + QByteArray::number(i);
                const BearerSigner::Digest digest = signer.sign(message);
                if (QByteArray(reinterpret_cast<const char *>(digest.data()), BearerSigner::DigestSize) != reference(key, message))
                    ++wrong;
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    QCOMPARE(wrong.load(), 0);
}

void TestBearers::bearersRoundTripAndTamperingIsRefused()
{
    const UserTokens tokens(QStringLiteral("lantern"), QByteArrayLiteral("token secret"));
    const qint64 now = 1'795'000'000;
    const QString bearer = tokens.mintBearer(123456, now + 60);
    QCOMPARE(tokens.verifyBearer(bearer, now), std::optional<qint64>(123456));
    QCOMPARE(tokens.verifyBearer(QByteArrayView(bearer.toLatin1()), now), std::optional<qint64>(123456));
    QCOMPARE(tokens.verifyBearer(bearer, now + 60), std::nullopt);  // expired at its second
    const QList<QByteArray> parts = bearer.toLatin1().split('.');
    QCOMPARE(parts.size(), 3);
    // Another uid's token or a later expiry under the same signature.
    const QByteArray otherToken = tokens.tokenFor(654321).toLatin1();
    QCOMPARE(tokens.verifyBearer(QByteArrayView(QByteArray(otherToken + '.' + parts[1] + '.' + parts[2])), now), std::nullopt);
    QCOMPARE(tokens.verifyBearer(QByteArrayView(QByteArray(parts[0] + '.' + QByteArray::number(now + 999999) + '.' + parts[2])), now), std::nullopt);
    // Malformed: no dots, an empty signature, extra parts, a secret-less verifier.
    for (const QByteArray &bad : {QByteArrayLiteral("nodots"), QByteArray(parts[0] + '.' + parts[1] + '.'), QByteArray(parts[0] + '.' + parts[1]),
                                  QByteArray('.' + parts[1] + '.' + parts[2]), QByteArray(parts[0] + ".x." + parts[1] + '.' + parts[2])})
        QCOMPARE(tokens.verifyBearer(QByteArrayView(bad), now), std::nullopt);
    QCOMPARE(UserTokens(QStringLiteral("lantern")).verifyBearer(bearer, now), std::nullopt);
    QCOMPARE(UserTokens(QStringLiteral("lantern"), QByteArrayLiteral("other secret")).verifyBearer(bearer, now), std::nullopt);
}

LANTERN_TEST_SUITE(TestBearers);

} // namespace tst_bearers

#include "tst_bearers.moc"
