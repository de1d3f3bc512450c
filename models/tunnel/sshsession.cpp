#include "tunnel/sshsession.h"

#include <libssh/libssh.h>

#include <QDir>

namespace lantern {

namespace {

struct KeyFree {
    void operator()(ssh_key key) const { ssh_key_free(key); }
};
using KeyPtr = std::unique_ptr<ssh_key_struct, KeyFree>;

} // namespace

void SshSession::Free::operator()(ssh_session_struct *session) const
{
    if (ssh_is_connected(session))
        ssh_disconnect(session);
    ssh_free(session);
}

SshSession::SshSession(const SshOptions &options) : m_options(options), m_session(ssh_new())
{
    if (!m_session)
        throw SshError(tr("cannot start an SSH session (out of memory)"));
    setOptions();
    if (ssh_connect(m_session.get()) != SSH_OK)
        fail(tr("is unreachable"));
    checkHostKey();
    authenticate();
}

SshSession::~SshSession() = default;

QString SshSession::lastError() const
{
    return QString::fromUtf8(ssh_get_error(m_session.get()));
}

void SshSession::fail(const QString &what) const
{
    throw SshError(tr("SSH server %1 %2: %3").arg(m_options.text(), what, lastError()));
}

void SshSession::setOptions()
{
    ssh_session session = m_session.get();
    const QByteArray host = m_options.host.toUtf8();
    const QByteArray user = m_options.user.toUtf8();
    const unsigned int port = unsigned(m_options.port);
    const long seconds = long(std::max<qint64>(1, (m_options.timeout.count() + 999) / 1000));
    const QString knownHosts = m_options.knownHostsFile.isEmpty() ? QDir::homePath() + QStringLiteral("/.ssh/known_hosts") : m_options.knownHostsFile;
    const QByteArray knownHostsPath = knownHosts.toUtf8();
    const int processConfig = 0;  // the profile says everything; ~/.ssh/config could silently change the host
    if (ssh_options_set(session, SSH_OPTIONS_HOST, host.constData()) != 0 || ssh_options_set(session, SSH_OPTIONS_PORT, &port) != 0
        || (!user.isEmpty() && ssh_options_set(session, SSH_OPTIONS_USER, user.constData()) != 0)
        || ssh_options_set(session, SSH_OPTIONS_TIMEOUT, &seconds) != 0
        || ssh_options_set(session, SSH_OPTIONS_KNOWNHOSTS, knownHostsPath.constData()) != 0
        || ssh_options_set(session, SSH_OPTIONS_PROCESS_CONFIG, &processConfig) != 0)
        fail(tr("cannot be used"));
}

void SshSession::checkHostKey()
{
    ssh_key raw = nullptr;
    if (ssh_get_server_publickey(m_session.get(), &raw) != SSH_OK)
        fail(tr("sent no host key"));
    const KeyPtr key(raw);
    unsigned char *hash = nullptr;
    size_t length = 0;
    if (ssh_get_publickey_hash(key.get(), SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != 0)
        fail(tr("sent a host key that cannot be read"));
    char *text = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length);
    ssh_clean_pubkey_hash(&hash);
    m_fingerprint = QString::fromUtf8(text);
    ssh_string_free_char(text);

    const QString where = m_options.knownHostsFile.isEmpty() ? QStringLiteral("~/.ssh/known_hosts") : m_options.knownHostsFile;
    switch (ssh_session_is_known_server(m_session.get())) {
    case SSH_KNOWN_HOSTS_OK:
        return;
    case SSH_KNOWN_HOSTS_CHANGED:
        throw SshError(tr("SSH server %1 presented the host key %2, not the one %3 holds for it: someone may be impersonating it "
                          "(or it was re-installed). Refused; if its administrator confirms the new key, remove the old line from %3.")
                               .arg(m_options.text(), m_fingerprint, where));
    case SSH_KNOWN_HOSTS_OTHER:
        throw SshError(tr("SSH server %1 presented a host key of another type than the one %2 holds for it (%3): refused, as for a "
                          "changed key.")
                               .arg(m_options.text(), where, m_fingerprint));
    case SSH_KNOWN_HOSTS_NOT_FOUND:
    case SSH_KNOWN_HOSTS_UNKNOWN:
        if (!m_options.acceptedFingerprint.isEmpty() && m_options.acceptedFingerprint == m_fingerprint) {
            if (ssh_session_update_known_hosts(m_session.get()) != SSH_OK)
                fail(tr("was accepted, but its host key could not be written to %1").arg(where));
            return;
        }
        throw SshUnknownHostError(tr("SSH server %1 is not known yet: its host key's fingerprint is %2. Compare it with the one its "
                                     "administrator gives you before you trust it.")
                                          .arg(m_options.text(), m_fingerprint),
                                  m_options.text(), m_fingerprint);
    case SSH_KNOWN_HOSTS_ERROR:
        break;
    }
    fail(tr("could not be checked against %1").arg(where));
}

void SshSession::authenticate()
{
    ssh_session session = m_session.get();
    int result = SSH_AUTH_DENIED;
    switch (m_options.auth) {
    case SshOptions::Auth::Agent:
        if (qEnvironmentVariableIsEmpty("SSH_AUTH_SOCK"))
            throw SshError(tr("SSH server %1: no SSH agent runs for this session (SSH_AUTH_SOCK is not set); start ssh-agent and "
                              "ssh-add your key, or choose the key file")
                                   .arg(m_options.text()));
        result = ssh_userauth_agent(session, nullptr);
        break;
    case SshOptions::Auth::Key: {
        ssh_key raw = nullptr;
        const QByteArray file = m_options.keyFile.toUtf8();
        const QByteArray passphrase = m_options.secret.toUtf8();
        if (ssh_pki_import_privkey_file(file.constData(), passphrase.isEmpty() ? nullptr : passphrase.constData(), nullptr, nullptr, &raw)
            != SSH_OK)
            throw SshError(tr("cannot read the SSH key %1: the file is missing or not a private key, or the passphrase is wrong")
                                   .arg(m_options.keyFile));
        const KeyPtr key(raw);
        result = ssh_userauth_publickey(session, nullptr, key.get());
        break;
    }
    case SshOptions::Auth::Password: {
        const QByteArray password = m_options.secret.toUtf8();
        result = ssh_userauth_password(session, nullptr, password.constData());
        break;
    }
    }
    if (result == SSH_AUTH_SUCCESS)
        return;
    if (result == SSH_AUTH_ERROR)
        fail(tr("failed during the login"));
    const QString how = m_options.auth == SshOptions::Auth::Agent ? tr("the agent's keys")
                        : m_options.auth == SshOptions::Auth::Key  ? tr("the key %1").arg(m_options.keyFile)
                                                                   : tr("the password");
    throw SshError(tr("SSH server %1 refused the login of %2 with %3").arg(m_options.text(), m_options.user, how));
}

} // namespace lantern
