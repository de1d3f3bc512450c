#include "console/queues/queuejobrunner.h"

#include "console/common/connectionerrors.h"
#include "redis/redisclient.h"
#include "redis/rediserror.h"
#include "settings/configconnections.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"

#include <QDateTime>

namespace lantern {

QueueJobRunner::QueueJobRunner(Config config, QObject *parent)
    : QObject(parent), m_config(std::move(config)), m_keys(m_config.keyPrefix, m_config.shards)
{
}

QueueJobRunner::~QueueJobRunner() = default;

RedisClient &QueueJobRunner::redis()
{
    return m_connections.redis();
}

SqlConnection &QueueJobRunner::sql()
{
    return m_connections.sql();
}

qint64 QueueJobRunner::nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

std::pair<QString, QString> QueueJobRunner::explain(const std::exception &error, access::Action action)
{
    const PlainFailure failure = ConnectionErrors::explain(error, m_config, m_connections, action);
    return {failure.message, failure.detail};
}

void QueueJobRunner::cancelJob(quint64 job)
{
    if (job == m_job)
        m_cancelled = true;
}

void QueueJobRunner::startJob(quint64 job, access::Action action, std::function<QueueJobStep()> step, std::function<QString(bool)> summary)
{
    if (m_job != 0) {
        Q_EMIT jobFailed(job, tr("Another action is still running; wait for it or cancel it first."), {});
        return;
    }
    m_job = job;
    m_jobAction = action;
    m_cancelled = false;
    m_step = std::move(step);
    m_summary = std::move(summary);
    QMetaObject::invokeMethod(this, &QueueJobRunner::runStep, Qt::QueuedConnection);
}

void QueueJobRunner::runStep()
{
    const quint64 job = m_job;
    const auto finish = [this, job](bool cancelled) {
        const QString words = m_summary(cancelled);
        m_job = 0;
        m_step = {};
        m_summary = {};
        Q_EMIT jobFinished(job, cancelled, words);
    };
    if (m_cancelled) {
        finish(true);
        return;
    }
    try {
        const QueueJobStep result = m_step();
        Q_EMIT jobProgress(job, result.done, result.total);
        if (result.finished)
            finish(false);
        else
            QMetaObject::invokeMethod(this, &QueueJobRunner::runStep, Qt::QueuedConnection);
    } catch (const std::exception &error) {
        const auto [message, detail] = explain(error, m_jobAction);
        m_job = 0;
        m_step = {};
        m_summary = {};
        Q_EMIT jobFailed(job, message, detail);
    }
}

} // namespace lantern
