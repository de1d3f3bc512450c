#pragma once

#include "console/connections/connectionprofile.h"

#include <QHash>
#include <QObject>

#include <optional>

namespace QKeychain {
class Job;
}

namespace lantern {

/** The passwords of connection profiles, through QtKeychain (Secret Service, KWallet, ...).
    Every secret is also held in memory for this session. Where no keychain answers (a headless
    machine, no Secret Service on D-Bus), a job's failure switches to memory only: the
    passwords are asked for and forgotten when the console exits. A secret is never written to
    a file, and QtKeychain's insecure plain-text fallback is never enabled.
    Lives on the GUI thread: keychain jobs are asynchronous and never block it. */
class ProfileSecrets final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(ProfileSecrets)

public:
    enum class Storage { Keychain, Memory };
    Q_ENUM(Storage)

    /** `service`: the keychain's service name (tests pass their own). */
    explicit ProfileSecrets(QString service = QStringLiteral("lantern"), QObject *parent = nullptr);
    ~ProfileSecrets() override;

    /** Finds out whether a keychain answers (a read of a key that need not exist); a failure
        emits keychainUnavailable(). */
    void probe();
    /** Answers with fetched(): from memory when held, else from the keychain. */
    void fetch(const QString &profile);
    /** Keeps `secret` in memory and writes it to the keychain; answers with stored(). */
    void store(const QString &profile, const ProfileSecret &secret);
    /** Forgets the profile's secret, in memory and in the keychain. */
    void forget(const QString &profile);

    std::optional<ProfileSecret> inMemory(const QString &profile) const;
    /** A keychain job failed for want of a keychain: from now on secrets stay in memory. */
    bool isKeychainUnavailable() const { return !m_keychainProblem.isEmpty(); }
    QString keychainProblem() const { return m_keychainProblem; }
    /** Jobs started and not finished yet. */
    int pendingJobs() const { return m_pending; }

Q_SIGNALS:
    void fetched(const QString &profile, const lantern::ProfileSecret &secret);
    void stored(const QString &profile, lantern::ProfileSecrets::Storage where);
    /** The keychain cannot be used (`reason` is QtKeychain's); sent once. */
    void keychainUnavailable(const QString &reason);
    /** The last pending keychain job finished. */
    void idle();

private:
    QString keyOf(const QString &profile) const;
    /** Records a failure that means "no keychain here"; false for other errors. */
    bool noteFailure(const QKeychain::Job *job);
    void startJob(QKeychain::Job *job);

    QString m_service;
    QHash<QString, ProfileSecret> m_memory;
    QString m_keychainProblem;
    int m_pending = 0;
};

} // namespace lantern
