#include "testcertificates.h"

#include "privateserver.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <stdexcept>

namespace lantern::test {

namespace {

const QStringList EcKey{QStringLiteral("-newkey"), QStringLiteral("ec"), QStringLiteral("-pkeyopt"),
                        QStringLiteral("ec_paramgen_curve:prime256v1"), QStringLiteral("-nodes")};

} // namespace

TestCertificates::TestCertificates() : m_dir(std::make_unique<QTemporaryDir>(QDir::tempPath() + QStringLiteral("/lantern-certs-XXXXXX")))
{
    if (!m_dir->isValid())
        throw std::runtime_error("cannot create a temp dir for certificates");
    run(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + EcKey
        + QStringList{QStringLiteral("-keyout"), dir() + QStringLiteral("/ca.key"), QStringLiteral("-out"), caFile(), QStringLiteral("-days"),
                      QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=Lantern Test CA")});
}

TestCertificates::~TestCertificates() = default;

QString TestCertificates::dir() const
{
    return m_dir->path();
}

QString TestCertificates::caFile() const
{
    return dir() + QStringLiteral("/ca.crt");
}

QString TestCertificates::otherCaFile(const QString &name)
{
    const QString file = dir() + QStringLiteral("/other-ca.crt");
    if (!QFile::exists(file))
        run(QStringList{QStringLiteral("req"), QStringLiteral("-x509")} + EcKey
            + QStringList{QStringLiteral("-keyout"), dir() + QStringLiteral("/other-ca.key"), QStringLiteral("-out"), file,
                          QStringLiteral("-days"), QStringLiteral("2"), QStringLiteral("-subj"), QStringLiteral("/CN=") + name});
    return file;
}

CertificateFiles TestCertificates::issue(const QString &fileName, const QString &commonName, const QStringList &names, int days)
{
    const QString base = dir() + QLatin1Char('/') + fileName;
    const CertificateFiles files{base + QStringLiteral(".crt"), base + QStringLiteral(".key")};
    run(QStringList{QStringLiteral("req")} + EcKey
        + QStringList{QStringLiteral("-keyout"), files.key, QStringLiteral("-out"), base + QStringLiteral(".csr"), QStringLiteral("-subj"),
                      QStringLiteral("/CN=") + commonName});
    QFile extensions(base + QStringLiteral(".ext"));
    if (!extensions.open(QIODevice::WriteOnly))
        throw std::runtime_error("cannot write " + extensions.fileName().toStdString());
    QByteArray text = "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n";
    if (!names.isEmpty())
        text += "subjectAltName=" + names.join(QLatin1Char(',')).toUtf8() + '\n';
    extensions.write(text);
    extensions.close();
    run({QStringLiteral("x509"), QStringLiteral("-req"), QStringLiteral("-in"), base + QStringLiteral(".csr"), QStringLiteral("-CA"), caFile(),
         QStringLiteral("-CAkey"), dir() + QStringLiteral("/ca.key"), QStringLiteral("-CAcreateserial"), QStringLiteral("-out"), files.cert,
         QStringLiteral("-days"), QString::number(days), QStringLiteral("-extfile"), extensions.fileName()});
    return files;
}

void TestCertificates::run(const QStringList &arguments) const
{
    QProcess openssl;
    openssl.setProcessChannelMode(QProcess::MergedChannels);
    openssl.start(QStringLiteral("openssl"), arguments);
    if (!openssl.waitForFinished(30000) || openssl.exitStatus() != QProcess::NormalExit || openssl.exitCode() != 0)
        throw std::runtime_error("openssl " + arguments.join(QLatin1Char(' ')).toStdString() + " failed: " + openssl.errorString().toStdString()
                                 + "\n" + openssl.readAll().toStdString());
}

TlsRedis::TlsRedis(const TestCertificates &certificates, const CertificateFiles &server, bool clientsNeedCertificates,
                   const QStringList &extraOptions)
    : m_tlsPort(pickPrivatePort(55535))
{
    QStringList options = extraOptions;
    if (options.contains(QStringLiteral("--cluster-enabled"))) {
        m_busPort = pickPrivatePort();
        options << QStringLiteral("--cluster-port") << QString::number(m_busPort);
    }
    m_server = std::make_unique<PrivateRedis>(
            QStringList{QStringLiteral("--tls-port"), QString::number(m_tlsPort), QStringLiteral("--tls-cert-file"), server.cert,
                        QStringLiteral("--tls-key-file"), server.key, QStringLiteral("--tls-ca-cert-file"), certificates.caFile(),
                        QStringLiteral("--tls-auth-clients"), clientsNeedCertificates ? QStringLiteral("yes") : QStringLiteral("no")}
            + options);
}

QString TlsRedis::urlText(const QString &host) const
{
    return QStringLiteral("rediss://%1:%2").arg(host).arg(m_tlsPort);
}

} // namespace lantern::test
