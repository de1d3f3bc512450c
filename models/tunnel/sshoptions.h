#pragma once

#include <QString>

#include <chrono>

namespace lantern {

/** How to reach and log in to an SSH server that forwards connections to the servers behind it
    (a bastion host). Secrets come from the keychain, never from a file of ours. */
struct SshOptions {
    enum class Auth {
        Agent,     // the keys of the running ssh-agent (SSH_AUTH_SOCK)
        Key,       // a private key file, with its passphrase in `secret` when it has one
        Password,  // `secret`
    };

    QString host;
    int port = 22;
    QString user;
    Auth auth = Auth::Agent;
    QString keyFile;
    QString secret;              // the key's passphrase or the password
    QString knownHostsFile;      // empty: ~/.ssh/known_hosts
    QString acceptedFingerprint; // "SHA256:..." the user accepted for a host not known yet: written to known_hosts
    std::chrono::milliseconds timeout{5000};  // connecting, and each step of the login

    bool enabled() const { return !host.isEmpty(); }
    /** user@host:port, for messages. */
    QString text() const { return QStringLiteral("%1@%2:%3").arg(user, host).arg(port); }
    static QString authName(Auth auth)
    {
        return auth == Auth::Agent ? QStringLiteral("agent") : auth == Auth::Key ? QStringLiteral("key") : QStringLiteral("password");
    }
    /** "agent", "key" or "password"; false in `ok` otherwise (then Agent). */
    static Auth parseAuth(const QString &text, bool *ok = nullptr)
    {
        for (const Auth auth : {Auth::Agent, Auth::Key, Auth::Password}) {
            if (text == authName(auth)) {
                if (ok)
                    *ok = true;
                return auth;
            }
        }
        if (ok)
            *ok = false;
        return Auth::Agent;
    }
    bool operator==(const SshOptions &other) const = default;
};

} // namespace lantern
