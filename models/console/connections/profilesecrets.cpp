#include "console/connections/profilesecrets.h"

#include <qt6keychain/keychain.h>

#include <QJsonDocument>
#include <QJsonObject>

namespace lantern {

namespace {

QString encode(const ProfileSecret &secret)
{
    QJsonObject object{{QStringLiteral("redis"), secret.redisPassword}, {QStringLiteral("db"), secret.dbPassword}};
    if (!secret.sentinelPassword.isEmpty())
        object.insert(QStringLiteral("sentinel"), secret.sentinelPassword);
    if (!secret.sshSecret.isEmpty())
        object.insert(QStringLiteral("ssh"), secret.sshSecret);
    return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
}

ProfileSecret decode(const QString &text)
{
    const QJsonObject object = QJsonDocument::fromJson(text.toUtf8()).object();
    return {object.value(QStringLiteral("redis")).toString(), object.value(QStringLiteral("db")).toString(),
            object.value(QStringLiteral("sentinel")).toString(), object.value(QStringLiteral("ssh")).toString()};
}

} // namespace

ProfileSecrets::ProfileSecrets(QString service, QObject *parent) : QObject(parent), m_service(std::move(service))
{
    qRegisterMetaType<lantern::ProfileSecret>();
}

ProfileSecrets::~ProfileSecrets() = default;

QString ProfileSecrets::keyOf(const QString &profile) const
{
    return QStringLiteral("profile/") + profile;
}

std::optional<ProfileSecret> ProfileSecrets::inMemory(const QString &profile) const
{
    const auto it = m_memory.constFind(profile);
    return it == m_memory.constEnd() ? std::nullopt : std::optional<ProfileSecret>(*it);
}

bool ProfileSecrets::noteFailure(const QKeychain::Job *job)
{
    switch (job->error()) {
    case QKeychain::NoError:
    case QKeychain::EntryNotFound:
        return false;
    case QKeychain::CouldNotDeleteEntry:
    case QKeychain::AccessDeniedByUser:  // the user said no this time; ask again next time
        return false;
    case QKeychain::AccessDenied:
    case QKeychain::NoBackendAvailable:
    case QKeychain::NotImplemented:
    case QKeychain::OtherError:
        break;
    }
    if (m_keychainProblem.isEmpty()) {
        m_keychainProblem = job->errorString().isEmpty() ? QStringLiteral("keychain error %1").arg(int(job->error())) : job->errorString();
        Q_EMIT keychainUnavailable(m_keychainProblem);
    }
    return true;
}

void ProfileSecrets::startJob(QKeychain::Job *job)
{
    job->setAutoDelete(true);
    job->setInsecureFallback(false);  // never a plain-text file
    ++m_pending;
    connect(job, &QKeychain::Job::finished, this, [this] {
        if (--m_pending == 0)
            Q_EMIT idle();
    });
    job->start();
}

void ProfileSecrets::probe()
{
    if (isKeychainUnavailable())
        return;
    auto *job = new QKeychain::ReadPasswordJob(m_service);
    job->setKey(QStringLiteral("probe"));
    connect(job, &QKeychain::Job::finished, this, [this](QKeychain::Job *finished) { noteFailure(finished); });
    startJob(job);
}

void ProfileSecrets::fetch(const QString &profile)
{
    if (const auto held = inMemory(profile); held || isKeychainUnavailable()) {
        const ProfileSecret secret = held.value_or(ProfileSecret{});
        // Answer later, as the keychain would: callers see one asynchronous contract.
        QMetaObject::invokeMethod(this, [this, profile, secret] { Q_EMIT fetched(profile, secret); }, Qt::QueuedConnection);
        return;
    }
    auto *job = new QKeychain::ReadPasswordJob(m_service);
    job->setKey(keyOf(profile));
    connect(job, &QKeychain::Job::finished, this, [this, profile](QKeychain::Job *finished) {
        ProfileSecret secret;
        if (finished->error() == QKeychain::NoError) {
            secret = decode(static_cast<QKeychain::ReadPasswordJob *>(finished)->textData());
            if (!m_memory.contains(profile))
                m_memory.insert(profile, secret);
        } else {
            noteFailure(finished);
        }
        Q_EMIT fetched(profile, m_memory.value(profile, secret));
    });
    startJob(job);
}

void ProfileSecrets::store(const QString &profile, const ProfileSecret &secret)
{
    m_memory.insert(profile, secret);
    if (isKeychainUnavailable()) {
        QMetaObject::invokeMethod(this, [this, profile] { Q_EMIT stored(profile, Storage::Memory); }, Qt::QueuedConnection);
        return;
    }
    QKeychain::Job *job = nullptr;
    if (secret.isEmpty()) {
        auto *remove = new QKeychain::DeletePasswordJob(m_service);
        remove->setKey(keyOf(profile));
        job = remove;
    } else {
        auto *write = new QKeychain::WritePasswordJob(m_service);
        write->setKey(keyOf(profile));
        write->setTextData(encode(secret));
        job = write;
    }
    connect(job, &QKeychain::Job::finished, this, [this, profile](QKeychain::Job *finished) {
        const bool ok = finished->error() == QKeychain::NoError || finished->error() == QKeychain::EntryNotFound;
        if (!ok)
            noteFailure(finished);
        Q_EMIT stored(profile, ok ? Storage::Keychain : Storage::Memory);
    });
    startJob(job);
}

void ProfileSecrets::forget(const QString &profile)
{
    m_memory.remove(profile);
    if (isKeychainUnavailable())
        return;
    auto *job = new QKeychain::DeletePasswordJob(m_service);
    job->setKey(keyOf(profile));
    connect(job, &QKeychain::Job::finished, this, [this](QKeychain::Job *finished) { noteFailure(finished); });
    startJob(job);
}

} // namespace lantern
