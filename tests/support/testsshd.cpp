#include "testsshd.h"

#include "privateserver.h"

#include "core/childprocess.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <pwd.h>
#include <stdexcept>
#include <unistd.h>

namespace lantern::test {

namespace {
constexpr int TimeoutMs = 30000;
} // namespace

TestSshd::TestSshd(Login login) : m_dir(std::make_unique<QTemporaryDir>()), m_process(std::make_unique<QProcess>())
{
    if (login == Login::KeysAndPassword && ::geteuid() != 0)
        throw std::runtime_error("TestSshd: the password login test needs root: sshd checks passwords against /etc/shadow, which the test "
                                 "replaces for sshd alone with a copy holding a test account (unshare --mount); run the tests as root, as "
                                 "CI does, rather than add a system account");
    if (!m_dir->isValid())
        throw std::runtime_error("TestSshd: no temp dir");
    QFile::setPermissions(m_dir->path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    endWithStarter(*m_process);  // a test that aborts leaves no sshd behind
    run(QStringLiteral("ssh-keygen"), {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), QString(),
                                       QStringLiteral("-f"), dir() + QStringLiteral("/host_key")});
    const QString accepted = makeKey(QStringLiteral("client_key"));
    const QString withPassphrase = makeKey(QStringLiteral("passphrase_key"), passphrase());
    makeKey(QStringLiteral("stranger_key"));
    makeKey(QStringLiteral("other_host_key"));
    QFile authorized(dir() + QStringLiteral("/authorized_keys"));
    if (!authorized.open(QIODevice::WriteOnly))
        throw std::runtime_error("TestSshd: cannot write authorized_keys");
    for (const QString &key : {accepted, withPassphrase}) {
        QFile pub(key + QStringLiteral(".pub"));
        pub.open(QIODevice::ReadOnly);
        authorized.write(pub.readAll());
    }
    authorized.close();
    QFile::setPermissions(authorized.fileName(), QFile::ReadOwner | QFile::WriteOwner);

    // sshd as root insists on its privilege separation directory.
    if (::geteuid() == 0)
        QDir().mkpath(QStringLiteral("/run/sshd"));
    m_port = pickPrivatePort();
    QFile config(dir() + QStringLiteral("/sshd_config"));
    if (!config.open(QIODevice::WriteOnly))
        throw std::runtime_error("TestSshd: cannot write sshd_config");
    const bool passwords = login == Login::KeysAndPassword;
    config.write(QStringLiteral("ListenAddress 127.0.0.1\nPort %1\nHostKey %2/host_key\nAuthorizedKeysFile %2/authorized_keys\n"
                                "PidFile %2/sshd.pid\nStrictModes no\nUsePAM no\nPasswordAuthentication %4\n"
                                "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin prohibit-password\n"
                                "AllowTcpForwarding yes\nAllowUsers %3\nLogLevel INFO\n")
                         .arg(m_port)
                         .arg(dir(), passwords ? user() + QLatin1Char(' ') + passwordUser() : user(),
                              passwords ? QStringLiteral("yes") : QStringLiteral("no"))
                         .toUtf8());
    config.close();
    if (passwords)
        writePasswordAccount();
    const QStringList command = sshdCommand(login, config.fileName());
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->start(command.constFirst(), command.mid(1));
    if (!m_process->waitForStarted(TimeoutMs))
        throw std::runtime_error("TestSshd: sshd did not start: " + m_process->errorString().toStdString());
    const QDeadlineTimer deadline(TimeoutMs);
    for (;;) {
        QTcpSocket probe;
        probe.connectToHost(QStringLiteral("127.0.0.1"), quint16(m_port));
        if (probe.waitForConnected(1000))
            break;
        if (m_process->state() != QProcess::Running || deadline.hasExpired())
            throw std::runtime_error("TestSshd: sshd does not accept connections: " + m_process->readAll().toStdString());
        m_process->waitForReadyRead(100);  // sshd's own output, or the next try
    }
}

TestSshd::~TestSshd()
{
    if (m_process->state() == QProcess::Running) {
        m_process->terminate();
        if (!m_process->waitForFinished(TimeoutMs))
            m_process->kill();
        m_process->waitForFinished(TimeoutMs);
    }
}

QString TestSshd::dir() const
{
    return m_dir->path();
}

QString TestSshd::user() const
{
    const passwd *entry = ::getpwuid(::geteuid());
    return entry ? QString::fromLocal8Bit(entry->pw_name) : QString();
}

QString TestSshd::keyFile() const
{
    return dir() + QStringLiteral("/client_key");
}

QString TestSshd::passphraseKeyFile() const
{
    return dir() + QStringLiteral("/passphrase_key");
}

QString TestSshd::strangerKeyFile() const
{
    return dir() + QStringLiteral("/stranger_key");
}

QString TestSshd::changedKnownHostsLine() const
{
    QFile pub(dir() + QStringLiteral("/other_host_key.pub"));
    pub.open(QIODevice::ReadOnly);
    const QList<QByteArray> fields = pub.readAll().trimmed().split(' ');
    return QStringLiteral("[127.0.0.1]:%1 %2 %3\n").arg(m_port).arg(QString::fromLatin1(fields.value(0)), QString::fromLatin1(fields.value(1)));
}

QString TestSshd::makeKey(const QString &name, const QString &passphrase) const
{
    const QString file = dir() + QLatin1Char('/') + name;
    run(QStringLiteral("ssh-keygen"), {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"), QStringLiteral("-N"), passphrase,
                                       QStringLiteral("-f"), file});
    return file;
}

QStringList TestSshd::sshdCommand(Login login, const QString &config) const
{
    const QStringList sshd{QStringLiteral("/usr/sbin/sshd"), QStringLiteral("-D"), QStringLiteral("-e"), QStringLiteral("-f"), config};
    if (login == Login::Keys)
        return sshd;
    // sh, unshare and sh exec what follows: the process QProcess holds is sshd itself. The mounts
    // are sshd's alone and go with it. unshare makes every mount of the new namespace private
    // first, which it cannot do where / is no mount point (a chroot, as ../shared/tools/
    // fresh-debian makes): there the mounts are left as they are, and only when none of them
    // propagates (no "shared:" in mountinfo), so the binds can never reach the machine's own.
    static const QString script = QStringLiteral(R"(p=private
if ! mountpoint -q /; then
  if grep -q ' shared:' /proc/self/mountinfo; then
    echo "TestSshd: / is no mount point and mounts here propagate: no bind over /etc/shadow" >&2
    exit 1
  fi
  p=unchanged
fi
exec unshare --mount --propagation "$p" /bin/sh -c 'mount --bind "$1" /etc/passwd && mount --bind "$2" /etc/shadow && shift 2 && exec "$@"' sh "$@")");
    return QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script, QStringLiteral("sh"), dir() + QStringLiteral("/passwd"),
                       dir() + QStringLiteral("/shadow")}
           + sshd;
}

