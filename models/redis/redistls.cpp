#include "redis/redistls.h"

#include "core/errors.h"
#include "redis/rediserror.h"
#include "redis/redisstream.h"
#include "redis/tlspeer.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <QFile>

#include <cerrno>
#include <map>
#include <mutex>

#include <arpa/inet.h>

namespace lantern {

namespace {

QString openSslErrors()
{
    QStringList texts;
    while (const unsigned long error = ERR_get_error()) {
        char buffer[256];
        ERR_error_string_n(error, buffer, sizeof buffer);
        texts << QString::fromLatin1(buffer);
    }
    return texts.join(QStringLiteral("; "));
}

[[noreturn]] void unusableFile(const QString &what, const QString &file, const QString &why)
{
    throw InvalidInputError(RedisTlsOptions::tr("cannot use %1 %2: %3").arg(what, file, why));
}

void requireReadable(const QString &what, const QString &file)
{
    QFile probe(file);
    if (!probe.open(QIODevice::ReadOnly))
        unusableFile(what, file, probe.errorString());
}

/** One SSL_CTX per set of files, shared by every connection of the process (OpenSSL allows
    SSL_new from many threads on one context): the files are read once. */
std::shared_ptr<SSL_CTX> contextFor(const RedisTlsOptions &options)
{
    static std::mutex mutex;
    static std::map<QString, std::shared_ptr<SSL_CTX>> contexts;
    const QString key = options.caFile + QLatin1Char('\n') + options.certFile + QLatin1Char('\n') + options.keyFile;
    std::lock_guard lock(mutex);
    if (const auto found = contexts.find(key); found != contexts.end())
        return found->second;

    ERR_clear_error();
    SslContextPtr context(SSL_CTX_new(TLS_client_method()));
    if (!context)
        throw LanternError(RedisTlsOptions::tr("OpenSSL cannot make a TLS context: %1").arg(openSslErrors()));
    SSL_CTX_set_min_proto_version(context.get(), TLS1_2_VERSION);
    // Read whole records (and what follows) in one read(), not the 5-byte header first and the
    // body in a second: one system call per reply, as on plain TCP.
    SSL_CTX_set_read_ahead(context.get(), 1);
    // The handshake never stops on the certificate: it is checked right after it, by us, before
    // a byte of RESP is sent (TlsStream::checkPeer), so the error can say what is wrong.
    SSL_CTX_set_verify(context.get(), SSL_VERIFY_NONE, nullptr);
    if (options.caFile.isEmpty()) {
        SSL_CTX_set_default_verify_paths(context.get());
    } else {
        requireReadable(RedisTlsOptions::tr("the Redis CA file"), options.caFile);
        if (SSL_CTX_load_verify_locations(context.get(), QFile::encodeName(options.caFile).constData(), nullptr) != 1)
            unusableFile(RedisTlsOptions::tr("the Redis CA file"), options.caFile, openSslErrors());
    }
    if (!options.certFile.isEmpty()) {
        requireReadable(RedisTlsOptions::tr("the Redis client certificate"), options.certFile);
        if (SSL_CTX_use_certificate_chain_file(context.get(), QFile::encodeName(options.certFile).constData()) != 1)
            unusableFile(RedisTlsOptions::tr("the Redis client certificate"), options.certFile, openSslErrors());
        const QString keyFile = options.keyFile.isEmpty() ? options.certFile : options.keyFile;
        requireReadable(RedisTlsOptions::tr("the Redis client key"), keyFile);
        if (SSL_CTX_use_PrivateKey_file(context.get(), QFile::encodeName(keyFile).constData(), SSL_FILETYPE_PEM) != 1)
            unusableFile(RedisTlsOptions::tr("the Redis client key"), keyFile, openSslErrors());
        if (SSL_CTX_check_private_key(context.get()) != 1)
            unusableFile(RedisTlsOptions::tr("the Redis client key"), keyFile,
                         RedisTlsOptions::tr("it is not the key of the certificate %1").arg(options.certFile));
    }
    std::shared_ptr<SSL_CTX> shared(context.release(), SslContextDeleter());
    contexts.emplace(key, shared);
    return shared;
}

bool isIpLiteral(const QByteArray &name)
{
    unsigned char address[sizeof(in6_addr)];
    return ::inet_pton(AF_INET, name.constData(), address) == 1 || ::inet_pton(AF_INET6, name.constData(), address) == 1;
}

/** TLS over a connected socket, driven without blocking by both clients. */
class TlsStream final : public RedisStream {
    Q_DECLARE_TR_FUNCTIONS(lantern::RedisClient)

public:
    TlsStream(UniqueFd fd, const RedisEndpoint &endpoint, const RedisTlsOptions &options)
        : RedisStream(std::move(fd), endpoint), m_options(options), m_context(contextFor(options))
    {
        m_expectedName = (options.serverName.isEmpty() ? endpoint.host : options.serverName).toUtf8();
        m_ssl.reset(SSL_new(m_context.get()));
        if (!m_ssl || SSL_set_fd(m_ssl.get(), this->fd()) != 1)
            fail(tr("cannot start TLS: %1").arg(openSslErrors()));
        SSL_set_connect_state(m_ssl.get());
        SSL_set_mode(m_ssl.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
        if (!isIpLiteral(m_expectedName))  // SNI carries host names only (RFC 6066)
            SSL_set_tlsext_host_name(m_ssl.get(), m_expectedName.constData());
    }

    bool establish() override
    {
        if (m_established)
            return true;
        ERR_clear_error();
        errno = 0;
        const int result = SSL_connect(m_ssl.get());
        if (result == 1) {
            checkPeer();
            m_established = true;
            return true;
        }
        if (waits(SSL_get_error(m_ssl.get(), result)))
            return false;
        failSsl(SSL_get_error(m_ssl.get(), result), tr("failed during the TLS handshake"));
    }

    size_t readSome(char *buffer, size_t size) override
    {
        return transfer([&] { return SSL_read(m_ssl.get(), buffer, int(std::min<size_t>(size, INT_MAX))); },
                        QT_TR_NOOP("failed while reading a reply"));
    }

    size_t writeSome(const char *data, size_t size) override
    {
        return transfer([&] { return SSL_write(m_ssl.get(), data, int(std::min<size_t>(size, INT_MAX))); }, QT_TR_NOOP("failed while sending"));
    }

    bool hasBuffered() const override { return SSL_has_pending(m_ssl.get()) == 1; }  // read-ahead records too

    QString summary() const override
    {
        const X509Ptr certificate(SSL_get1_peer_certificate(m_ssl.get()));
        return TlsPeer::summary(QString::fromLatin1(SSL_get_version(m_ssl.get())), certificate.get(), m_options.verify);
    }

private:
    /** One SSL_read or SSL_write: the bytes moved, 0 when it waits for the socket. */
    template<typename Call>
    size_t transfer(const Call &call, const char *during)
    {
        ERR_clear_error();
        errno = 0;
        const int result = call();
        if (result > 0) {
            m_transferred = true;
            return size_t(result);
        }
        const int error = SSL_get_error(m_ssl.get(), result);
        if (waits(error))
            return 0;
        failSsl(error, tr(during));
    }

    bool waits(int sslError)
    {
        if (sslError == SSL_ERROR_WANT_READ || sslError == SSL_ERROR_WANT_WRITE) {
            m_waitsForWrite = sslError == SSL_ERROR_WANT_WRITE;
            return true;
        }
        return false;
    }

    /** Before any RESP goes out: the chain (ca, full), then the name (full). */
    void checkPeer()
    {
        if (m_options.verify == RedisTlsOptions::Verify::None)
            return;
        const X509Ptr certificate(SSL_get1_peer_certificate(m_ssl.get()));
        if (!certificate)
            failTls(tr("sent no certificate"));
        const long chain = SSL_get_verify_result(m_ssl.get());
        if (chain != X509_V_OK)
            failTls(TlsPeer::explainUntrusted(chain, certificate.get(), m_options));
        if (m_options.verify == RedisTlsOptions::Verify::Ca)
            return;
        const bool ip = isIpLiteral(m_expectedName);
        const int matches = ip ? X509_check_ip_asc(certificate.get(), m_expectedName.constData(), 0)
                               : X509_check_host(certificate.get(), m_expectedName.constData(), size_t(m_expectedName.size()),
                                                 X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, nullptr);
        if (matches != 1)
            failTls(TlsPeer::explainNameMismatch(certificate.get(), QString::fromUtf8(m_expectedName)));
    }

    [[noreturn]] void failTls(const QString &what) const
    {
        throw RedisTlsError(tr("Redis at %1 %2").arg(endpoint().text(), what));
    }

    [[noreturn]] void failSsl(int sslError, const QString &during)
    {
        const int savedErrno = errno;
        if (sslError == SSL_ERROR_SYSCALL && m_established && !m_transferred && !m_readingAlert
            && (savedErrno == ECONNRESET || savedErrno == EPIPE)) {
            // TLS 1.3 ends the client's handshake before the server checks the client's
            // certificate: its alert may wait behind the reset our first write met. Read it.
            m_readingAlert = true;
            ERR_clear_error();
            char byte = 0;
            const int result = SSL_read(m_ssl.get(), &byte, 1);
            const int error = SSL_get_error(m_ssl.get(), result);
            if (result <= 0 && error == SSL_ERROR_SSL)
                failSsl(error, during);
            fail(tr("closed the connection right after the TLS handshake%1")
                         .arg(m_options.certFile.isEmpty() ? tr(" (does it ask for a client certificate? then give --redis-cert and --redis-key)")
                                                           : tr(" (did it refuse the client certificate %1?)").arg(m_options.certFile)));
        }
        const unsigned long error = ERR_peek_last_error();
        const int reason = ERR_GET_LIB(error) == ERR_LIB_SSL ? ERR_GET_REASON(error) : 0;
        const QString details = openSslErrors();
        switch (reason) {
        case SSL_R_WRONG_VERSION_NUMBER:
        case SSL_R_UNKNOWN_PROTOCOL:
        case SSL_R_PACKET_LENGTH_TOO_LONG:
        case SSL_R_HTTP_REQUEST:
            failTls(tr("answered without TLS: this port does not speak TLS; connect with redis://, or to the server's tls-port"));
        case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
        case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
            if (m_options.certFile.isEmpty())
                failTls(tr("asks for a client certificate (mutual TLS): give one with --redis-cert and --redis-key"));
            break;
        case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
        case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
        case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
        case SSL_R_TLSV1_ALERT_DECRYPT_ERROR:
            failTls(tr("refused the client certificate %1: %2").arg(m_options.certFile, details));
        case SSL_R_UNEXPECTED_EOF_WHILE_READING:
            fail(m_established ? tr("closed the connection") : tr("closed the connection during the TLS handshake"));
        default:
            break;
        }
        if (sslError == SSL_ERROR_ZERO_RETURN || (sslError == SSL_ERROR_SYSCALL && savedErrno == 0))
            fail(m_established ? tr("closed the connection") : tr("closed the connection during the TLS handshake"));
        if (sslError == SSL_ERROR_SYSCALL)
            fail(tr("%1: %2").arg(during, errnoText(savedErrno)));
        failTls(tr("%1: %2").arg(during, details.isEmpty() ? tr("TLS error %1").arg(sslError) : details));
    }

    RedisTlsOptions m_options;
    std::shared_ptr<SSL_CTX> m_context;  // outlives m_ssl (declared first)
    SslPtr m_ssl;
    QByteArray m_expectedName;
    bool m_established = false;
    bool m_transferred = false;   // application data has moved both ways or one
    bool m_readingAlert = false;  // failSsl() is reading the alert behind a reset
};

} // namespace

RedisTlsOptions::Verify RedisTlsOptions::parseVerify(const QString &text, const QString &source)
{
    if (text == QLatin1String("full"))
        return Verify::Full;
    if (text == QLatin1String("ca"))
        return Verify::Ca;
    if (text == QLatin1String("none"))
        return Verify::None;
    throw InvalidInputError(tr("invalid %1 '%2': expected full (chain and host name), ca (chain only) or none").arg(source, text));
}

QString RedisTlsOptions::verifyName(Verify verify)
{
    switch (verify) {
    case Verify::Full: return QStringLiteral("full");
    case Verify::Ca: return QStringLiteral("ca");
    case Verify::None: return QStringLiteral("none");
    }
    return {};
}

void RedisTlsOptions::check() const
{
    if (!enabled && (!caFile.isEmpty() || !certFile.isEmpty() || !keyFile.isEmpty() || !serverName.isEmpty()))
        throw InvalidInputError(tr("--redis-ca, --redis-cert, --redis-key and --redis-sni are for TLS: use a rediss:// URL"));
    if (!keyFile.isEmpty() && certFile.isEmpty())
        throw InvalidInputError(tr("--redis-key needs its certificate: give --redis-cert too"));
}

QString RedisTlsOptions::warning(const QString &redacted) const
{
    if (!enabled || verify != Verify::None)
        return {};
    return tr("TLS to %1 checks no certificate (--redis-verify none): anyone on the path can read and change the traffic")
            .arg(redacted);
}

std::unique_ptr<RedisStream> startTls(UniqueFd fd, const RedisEndpoint &endpoint, const RedisTlsOptions &options)
{
    return std::make_unique<TlsStream>(std::move(fd), endpoint, options);
}

} // namespace lantern
