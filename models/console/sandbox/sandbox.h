#pragma once

#include "console/common/dedicatedthread.h"
#include "console/sandbox/sandboxseeder.h"
#include "console/sandbox/sandboxworker.h"
#include "settings/config.h"

#include <QObject>

#include <memory>

namespace lantern {

class SandboxDirectory;
class SandboxRedis;

/** The console's embedded environment (DESIGN §2, `lantern --sandbox`): a private redis-server
    child, an SQLite file, demo data, and a worker on its own thread, all in a folder of its own
    under `root` (SandboxDirectory), so sandboxes running side by side never touch each other.
    start() returns at once; progress() reports the steps, then ready() or failed().
    Destroying it stops the worker thread, then the server, then removes its folder. */
class Sandbox final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(Sandbox)

public:
    /** `base` supplies everything but the Redis and SQL URLs, which the sandbox sets. */
    Sandbox(Config base, QString root, QObject *parent = nullptr);
    ~Sandbox() override;

    void start();
    /** The configuration to use once ready(): the private Redis, the sandbox database. */
    const Config &config() const { return m_config; }
    const SeedSummary &summary() const { return m_summary; }
    bool isReady() const { return m_ready; }
    /** The simulated crowd's grabs per second into every live campaign (0: none); remembered in
        QSettings ("sandbox/crowdRate"), so the next sandbox starts at the rate chosen last. */
    void setCrowdRate(int grabsPerSecond);
    int crowdRate() const { return m_crowdRate; }

    /** This sandbox's own folder once start() claimed it (empty before). */
    QString directory() const;

    /** Where sandboxes keep their folders: QStandardPaths::AppDataLocation + "/sandbox". */
    static QString defaultDirectory();

Q_SIGNALS:
    void progress(const QString &message);
    void ready();
    void failed(const QString &message, const QString &detail);
    /** The in-process worker persisted rows or hit trouble (for the status bar). */
    void workerPersisted(qint64 rows);
    void workerTrouble(const QString &detail);
    void workerRecovered();

private:
    void startWorker();

    Config m_config;
    QString m_root;
    std::unique_ptr<SandboxDirectory> m_directory;
    SandboxRedis *m_redis = nullptr;
    std::unique_ptr<DedicatedThread<SandboxWorker>> m_worker;
    SeedSummary m_summary;
    bool m_ready = false;
    int m_crowdRate = SandboxWorker::DefaultCrowdRate;
};

} // namespace lantern