void TestSshd::writePasswordAccount() const
{
    // SHA-512 crypt, as passwd(1) writes it; sshd (UsePAM no) compares with crypt(3).
    const QByteArray hash = run(QStringLiteral("openssl"), {QStringLiteral("passwd"), QStringLiteral("-6"), password()}).trimmed();
    const struct {
        const char *system;
        QByteArray line;
    } files[] = {{"/etc/passwd", passwordUser().toUtf8() + ":x:64999:65534:Lantern SSH test:/:/bin/sh\n"},
                 {"/etc/shadow", passwordUser().toUtf8() + ':' + hash + ":::::::\n"}};
    for (const auto &file : files) {
        QFile system(QString::fromLatin1(file.system));
        if (!system.open(QIODevice::ReadOnly))
            throw std::runtime_error("TestSshd: cannot read " + std::string(file.system) + ": " + system.errorString().toStdString());
        QByteArray text = system.readAll();
        if (!text.isEmpty() && !text.endsWith('\n'))
            text += '\n';
        QFile copy(dir() + QString::fromLatin1(file.system).mid(4));  // <dir>/passwd, <dir>/shadow
        if (!copy.open(QIODevice::WriteOnly) || copy.write(text + file.line) < 0)
            throw std::runtime_error("TestSshd: cannot write " + copy.fileName().toStdString());
        copy.close();
        QFile::setPermissions(copy.fileName(), system.permissions());
    }
}

QByteArray TestSshd::run(const QString &program, const QStringList &arguments) const
{
    QProcess process;
    process.start(program, arguments);
    if (!process.waitForFinished(TimeoutMs) || process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0)
        throw std::runtime_error(QStringLiteral("TestSshd: %1 failed: %2")
                                         .arg(program, QString::fromLocal8Bit(process.readAllStandardOutput() + process.readAllStandardError()))
                                         .toStdString());
    return process.readAllStandardOutput();
}

} // namespace lantern::test
