#pragma once

#include "core/errors.h"
#include "tunnel/sshoptions.h"

#include <QCoreApplication>
#include <QString>

#include <memory>

struct ssh_session_struct;
struct ssh_channel_struct;

namespace lantern {

/** The SSH server could not be reached, refused the login, or presented a host key that does not
    match known_hosts (exit 3 class: unreachable, nothing sent to the servers behind it). */
class SshError : public UnavailableError {
public:
    using UnavailableError::UnavailableError;
};

/** The SSH server's host key is in no known_hosts line yet: the user must say yes to its
    fingerprint (SshOptions::acceptedFingerprint) before anything is sent. */
class SshUnknownHostError final : public SshError {
public:
    SshUnknownHostError(const QString &message, QString host, QString fingerprint)
        : SshError(message), m_host(std::move(host)), m_fingerprint(std::move(fingerprint)) {}
    const QString &host() const { return m_host; }
    const QString &fingerprint() const { return m_fingerprint; }

private:
    QString m_host;
    QString m_fingerprint;
};

/** One logged-in libssh session (libssh from Debian, libssh-dev): connected within the timeout,
    the host key checked against known_hosts (an unknown key only with the user's yes to its
    fingerprint, then recorded; a changed key always refused), then the login by agent, key file
    or password. Not thread-safe: one thread at a time uses it. */
class SshSession final {
    Q_DECLARE_TR_FUNCTIONS(lantern::SshSession)

public:
    /** Connects, checks the host key and logs in; throws SshError (SshUnknownHostError). */
    explicit SshSession(const SshOptions &options);
    ~SshSession();
    Q_DISABLE_COPY_MOVE(SshSession)

    ssh_session_struct *get() const { return m_session.get(); }
    const SshOptions &options() const { return m_options; }
    /** The host key's SHA256 fingerprint, as ssh-keygen -l prints it. */
    const QString &fingerprint() const { return m_fingerprint; }
    /** libssh's last error on this session, for messages. */
    QString lastError() const;

private:
    struct Free {
        void operator()(ssh_session_struct *session) const;
    };

    void setOptions();
    void checkHostKey();
    void authenticate();
    [[noreturn]] void fail(const QString &what) const;

    SshOptions m_options;
    std::unique_ptr<ssh_session_struct, Free> m_session;
    QString m_fingerprint;
};

} // namespace lantern
