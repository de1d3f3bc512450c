#include "bigdataviews.h"

#include "checkin/keptmonthstats.h"
#include "console/checkinstats/monthstatsservice.h"
#include "console/audit/auditservice.h"
#include "console/campaigns/campaignconsoleservice.h"
#include "console/connections/connectiontester.h"
#include "console/queues/deadlettermodel.h"
#include "console/queues/queueservice.h"
#include "console/recovery/recoveryservice.h"
#include "console/users/userlookupservice.h"
#include "core/errors.h"

#include "redis/keyschema.h"
#include "redis/redisclient.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QThread>

#include <algorithm>
#include <memory>

namespace lantern::bench {

namespace {

double msSince(const QElapsedTimer &timer) { return double(timer.nsecsElapsed()) / 1e6; }

[[noreturn]] void failed(const QString &what, const QString &message, const QString &detail)
{
    throw LanternError(QStringLiteral("%1 failed: %2 (%3)").arg(what, message, detail));
}

} // namespace

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const auto rank = size_t(std::max(1.0, std::ceil(p / 100.0 * double(values.size()))));
    return values[rank - 1];
}

BigDataViews::BigDataViews(Config config, BigDataPlan plan, ServerProbe &probe, int refreshes)
    : m_config(std::move(config)), m_plan(std::move(plan)), m_probe(probe), m_refreshes(refreshes)
{
}

ViewFigure BigDataViews::measure(const QString &view, const QString &action, const std::function<std::function<QString()>()> &fresh)
{
    ViewFigure figure;
    figure.view = view;
    figure.action = action;
    m_fresh.insert(view + QLatin1Char('\n') + action, fresh);
    const std::function<QString()> request = fresh();
    QElapsedTimer timer;
    timer.start();
    figure.shown = request();
    figure.firstMs = msSince(timer);
    // Slow reads are repeated less: the table says how often.
    figure.refreshes = figure.firstMs < 1000 ? m_refreshes : figure.firstMs < 5000 ? std::min(m_refreshes, 5) : 2;
    std::vector<double> times;
    m_probe.start();
    for (int n = 0; n < figure.refreshes; ++n) {
        timer.restart();
        request();
        times.push_back(msSince(timer));
    }
    ServerCost cost = m_probe.stop();
    cost.divide(double(figure.refreshes));
    figure.perRefresh = cost;
    figure.p50Ms = percentile(times, 50);
    figure.p95Ms = percentile(times, 95);
    figure.peakMiB = peakResidentMiB();
    return figure;
}

Sustained BigDataViews::sustain(const ViewFigure &figure, int consoles, double everyS, int seconds)
{
    const Fresh fresh = m_fresh.value(figure.view + QLatin1Char('\n') + figure.action);
    std::vector<std::function<QString()>> requests;
    for (int n = 0; n < consoles; ++n) {
        requests.push_back(fresh());
        requests.back()();  // its connections opened, as a console open on the view has them
    }
    const auto redisCpu = [this] { return m_probe.redisCpuS(); };
    Sustained result;
    const double gapMs = everyS * 1000.0 / consoles;
    const double startCpu = redisCpu();
    m_probe.start();
    QElapsedTimer wall;
    wall.start();
    while (wall.elapsed() < qint64(seconds) * 1000) {
        requests[size_t(result.requests % consoles)]();
        ++result.requests;
        // Pacing, not synchronisation: the next console's refresh is due gapMs after this one's.
        const qint64 due = qint64(double(result.requests) * gapMs);
        if (due > wall.elapsed())
            QThread::msleep(quint64(due - wall.elapsed()));
    }
    result.cost = m_probe.stop();
    result.wallS = double(wall.nsecsElapsed()) / 1e9;
    result.redisCpuS = redisCpu() - startCpu;
    return result;
}

QList<ViewFigure> BigDataViews::measureAll()
{
    QList<ViewFigure> figures;
    figures << users() << campaigns() << queues() << recovery() << audit() << statistics() << connections();
    return figures;
}

