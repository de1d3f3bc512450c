#include "token/usertoken.h"

#include "core/errors.h"

namespace lantern {

UserTokens::UserTokens(const QString &salt, QByteArray secret)
    : m_hashids(salt, MinTokenLength), m_signer(secret.isEmpty() ? nullptr : std::make_shared<const BearerSigner>(secret))
{
}

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

QString UserTokens::mintBearer(qint64 uid, qint64 expiresAtSeconds) const
{
    if (!m_signer)
        throw InvalidInputError(tr("no token secret configured: set LANTERN_TOKEN_SECRET or --token-secret"));
    const QByteArray payload = tokenFor(uid).toLatin1() + '.' + QByteArray::number(expiresAtSeconds);
    return QString::fromLatin1(payload + '.' + m_signer->encodedSignature(payload));
}

std::optional<qint64> UserTokens::verifyBearer(const QString &bearer, qint64 nowSeconds) const
{
    const QByteArray text = bearer.toLatin1();
    return verifyBearer(QByteArrayView(text), nowSeconds);
}

std::optional<qint64> UserTokens::verifyBearer(QByteArrayView bearer, qint64 nowSeconds) const
{
    // "<token>.<expires_at>.<signature>": the signature first (constant time), then the rest.
    if (!m_signer)
        return std::nullopt;
    const qsizetype lastDot = bearer.lastIndexOf('.');
    if (lastDot <= 0)
        return std::nullopt;
    const QByteArrayView payload = bearer.first(lastDot);
    if (!m_signer->verify(payload, bearer.sliced(lastDot + 1)))
        return std::nullopt;
    const qsizetype dot = payload.indexOf('.');
    if (dot <= 0 || dot != payload.lastIndexOf('.'))
        return std::nullopt;
    bool ok = false;
    const qint64 expiresAt = payload.sliced(dot + 1).toLongLong(&ok);
    if (!ok || expiresAt <= nowSeconds)
        return std::nullopt;
    const std::optional<qint64> uid = m_hashids.decodeOne(payload.first(dot));
    return uid && *uid > 0 ? uid : std::nullopt;
}

} // namespace lantern
