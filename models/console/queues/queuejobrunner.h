#pragma once

#include "access/role.h"
#include "redis/keyschema.h"
#include "settings/config.h"
#include "settings/configconnections.h"

#include <QObject>

#include <functional>
#include <memory>

namespace lantern {

class RedisClient;
class SqlConnection;

/** What one step of a long action did; `done` and `total` count its items. */
struct QueueJobStep {
    qint64 done = 0;
    qint64 total = 0;
    bool finished = false;
};

/** Base of the Queues and Recovery services: lives on a thread of its own (DedicatedThread),
    opens Redis and SQL there on first use, words failures for people, and runs long actions
    (bulk retry, compensation) as a job of small steps, one per turn of the thread's event loop,
    so a queued cancelJob() arrives between two steps. */
class QueueJobRunner : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(QueueJobRunner)

public:
    explicit QueueJobRunner(Config config, QObject *parent = nullptr);
    ~QueueJobRunner() override;

    const Config &config() const { return m_config; }

public Q_SLOTS:
    /** Stops job `job` after the step that is running; its jobFinished says it was cancelled. */
    void cancelJob(quint64 job);

Q_SIGNALS:
    void jobProgress(quint64 job, qint64 done, qint64 total);
    /** `summary` is translated words about what was done. */
    void jobFinished(quint64 job, bool cancelled, const QString &summary);
    void jobFailed(quint64 job, const QString &message, const QString &detail);

protected:
    RedisClient &redis();
    SqlConnection &sql();
    const KeySchema &keys() const { return m_keys; }
    static qint64 nowMs();

    /** Plain words for a failure and its technical detail; drops a broken SQL connection. A
        server's refusal for want of a right names `action` (ConnectionErrors). */
    std::pair<QString, QString> explain(const std::exception &error, access::Action action = access::Action::Read);

    /** Runs `step` once per event-loop turn until it reports finished, cancelJob() or an error;
        `summary` words the result at the end. Refuses (jobFailed) while another job runs.
        `action`: what the job does, as a refusal names it. */
    void startJob(quint64 job, access::Action action, std::function<QueueJobStep()> step, std::function<QString(bool cancelled)> summary);

private:
    void runStep();

    Config m_config;
    KeySchema m_keys;
    LazyConnections m_connections{m_config};  // opened in the service thread

    quint64 m_job = 0;
    access::Action m_jobAction = access::Action::Read;
    bool m_cancelled = false;
    std::function<QueueJobStep()> m_step;
    std::function<QString(bool)> m_summary;
};

} // namespace lantern
