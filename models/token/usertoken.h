#pragma once

#include "token/bearersigner.h"
#include "token/hashids.h"

#include <QByteArray>
#include <QCoreApplication>
#include <QString>

#include <memory>
#include <optional>

namespace lantern {

/** Public user tokens: a uid as an opaque hashids string (salted from config), so the console and
    the API accept either a uid or a token; and signed bearers for the API:
    "<token>.<expires_at>.<base64url HMAC-SHA256(secret, token.expires_at)>". */
class UserTokens final {
    Q_DECLARE_TR_FUNCTIONS(lantern::UserTokens)

public:
    static constexpr int MinTokenLength = 8;

    explicit UserTokens(const QString &salt, QByteArray secret = {});

    QString tokenFor(qint64 uid) const;
    /** std::nullopt unless the token decodes to exactly one positive uid. */
    std::optional<qint64> uidOf(const QString &token) const;

    /** Throws InvalidInputError when no secret is configured. */
    QString mintBearer(qint64 uid, qint64 expiresAtSeconds) const;
    /** The uid of a bearer whose signature matches and which has not expired at nowSeconds. */
    std::optional<qint64> verifyBearer(const QString &bearer, qint64 nowSeconds) const;
    /** The same on the bytes of a request's header, as `serve` reads them. */
    std::optional<qint64> verifyBearer(QByteArrayView bearer, qint64 nowSeconds) const;

private:
    Hashids m_hashids;
    std::shared_ptr<const BearerSigner> m_signer;  // none without a secret
};

} // namespace lantern
