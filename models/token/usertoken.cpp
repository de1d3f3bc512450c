#include "token/usertoken.h"

#include "core/errors.h"

#include <QMessageAuthenticationCode>

namespace lantern {

UserTokens::UserTokens(const QString &salt, QByteArray secret) : m_hashids(salt, MinTokenLength), m_secret(std::move(secret)) {}

QString UserTokens::tokenFor(qint64 uid) const
{
    return m_hashids.encode(uid);
}

std::optional<qint64> UserTokens::uidOf(const QString &token) const
{
    const auto numbers = m_hashids.decode(token);
    if (!numbers || numbers->size() != 1 || numbers->front() <= 0)
        return std::nullopt;
    return numbers->front();
}

QByteArray UserTokens::signature(const QByteArray &payload) const
{
    return QMessageAuthenticationCode::hash(payload, m_secret, QCryptographicHash::Sha256)
            .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

QString UserTokens::mintBearer(qint64 uid, qint64 expiresAtSeconds) const
{
    if (m_secret.isEmpty())
        throw InvalidInputError(tr("no token secret configured: set LANTERN_TOKEN_SECRET or --token-secret"));
    const QByteArray payload = tokenFor(uid).toLatin1() + '.' + QByteArray::number(expiresAtSeconds);
    return QString::fromLatin1(payload + '.' + signature(payload));
}

std::optional<qint64> UserTokens::verifyBearer(const QString &bearer, qint64 nowSeconds) const
{
    if (m_secret.isEmpty())
        return std::nullopt;
    const QByteArray text = bearer.toLatin1();
    const qsizetype lastDot = text.lastIndexOf('.');
    if (lastDot <= 0)
        return std::nullopt;
    const QByteArray payload = text.left(lastDot);
    const QByteArray expected = signature(payload);
    const QByteArray given = text.mid(lastDot + 1);
    // Constant-time comparison: do not leak how many leading bytes matched.
    if (given.size() != expected.size())
        return std::nullopt;
    unsigned char diff = 0;
    for (qsizetype i = 0; i < given.size(); ++i)
        diff |= static_cast<unsigned char>(given[i] ^ expected[i]);
    if (diff != 0)
        return std::nullopt;
    const QList<QByteArray> parts = payload.split('.');
    bool ok = false;
    const qint64 expiresAt = parts.size() == 2 ? parts[1].toLongLong(&ok) : 0;
    if (!ok || expiresAt <= nowSeconds)
        return std::nullopt;
    return uidOf(QString::fromLatin1(parts[0]));
}

} // namespace lantern