QList<ViewFigure> BigDataViews::users()
{
    const qint64 users = m_plan.size.users;
    const auto lookup = [this, users](int monthsBack) {
        return [this, users, monthsBack] {
            auto service = std::make_shared<UserLookupService>(m_config);
            auto serial = std::make_shared<quint64>(0);
            return std::function<QString()>([this, service, serial, users, monthsBack] {
                lantern::UserMonth month;
                QString failure;
                QObject::connect(service.get(), &UserLookupService::monthLoaded, service.get(), [&](quint64, const lantern::UserMonth &loaded) { month = loaded; },
                                 Qt::SingleShotConnection);
                QObject::connect(service.get(), &UserLookupService::lookupFailed, service.get(),
                                 [&](quint64, const QString &message, const QString &detail) { failure = message + QStringLiteral(" / ") + detail; },
                                 Qt::SingleShotConnection);
                const qint64 uid = 1 + qint64(++*serial * 999'983) % users;
                service->lookup(*serial, QString::number(uid), m_plan.today.addMonths(-monthsBack));
                QObject::disconnect(service.get(), nullptr, service.get(), nullptr);
                if (!failure.isEmpty())
                    failed(QStringLiteral("Users look-up"), failure, {});
                return QStringLiteral("%1 days signed, 6-month chart, %2 log rows").arg(month.signedDays.size()).arg(month.recentCheckins.size());
            });
        };
    };
    return {measure(QStringLiteral("Users"), QStringLiteral("look-up: this month + six-month streak chart + history"), lookup(0)),
            measure(QStringLiteral("Users"), QStringLiteral("another month (5 months back)"), lookup(5))};
}

QList<ViewFigure> BigDataViews::campaigns()
{
    const auto request = [this](const std::function<void(CampaignConsoleService &, quint64)> &ask) {
        return [this, ask] {
            auto service = std::make_shared<CampaignConsoleService>(m_config);
            auto serial = std::make_shared<quint64>(0);
            return std::function<QString()>([service, serial, ask] {
                QString shown;
                QString failure;
                CampaignConsoleService *s = service.get();
                QObject::connect(s, &CampaignConsoleService::pageLoaded, s, [&](quint64, const CampaignPage &page) {
                    shown = QStringLiteral("%1 rows of %2").arg(page.rows.size()).arg(page.total);
                });
                QObject::connect(s, &CampaignConsoleService::snapshotLoaded, s, [&](quint64, const CampaignSnapshot &snapshot) {
                    shown = QStringLiteral("%1 grabbed, %2 violations").arg(snapshot.summary.grabbedCount).arg(snapshot.violations.size());
                });
                QObject::connect(s, &CampaignConsoleService::timetableLoaded, s,
                                 [&](quint64, const TimetableOverview &timetable) { shown = QStringLiteral("%1 entries").arg(timetable.entries.size()); });
                QObject::connect(s, &CampaignConsoleService::requestFailed, s,
                                 [&](quint64, const QString &message, const QString &detail) { failure = message + QStringLiteral(" / ") + detail; });
                ask(*s, ++*serial);
                QObject::disconnect(s, nullptr, s, nullptr);
                if (!failure.isEmpty())
                    failed(QStringLiteral("Campaigns"), failure, {});
                return shown;
            });
        };
    };
    const qint64 big = m_plan.bigCampaign();
    return {measure(QStringLiteral("Campaigns"), QStringLiteral("list, first page (50, newest first)"),
                    request([](CampaignConsoleService &s, quint64 serial) { s.list(serial, 0, 50, {}); })),
            measure(QStringLiteral("Campaigns"), QStringLiteral("list sorted by total, the page half-way down"),
                    request([half = m_plan.size.pastCampaigns / 2](CampaignConsoleService &s, quint64 serial) {
                        s.list(serial, half, 50, CampaignListQuery{{}, CampaignListModel::Total, Qt::DescendingOrder});
                    })),
            measure(QStringLiteral("Campaigns"), QStringLiteral("the live campaign of %1 envelopes (show + ledger check)").arg(m_plan.size.bigEnvelopes),
                    request([big](CampaignConsoleService &s, quint64 serial) { s.load(serial, big); })),
            measure(QStringLiteral("Campaigns"), QStringLiteral("a closed campaign (show + ledger check)"),
                    request([](CampaignConsoleService &s, quint64 serial) { s.load(serial, 1); })),
            measure(QStringLiteral("Campaigns"), QStringLiteral("timetable panel"),
                    request([](CampaignConsoleService &s, quint64 serial) { s.loadTimetable(serial); }))};
}

QList<ViewFigure> BigDataViews::queues()
{
    const QString list = QStringLiteral("payout:%1").arg(m_plan.bigCampaign());
    const auto request = [this](const std::function<void(QueueService &, quint64)> &ask) {
        return [this, ask] {
            auto service = std::make_shared<QueueService>(m_config);
            auto serial = std::make_shared<quint64>(0);
            return std::function<QString()>([service, serial, ask] {
                QString shown;
                QString failure;
                QueueService *s = service.get();
                QObject::connect(s, &QueueService::loaded, s, [&](quint64, const QueueSnapshot &snapshot) {
                    shown = QStringLiteral("%1 queues, %2 workers, %3 dead letters")
                                    .arg(snapshot.overview.queues.size())
                                    .arg(snapshot.overview.workers.size())
                                    .arg(snapshot.overview.deadLetter);
                });
                QObject::connect(s, &QueueService::deadLettersLoaded, s, [&](quint64, const DeadLetterPage &page, int, bool) {
                    shown = QStringLiteral("%1 entries of %2").arg(page.entries.size()).arg(page.depth);
                });
                QObject::connect(s, &QueueService::loadFailed, s,
                                 [&](quint64, const QString &message, const QString &detail) { failure = message + QStringLiteral(" / ") + detail; });
                QObject::connect(s, &QueueService::deadLettersFailed, s,
                                 [&](quint64, const QString &message, const QString &detail) { failure = message + QStringLiteral(" / ") + detail; });
                ask(*s, ++*serial);
                QObject::disconnect(s, nullptr, s, nullptr);
                if (!failure.isEmpty())
                    failed(QStringLiteral("Queues"), failure, {});
                return shown;
            });
        };
    };
    QList<ViewFigure> figures{
            measure(QStringLiteral("Queues"), QStringLiteral("overview (queues, workers, dead-letter lists)"),
                    request([](QueueService &s, quint64 serial) { s.load(serial); })),
            measure(QStringLiteral("Dead letters"), QStringLiteral("open a list (first 100)"),
                    request([list](QueueService &s, quint64 serial) { s.loadDeadLetters(serial, list, 0, 100, DeadLetterModel::Position, false); })),
            measure(QStringLiteral("Dead letters"), QStringLiteral("a page half-way down"),
                    request([list, half = m_plan.size.deadLetters / m_plan.size.liveCampaigns / 2](QueueService &s, quint64 serial) {
                        s.loadDeadLetters(serial, list, half, 100, DeadLetterModel::Position, false);
                    })),
            measure(QStringLiteral("Dead letters"), QStringLiteral("sort by reason"),
                    request([list](QueueService &s, quint64 serial) { s.loadDeadLetters(serial, list, 0, 100, DeadLetterModel::Reason, false); }))};

    // Retry 1,000: the view's bulk action on the 1,000 oldest entries, as one job of batches.
    figures << measure(QStringLiteral("Dead letters"), QStringLiteral("retry 1,000 (audited, batches of 100)"), [this, list] {
        auto service = std::make_shared<QueueService>(m_config);
        auto job = std::make_shared<quint64>(0);
        return std::function<QString()>([service, job, list] {
            QueueService *s = service.get();
            QByteArrayList entries;
            QString summary;
            QString failure;
            QEventLoop loop;
            QObject::connect(s, &QueueService::deadLettersLoaded, s, [&](quint64, const DeadLetterPage &page, int, bool) { entries << page.entries; });
            QObject::connect(s, &QueueService::jobFinished, s, [&](quint64, bool, const QString &words) {
                summary = words;
                loop.quit();
            });
            QObject::connect(s, &QueueService::jobFailed, s, [&](quint64, const QString &message, const QString &detail) {
                failure = message + QStringLiteral(" / ") + detail;
                loop.quit();
            });
            s->loadDeadLetters(0, list, 0, 500, DeadLetterModel::Position, true);
            s->loadDeadLetters(0, list, 500, 500, DeadLetterModel::Position, true);
            s->runDeadLetterJob(++*job, true, list, entries, false, QStringLiteral("bench"));
            if (summary.isEmpty() && failure.isEmpty())
                loop.exec();
            QObject::disconnect(s, nullptr, s, nullptr);
            if (!failure.isEmpty())
                failed(QStringLiteral("Retry"), failure, {});
            return summary;
        });
    });
    figures.last().goalFirstMs = 0;  // an action: no goal of the issue's, measured for the record
    figures.last().goalRefreshMs = 0;
    return figures;
}

QList<ViewFigure> BigDataViews::recovery()
{
    return {measure(QStringLiteral("Recovery"), QStringLiteral("dead workers' tree (%1 dead of %2)").arg(m_plan.size.deadWorkers).arg(m_plan.size.workers), [this] {
        auto service = std::make_shared<RecoveryService>(m_config);
        auto serial = std::make_shared<quint64>(0);
        return std::function<QString()>([service, serial] {
            RecoveryService *s = service.get();
            QString shown;
            QString failure;
            QObject::connect(s, &RecoveryService::loaded, s, [&](quint64, const RecoverySnapshot &snapshot) {
                qint64 tasks = 0;
                for (const DeadWorkerBacklog &worker : snapshot.workers)
                    tasks += worker.tasks.size();
                shown = QStringLiteral("%1 dead workers, %2 tasks, %3 ledger checks").arg(snapshot.workers.size()).arg(tasks).arg(snapshot.ledger.size());
            });
            QObject::connect(s, &RecoveryService::loadFailed, s,
                             [&](quint64, const QString &message, const QString &detail) { failure = message + QStringLiteral(" / ") + detail; });
            s->load(++*serial);
            QObject::disconnect(s, nullptr, s, nullptr);
            if (!failure.isEmpty())
                failed(QStringLiteral("Recovery"), failure, {});
            return shown;
        });
    })};
}

QList<ViewFigure> BigDataViews::audit()
{
    const auto page = [this](AuditFilter filter, AuditOrder order) {
        return [this, filter, order] {
            auto service = std::make_shared<AuditService>(m_config);
            auto serial = std::make_shared<quint64>(0);
            return std::function<QString()>([service, serial, filter, order] {
                AuditService *s = service.get();
                QString shown;
                QString failure;
                QObject::connect(s, &AuditService::pageLoaded, s,
                                 [&](quint64, const AuditPage &loaded) { shown = QStringLiteral("%1 rows").arg(loaded.entries.size()); });
                QObject::connect(s, &AuditService::loadFailed, s,
                                 [&](quint64, const QString &message, const QString &detail) { failure = message + QStringLiteral(" / ") + detail; });
                s->loadPage(++*serial, filter, order, {}, 200);
                QObject::disconnect(s, nullptr, s, nullptr);
                if (!failure.isEmpty())
                    failed(QStringLiteral("Audit"), failure, {});
                return shown;
            });
        };
    };
    AuditFilter byActor;
    byActor.actor = QStringLiteral("operator-7");
    AuditFilter byAction;
    byAction.action = QStringLiteral("campaign.close");
    AuditFilter byTarget;
    byTarget.target = QStringLiteral("campaign:42");
    AuditFilter byDays;
    byDays.from = m_plan.today.addDays(-40);
    byDays.to = m_plan.today.addDays(-30);
    return {measure(QStringLiteral("Audit"), QStringLiteral("first page (200, newest first)"), page({}, {})),
            measure(QStringLiteral("Audit"), QStringLiteral("filter: actor contains"), page(byActor, {})),
            measure(QStringLiteral("Audit"), QStringLiteral("filter: action starts with"), page(byAction, {})),
            measure(QStringLiteral("Audit"), QStringLiteral("filter: target contains"), page(byTarget, {})),
            measure(QStringLiteral("Audit"), QStringLiteral("filter: ten days a month ago"), page(byDays, {})),
            measure(QStringLiteral("Audit"), QStringLiteral("sort by target"), page({}, AuditOrder{AuditOrder::Key::Target, Qt::AscendingOrder}))};
}

QList<ViewFigure> BigDataViews::statistics()
{
    // With no worker keeping the figures the view reads every user's bits (as `lanternd stats`
    // does); then one worker's turn keeps them (KeptMonthStats, once a minute) and the view reads
    // that one key, as it does while any worker runs.
    RedisClient redis(m_config.redis);
    const KeySchema keys(m_config.keyPrefix, m_config.shards);
    redis.command({"DEL", keys.keptMonthStats(m_plan.today)});
    ViewFigure blocks = statisticsFigure(QStringLiteral("this month at %1 users, no worker keeping the figures (read from the blocks)").arg(m_plan.size.users));
    blocks.goalFirstMs = 0;  // not what a console costs while workers run: out of the consoles' rows
    ViewFigure keep = measure(QStringLiteral("Check-in statistics"), QStringLiteral("a worker's turn: the month read and kept (KeptMonthStats, once a minute)"), [this] {
        auto client = std::make_shared<RedisClient>(m_config.redis);
        auto schema = std::make_shared<KeySchema>(m_config.keyPrefix, m_config.shards);
        return std::function<QString()>([this, client, schema] {
            const MonthStats stats = KeptMonthStats::keep(*client, *schema, m_plan.today, QDateTime::currentMSecsSinceEpoch());
            return QStringLiteral("%1 days, %2 active users kept").arg(stats.days.size()).arg(stats.activeUsers);
        });
    });
    keep.goalFirstMs = 0;
    ViewFigure kept = statisticsFigure(QStringLiteral("this month at %1 users (the figures a worker keeps)").arg(m_plan.size.users));
    kept.goalFirstMs = 1000;
    kept.goalRefreshMs = 1000;
    return {blocks, keep, kept};
}

ViewFigure BigDataViews::statisticsFigure(const QString &action)
{
    return measure(QStringLiteral("Check-in statistics"), action, [this] {
        auto service = std::make_shared<MonthStatsService>(m_config);
        auto serial = std::make_shared<quint64>(0);
        return std::function<QString()>([this, service, serial] {
            MonthStatsService *s = service.get();
            QString shown;
            QString failure;
            QObject::connect(s, &MonthStatsService::loaded, s, [&](quint64, const MonthStats &stats) {
                shown = QStringLiteral("%1 days, %2 active users").arg(stats.days.size()).arg(stats.activeUsers);
                if (stats.asOfMs)
                    shown += QStringLiteral(", as of %1 s before").arg(double(QDateTime::currentMSecsSinceEpoch() - *stats.asOfMs) / 1000.0, 0, 'f', 1);
            });
            QObject::connect(s, &MonthStatsService::loadFailed, s, [&](quint64, const QString &message) { failure = message; });
            s->load(++*serial, m_plan.today);
            QObject::disconnect(s, nullptr, s, nullptr);
            if (!failure.isEmpty())
                failed(QStringLiteral("Statistics"), failure, {});
            return shown;
        });
    });
}

QList<ViewFigure> BigDataViews::connections()
{
    return {measure(QStringLiteral("Connections"), QStringLiteral("check (PING, SQL, versions)"), [this] {
        auto tester = std::make_shared<ConnectionTester>();
        auto serial = std::make_shared<quint64>(0);
        return std::function<QString()>([this, tester, serial] {
            ConnectionTester *t = tester.get();
            QString shown;
            QObject::connect(t, &ConnectionTester::checked, t, [&](quint64, const ConnectionCheck &check) {
                shown = check.redisOk && check.sqlOk ? QStringLiteral("both up") : QStringLiteral("down");
            });
            t->check(++*serial, m_config);
            QObject::disconnect(t, nullptr, t, nullptr);
            if (shown != QLatin1String("both up"))
                failed(QStringLiteral("Connections"), shown, {});
            return shown;
        });
    })};
}

} // namespace lantern::bench
