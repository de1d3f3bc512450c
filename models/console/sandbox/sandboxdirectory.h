#pragma once

#include <QLockFile>
#include <QString>

#include <memory>

namespace lantern {

/** The folder one sandbox owns, under a root that many sandboxes share (issue 24, point 1): a
    console and a screenshot run, or two consoles, each get `<root>/run-XXXXXXXX`, locked by a
    `run-XXXXXXXX.lock` beside it for as long as this object lives, and removed with it. The lock
    is taken before the folder is made, so a folder whose lock can be taken belongs to nobody: each
    claim() first removes those (left by a console that was killed). Never touches a live one. */
class SandboxDirectory final {
public:
    ~SandboxDirectory();
    Q_DISABLE_COPY_MOVE(SandboxDirectory)

    /** A new folder of our own under `root` (made if missing), or null with `error` set. */
    static std::unique_ptr<SandboxDirectory> claim(const QString &root, QString *error);

    QString path() const { return m_path; }
    /** Folders of sandboxes that ended without cleaning up, removed by the last claim(). */
    int sweptCount() const { return m_swept; }

private:
    SandboxDirectory(QString path, std::unique_ptr<QLockFile> lock, int swept);
    static int sweep(const QString &root);

    QString m_path;
    std::unique_ptr<QLockFile> m_lock;
    int m_swept = 0;
};

} // namespace lantern
