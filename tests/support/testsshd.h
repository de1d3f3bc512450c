#pragma once

#include <QString>
#include <QStringList>

#include <memory>

class QProcess;
class QTemporaryDir;

namespace lantern::test {

/** An sshd of a test's own on 127.0.0.1 (openssh-server): its own host key, config and
    authorized_keys in a temp dir, a private port, key authentication only for the user running
    the test, TCP forwarding on. Also makes the client keys the test logs in with (ssh-keygen).
    With Login::KeysAndPassword it also lets passwordUser() in with password(): sshd runs in a
    mount namespace of its own (`unshare --mount`) where copies of /etc/passwd and /etc/shadow
    holding that account are bind-mounted over the real ones, which stay untouched; that takes
    root (CI runs the tests as root), else the constructor throws saying so.
    The constructor returns once sshd accepts connections; failures throw std::runtime_error with
    sshd's output. */
class TestSshd final {
public:
    enum class Login {
        Keys,             // key (and agent) logins for the user running the test
        KeysAndPassword,  // and passwordUser() with password()
    };

    explicit TestSshd(Login login = Login::Keys);
    ~TestSshd();
    Q_DISABLE_COPY_MOVE(TestSshd)

    int port() const { return m_port; }
    QString user() const;
    /** A private key sshd accepts (no passphrase), and one with `passphrase`. */
    QString keyFile() const;
    QString passphraseKeyFile() const;
    static QString passphrase() { return QStringLiteral("tunnel-Passphrase-31"); }
    /** The account of Login::KeysAndPassword, known only inside sshd's mount namespace. */
    static QString passwordUser() { return QStringLiteral("lanternpw"); }
    static QString password() { return QStringLiteral("tunnel-Password-47"); }
    /** A private key sshd does not know. */
    QString strangerKeyFile() const;
    /** A known_hosts line for this server with another host key: "the key changed". */
    QString changedKnownHostsLine() const;
    QString dir() const;

private:
    QString makeKey(const QString &name, const QString &passphrase = {}) const;
    QByteArray run(const QString &program, const QStringList &arguments) const;
    /** The program and arguments that start sshd with `config`: sshd itself, or for passwords
        sshd in a private mount namespace over the copies of passwd and shadow. */
    QStringList sshdCommand(Login login, const QString &config) const;
    void writePasswordAccount() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<QProcess> m_process;
    int m_port = 0;
};

} // namespace lantern::test
