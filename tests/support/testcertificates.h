#pragma once

#include "privateredis.h"

#include <QString>
#include <QStringList>

#include <memory>

class QTemporaryDir;

namespace lantern::test {

/** A certificate and its key, as PEM files. */
struct CertificateFiles {
    QString cert;
    QString key;
};

/** Certificates a test makes for itself with the `openssl` command (req, x509) in a temp dir: a
    CA, and leaf certificates it signs with the names, validity and purpose asked for. EC P-256
    keys (fast to make). Every failure throws std::runtime_error with openssl's output. */
class TestCertificates final {
public:
    TestCertificates();
    ~TestCertificates();
    Q_DISABLE_COPY_MOVE(TestCertificates)

    /** The CA that signs everything issue() makes. */
    QString caFile() const;
    /** A CA of its own (self-signed, CN `name`) that signed nothing of ours: "the wrong CA". */
    QString otherCaFile(const QString &name = QStringLiteral("Some Other CA"));
    /** A leaf certificate for `names` ("DNS:localhost", "IP:127.0.0.1", ...), valid for `days`
        from now (negative: expired that many days ago), signed by caFile(). */
    CertificateFiles issue(const QString &fileName, const QString &commonName, const QStringList &names, int days = 2);
    QString dir() const;

private:
    void run(const QStringList &arguments) const;

    std::unique_ptr<QTemporaryDir> m_dir;
};

/** A redis-server of the test's own that also listens for TLS: its plaintext port (port(),
    which PrivateRedis uses to watch it) and a TLS port with `server`'s certificate.
    `clientsNeedCertificates`: mutual TLS (tls-auth-clients yes, against caFile). With
    --cluster-enabled among `extraOptions`, the cluster bus gets a private port of its own too
    (cluster-port: port + 10000 could fall in the kernel's ephemeral range). */
class TlsRedis final {
public:
    TlsRedis(const TestCertificates &certificates, const CertificateFiles &server, bool clientsNeedCertificates = false,
             const QStringList &extraOptions = {});
    PrivateRedis &server() { return *m_server; }
    int tlsPort() const { return m_tlsPort; }
    int plainPort() const { return m_server->port(); }
    /** The cluster bus port (0 unless --cluster-enabled): what CLUSTER MEET names after the port. */
    int busPort() const { return m_busPort; }
    /** rediss://127.0.0.1:TLSPORT */
    QString urlText(const QString &host = QStringLiteral("127.0.0.1")) const;

private:
    int m_tlsPort = 0;
    int m_busPort = 0;
    std::unique_ptr<PrivateRedis> m_server;
};

} // namespace lantern::test
