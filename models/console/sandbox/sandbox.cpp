#include "sandbox.h"

#include "console/sandbox/sandboxdirectory.h"
#include "console/sandbox/sandboxredis.h"

#include <QSettings>
#include <QStandardPaths>

#include <algorithm>

namespace lantern {

namespace {
const QString CrowdRateSetting = QStringLiteral("sandbox/crowdRate");
} // namespace

Sandbox::Sandbox(Config base, QString root, QObject *parent)
    : QObject(parent), m_config(std::move(base)), m_root(std::move(root))
{
    m_crowdRate = std::clamp(QSettings().value(CrowdRateSetting, SandboxWorker::DefaultCrowdRate).toInt(), 0, SandboxWorker::MaxCrowdRate);
}

Sandbox::~Sandbox()
{
    // The worker uses the server: stop it first (it says goodbye to Redis on its way out).
    m_worker.reset();
    if (m_redis)
        m_redis->stop();
    m_directory.reset();  // the server is down: its folder can go
}

QString Sandbox::directory() const
{
    return m_directory ? m_directory->path() : QString();
}

QString Sandbox::defaultDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/sandbox");
}

void Sandbox::start()
{
    QString error;
    m_directory = SandboxDirectory::claim(m_root, &error);
    if (!m_directory) {
        Q_EMIT failed(error, {});
        return;
    }
    m_config.db = DbUrl::parse(QStringLiteral("sqlite://") + m_directory->path() + QStringLiteral("/sandbox.db"));
    m_redis = new SandboxRedis(m_directory->path(), this);
    connect(m_redis, &SandboxRedis::ready, this, [this](const RedisUrl &url) {
        m_config.redis = url;
        startWorker();
    });
    connect(m_redis, &SandboxRedis::failed, this, [this](const QString &message, const QString &detail) {
        const bool wasReady = m_ready;
        m_ready = false;
        m_worker.reset();
        Q_EMIT failed(wasReady ? tr("The sandbox Redis stopped: %1").arg(message) : message, detail);
    });
    Q_EMIT progress(tr("Starting a private Redis server…"));
    m_redis->start();
}

void Sandbox::setCrowdRate(int grabsPerSecond)
{
    m_crowdRate = std::clamp(grabsPerSecond, 0, SandboxWorker::MaxCrowdRate);
    QSettings().setValue(CrowdRateSetting, m_crowdRate);
    if (m_worker)
        QMetaObject::invokeMethod(m_worker->get(), [worker = m_worker->get(), rate = m_crowdRate] { worker->setCrowdRate(rate); },
                                  Qt::QueuedConnection);
}

void Sandbox::startWorker()
{
    Q_EMIT progress(tr("Seeding demo users and their check-in history…"));
    m_worker = std::make_unique<DedicatedThread<SandboxWorker>>(QStringLiteral("sandbox-worker"), m_config);
    SandboxWorker *worker = m_worker->get();
    connect(worker, &SandboxWorker::seeded, this, [this](const SeedSummary &summary) {
        m_summary = summary;
        m_ready = true;
        Q_EMIT ready();
    });
    connect(worker, &SandboxWorker::failed, this, &Sandbox::failed);
    connect(worker, &SandboxWorker::persisted, this, &Sandbox::workerPersisted);
    connect(worker, &SandboxWorker::passFailed, this, &Sandbox::workerTrouble);
    connect(worker, &SandboxWorker::recovered, this, &Sandbox::workerRecovered);
    worker->setCrowdRate(m_crowdRate);  // not started yet: nothing runs on its thread so far
    QMetaObject::invokeMethod(worker, &SandboxWorker::start, Qt::QueuedConnection);
}

} // namespace lantern
