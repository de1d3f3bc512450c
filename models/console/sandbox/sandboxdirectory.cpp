#include "sandboxdirectory.h"

#include <QCoreApplication>
#include <QDir>
#include <QRandomGenerator>

namespace lantern {

namespace {
const QString RunPrefix = QStringLiteral("run-");
const QString LockSuffix = QStringLiteral(".lock");
constexpr int NameAttempts = 16;

std::unique_ptr<QLockFile> lockFile(const QString &path)
{
    auto lock = std::make_unique<QLockFile>(path + LockSuffix);
    // A live owner keeps its lock however old it is; only a dead owner's lock is stale.
    lock->setStaleLockTime(0);
    return lock;
}
} // namespace

SandboxDirectory::SandboxDirectory(QString path, std::unique_ptr<QLockFile> lock, int swept)
    : m_path(std::move(path)), m_lock(std::move(lock)), m_swept(swept)
{
}

SandboxDirectory::~SandboxDirectory()
{
    QDir(m_path).removeRecursively();
    m_lock->unlock();  // last: until the folder is gone, nobody else may take it for stale
}

int SandboxDirectory::sweep(const QString &root)
{
    int swept = 0;
    const QDir dir(root);
    QStringList names = dir.entryList({RunPrefix + u'*'}, QDir::Dirs | QDir::Files | QDir::NoDotAndDotDot);
    for (QString &name : names) {
        if (name.endsWith(LockSuffix))
            name.chop(LockSuffix.size());  // a lock without its folder: a claim cut short
    }
    names.removeDuplicates();
    for (const QString &name : std::as_const(names)) {
        const QString path = dir.filePath(name);
        const auto lock = lockFile(path);
        if (!lock->tryLock(0))
            continue;  // its sandbox is running
        if (QDir(path).exists() && QDir(path).removeRecursively())
            ++swept;
        lock->unlock();
    }
    return swept;
}

std::unique_ptr<SandboxDirectory> SandboxDirectory::claim(const QString &root, QString *error)
{
    if (!QDir().mkpath(root)) {
        *error = QCoreApplication::translate("lantern::SandboxDirectory", "The sandbox folder %1 could not be created.").arg(root);
        return nullptr;
    }
    const int swept = sweep(root);
    for (int attempt = 0; attempt < NameAttempts; ++attempt) {
        const QString path = QDir(root).filePath(RunPrefix + QString::number(QRandomGenerator::global()->generate(), 16).rightJustified(8, u'0'));
        auto lock = lockFile(path);
        if (!lock->tryLock(0))
            continue;  // that name is another sandbox's
        if (QDir(path).exists() || !QDir().mkdir(path)) {
            lock->unlock();
            continue;
        }
        return std::unique_ptr<SandboxDirectory>(new SandboxDirectory(path, std::move(lock), swept));
    }
    *error = QCoreApplication::translate("lantern::SandboxDirectory", "No folder of its own could be made for the sandbox under %1.").arg(root);
    return nullptr;
}

} // namespace lantern
