#pragma once

#include <QByteArray>
#include <QByteArrayView>

#include <array>
#include <memory>

namespace lantern {

/** HMAC-SHA256 under one key, for the API's bearers: the key's inner and outer pads are hashed
    once, when the signer is made, so a signature costs the message's own SHA-256 blocks plus one
    (OpenSSL's SHA-256, with the CPU's SHA extensions where it has them) and no allocation.
    Equal to RFC 2104's HMAC for any key (longer than a block: hashed first). Const and
    thread-safe: each thread hashes in a context of its own. */
class BearerSigner final {
public:
    static constexpr int DigestSize = 32;
    using Digest = std::array<unsigned char, DigestSize>;
    /** base64url without padding of a digest: 43 characters. */
    static constexpr int EncodedSize = 43;

    explicit BearerSigner(const QByteArray &key);
    ~BearerSigner();
    BearerSigner(const BearerSigner &) = delete;
    BearerSigner &operator=(const BearerSigner &) = delete;

    Digest sign(QByteArrayView message) const;
    /** The signature as bearers carry it: base64url, no padding. */
    QByteArray encodedSignature(QByteArrayView message) const;
    /** Whether `encoded` is the signature of `message`, compared in constant time (how many
        leading characters matched is not told by the time taken). */
    bool verify(QByteArrayView message, QByteArrayView encoded) const;

private:
    struct Pads;
    std::unique_ptr<Pads> m_pads;
};

} // namespace lantern
