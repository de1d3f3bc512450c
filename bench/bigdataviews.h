#pragma once

#include "bigdatafixture.h"
#include "bigdataprobe.h"

#include "settings/config.h"

#include <QHash>
#include <QList>
#include <QString>

#include <functional>
#include <vector>

namespace lantern::bench {

/** One view's read (or one action) measured on the big data: a fresh service's first answer,
    then repeated refreshes, and what each refresh cost the servers. */
struct ViewFigure {
    QString view;
    QString action;
    double firstMs = 0;     // the first answer of a new service (its connections opened on the way)
    double p50Ms = 0;       // refreshes
    double p95Ms = 0;
    int refreshes = 0;
    ServerCost perRefresh;  // the servers' cost of one refresh (the refreshes' total / refreshes)
    double peakMiB = 0;     // the process's peak resident memory after it
    QString shown;          // what the answer held ("50 rows of 10020")
    double goalFirstMs = 300;
    double goalRefreshMs = 150;
};

/** What a sustained load of refreshes cost the servers. */
struct Sustained {
    ServerCost cost;
    double wallS = 0;
    double redisCpuS = 0;  // redis-server's used_cpu_user + used_cpu_sys over the run
    int requests = 0;
};

/** Drives the console's own services (models/console/..., the code its views run on their service
    threads) headless against the fixture, one request after another on this thread, and times
    each answer. A request that fails throws with the service's words. */
class BigDataViews final {
public:
    BigDataViews(Config config, BigDataPlan plan, ServerProbe &probe, int refreshes);

    /** Every view's reads, in the console's order; then the dead-letter retry of 1,000 entries. */
    QList<ViewFigure> measureAll();

    /** `refresh` run `refreshes` times after `first` (a new service each), timed and probed. */
    ViewFigure measure(const QString &view, const QString &action, const std::function<std::function<QString()>()> &fresh);

    /** `consoles` new services of the view of `figure`, each refreshing it every `everyS` seconds
        (in turn, evenly spread), for `seconds`. */
    Sustained sustain(const ViewFigure &figure, int consoles, double everyS, int seconds);

private:
    using Fresh = std::function<std::function<QString()>()>;

    QList<ViewFigure> users();
    QList<ViewFigure> campaigns();
    QList<ViewFigure> queues();
    QList<ViewFigure> recovery();
    QList<ViewFigure> audit();
    QList<ViewFigure> statistics();
    ViewFigure statisticsFigure(const QString &action);
    QList<ViewFigure> connections();

    Config m_config;
    BigDataPlan m_plan;
    ServerProbe &m_probe;
    int m_refreshes;
    QHash<QString, Fresh> m_fresh;  // by view + action: how measure() made its service
};

/** p-th percentile (0..100) of `values` (nearest rank); 0 for none. */
double percentile(std::vector<double> values, double p);

} // namespace lantern::bench
