#pragma once

#include "cpuplacement.h"
#include "serveprocess.h"
#include "summaryrows.h"

#include <QList>
#include <QProcess>
#include <QString>

#include <functional>
#include <vector>

class QTextStream;

namespace lantern::bench {

/** nginx (Debian nginx-light) as a child of the bench, answering GET /livez with the fixed JSON
    200 lanternd serve answers there ({"status":"ok"}): `workers` worker processes, a configuration
    of its own in `workDir`, no access log. The outside reference for what an HTTP request costs. */
class NginxProcess final {
public:
    /** Starts it and waits (up to 10 s) until it answers; throws LanternError with its error log
        if it does not. */
    NginxProcess(const QString &program, int workers, const QString &workDir);
    /** Stops it (SIGQUIT, then SIGKILL after 10 s). */
    ~NginxProcess();
    Q_DISABLE_COPY_MOVE(NginxProcess)

    quint16 port() const { return m_port; }
    /** Moves the master and its workers onto `cpus` (nothing for empty `cpus`). */
    void place(const CpuSet &cpus) const;
    /** CPU time its workers have used so far (the master only waits). */
    ProcessCpu cpu() const;
    /** `nginx -v`'s version, e.g. "nginx/1.22.1". */
    QString version() const;

private:
    QProcess m_process;
    QString m_program;
    QString m_errorLog;
    quint16 m_port = 0;
    QList<qint64> m_workers;
};

/** One fixed-length wrk run of GET `url` (no script), wrk on `clientCpus` (empty: where it lands):
    rate, latencies and the CPU per request of the server (`serverCpu`, read before and after) and
    of wrk. */
struct FixedRun {
    qint64 requests = 0;
    qint64 non2xx = 0;
    qint64 socketErrors = 0;
    double perSecond = 0;
    double p50Ms = 0;
    double p99Ms = 0;
    double serverMicros = 0;
    double serverSystemPercent = 0;
    double clientMicros = 0;
};
FixedRun runFixedWrk(const QString &wrk, const QString &url, int threads, int connections, int seconds,
                     const std::function<ProcessCpu()> &serverCpu, const CpuSet &clientCpus = {});

/** Where the reference's processes run: both servers on `serverCpus`, wrk on `clientCpus`. */
struct ReferenceLayout {
    CpuSet serverCpus;
    CpuSet clientCpus;
    /** How the report names it, e.g. "servers on CPU 0, wrk on CPU 1". */
    QString name;
};
/** The two layouts the reference runs in: every process free to use every core, as the storms
    run; and, on a machine of two CPUs or more, the servers on CPU 0 and wrk on CPU 1, as if on two
    hosts (issue 28's "--pin"). Explicit CPUs both, so the layouts hold however the bench itself
    was placed (scripts/bench --pin runs it on CPU 1). */
QList<ReferenceLayout> referenceLayouts();

/** What the reference compares: wrk's settings and the two servers, already listening. */
struct ReferenceSetup {
    QString wrk;
    int wrkThreads = 2;
    int connections = 50;
    int seconds = 5;
    int rounds = 1;
    int serveThreads = 2;
    const ServeProcess *serve = nullptr;
    const NginxProcess *nginx = nullptr;
    ReferenceLayout layout;
};

/** GET /livez through lanternd serve and through nginx, the same wrk against each, rounds
    alternating, after moving the servers onto the layout's CPUs; prints the table and the medians
    to `out` and returns the summary rows (CPU per request and rate, lanternd / nginx). Throws
    LanternError when an answer was not a 2xx. */
std::vector<SummaryRow> runNginxReference(QTextStream &out, const ReferenceSetup &setup);

} // namespace lantern::bench
