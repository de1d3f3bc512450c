#include "token/bearersigner.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <stdexcept>

namespace lantern {

namespace {

constexpr int BlockSize = 64;  // SHA-256's

struct MdContextFree {
    void operator()(EVP_MD_CTX *context) const { EVP_MD_CTX_free(context); }
};
using MdContext = std::unique_ptr<EVP_MD_CTX, MdContextFree>;

MdContext newContext()
{
    MdContext context(EVP_MD_CTX_new());
    if (!context)
        throw std::bad_alloc();
    return context;
}

void check(int result, const char *what)
{
    if (result != 1)
        throw std::runtime_error(std::string("HMAC-SHA256: ") + what + " failed");
}

/** A SHA-256 context that has hashed one 64-byte pad: the key xor `fill`. */
MdContext padded(const std::array<unsigned char, BlockSize> &key, unsigned char fill)
{
    std::array<unsigned char, BlockSize> pad;
    for (int i = 0; i < BlockSize; ++i)
        pad[i] = key[i] ^ fill;
    MdContext context = newContext();
    check(EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr), "init");
    check(EVP_DigestUpdate(context.get(), pad.data(), pad.size()), "pad");
    OPENSSL_cleanse(pad.data(), pad.size());
    return context;
}

/** This thread's scratch context, reused for every signature it computes. */
EVP_MD_CTX *scratch()
{
    thread_local const MdContext context = newContext();
    return context.get();
}

void base64Url(const BearerSigner::Digest &digest, char *out)
{
    static constexpr char Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    int at = 0;
    int i = 0;
    for (; i + 3 <= BearerSigner::DigestSize; i += 3) {
        const unsigned value = unsigned(digest[i]) << 16 | unsigned(digest[i + 1]) << 8 | digest[i + 2];
        out[at++] = Alphabet[(value >> 18) & 63];
        out[at++] = Alphabet[(value >> 12) & 63];
        out[at++] = Alphabet[(value >> 6) & 63];
        out[at++] = Alphabet[value & 63];
    }
    // 32 = 30 + 2: two bytes left, three characters, no padding.
    const unsigned value = unsigned(digest[i]) << 16 | unsigned(digest[i + 1]) << 8;
    out[at++] = Alphabet[(value >> 18) & 63];
    out[at++] = Alphabet[(value >> 12) & 63];
    out[at++] = Alphabet[(value >> 6) & 63];
}

} // namespace

struct BearerSigner::Pads {
    EVP_MD_CTX *inner = nullptr;
    EVP_MD_CTX *outer = nullptr;
    ~Pads()
    {
        EVP_MD_CTX_free(inner);
        EVP_MD_CTX_free(outer);
    }
};

BearerSigner::BearerSigner(const QByteArray &key) : m_pads(std::make_unique<Pads>())
{
    std::array<unsigned char, BlockSize> block{};
    if (key.size() > BlockSize) {
        unsigned int size = 0;
        check(EVP_Digest(key.constData(), size_t(key.size()), block.data(), &size, EVP_sha256(), nullptr), "key digest");
    } else {
        std::copy(key.cbegin(), key.cend(), block.begin());
    }
    m_pads->inner = padded(block, 0x36).release();
    m_pads->outer = padded(block, 0x5c).release();
    OPENSSL_cleanse(block.data(), block.size());
}

BearerSigner::~BearerSigner() = default;

BearerSigner::Digest BearerSigner::sign(QByteArrayView message) const
{
    EVP_MD_CTX *context = scratch();
    Digest inner;
    Digest result;
    check(EVP_MD_CTX_copy_ex(context, m_pads->inner), "copy");
    check(EVP_DigestUpdate(context, message.data(), size_t(message.size())), "update");
    check(EVP_DigestFinal_ex(context, inner.data(), nullptr), "final");
    check(EVP_MD_CTX_copy_ex(context, m_pads->outer), "copy");
    check(EVP_DigestUpdate(context, inner.data(), inner.size()), "update");
    check(EVP_DigestFinal_ex(context, result.data(), nullptr), "final");
    return result;
}

QByteArray BearerSigner::encodedSignature(QByteArrayView message) const
{
    QByteArray text(EncodedSize, Qt::Uninitialized);
    base64Url(sign(message), text.data());
    return text;
}

bool BearerSigner::verify(QByteArrayView message, QByteArrayView encoded) const
{
    if (encoded.size() != EncodedSize)
        return false;
    char expected[EncodedSize];
    base64Url(sign(message), expected);
    return CRYPTO_memcmp(expected, encoded.data(), EncodedSize) == 0;
}

} // namespace lantern
