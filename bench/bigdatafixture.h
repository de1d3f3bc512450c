#pragma once

#include "redis/keyschema.h"

#include <QDate>
#include <QProcessEnvironment>
#include <QString>
#include <QTextStream>

#include <functional>

namespace lantern {
class RedisClient;
class SqlConnection;
}

namespace lantern::bench {

/** The size of a company's data (issue 26): the full size is a 10,000,000-user company's, --quick
    a tenth of its users and of its big tables. */
struct BigDataSize {
    qint64 users = 10'000'000;
    int months = 12;
    int activePermille = 250;          // users who check in on a given day, per mille
    qint64 pastCampaigns = 10'000;
    qint64 pastEnvelopes = 100;        // per past campaign, every one grabbed and paid
    int liveCampaigns = 20;
    qint64 bigEnvelopes = 1'000'000;   // the biggest live campaign
    qint64 bigGrabs = 300'000;
    qint64 liveEnvelopes = 10'000;     // each other live campaign
    qint64 deadLetters = 100'000;      // over the live campaigns' dead-letter lists
    qint64 auditRows = 1'000'000;
    int workers = 1'000;
    int deadWorkers = 50;
    int liveWorkerTasks = 2;           // in each live worker's backup list
    int deadWorkerTasks = 20;          // in each dead worker's backup list

    /** --quick: the same shape, a tenth of the users, envelopes, audit rows and dead letters. */
    static BigDataSize quick();
    /** --smoke: the same shape at a size that fills in seconds (scripts/bench --smoke, CI). */
    static BigDataSize smoke();
};

/** Where the fixture's data is (the first past campaign is id 1, the first live one pastCampaigns + 1). */
struct BigDataPlan {
    BigDataSize size;
    QDate today;                       // the business day every command and view is told (--today)
    QDate reconcileDay() const { return today.addDays(-1); }
    qint64 bigCampaign() const { return size.pastCampaigns + 1; }
    qint64 firstLiveCampaign() const { return size.pastCampaigns + 1; }
    qint64 lastLiveCampaign() const { return size.pastCampaigns + size.liveCampaigns; }
    QString deadWorker(int n) const;   // n in 0 .. deadWorkers-1
    QString liveWorker(int n) const;   // n in 0 .. workers-deadWorkers-1
    /** Whether dense uid `uid` checked in on `day` by the fixture's own rule (C++ and SQL agree). */
    bool signs(qint64 uid, QDate day) const;
    /** The SQL of the same rule over a column `uidColumn`, for day `day`. */
    QString signsSql(const QString &uidColumn, QDate day) const;
    /** The make-up day of `uid` in `month`, or an invalid date (one user in 100 a month). */
    QDate makeupDay(qint64 uid, QDate month) const;
};

/** Fills a private Redis and MariaDB as a company of `plan.size` holds them, with the library's
    key schema and the migrations' tables: 12 months of check-in blocks with make-ups, the
    reconcile day's check-in log and points, past (closed, paid) and live campaigns (the biggest
    one grabbed from), dead letters over the live campaigns' lists, workers' heartbeats and backup
    lists (some dead), the closed campaigns' pools retired as workers retire them, the audit log. Pipelines and INSERT ... SELECT over MariaDB's sequence
    engine; every step is recorded in Redis when done, so a run cut short resumes where it was
    (and a step redone writes nothing twice: business keys, SET, INSERT IGNORE, depths checked). */
class BigDataFixture final {
public:
    /** `environment`: what a lanternd child is given (LANTERN_REDIS, LANTERN_DB, LANTERN_TODAY). */
    BigDataFixture(RedisClient &redis, SqlConnection &sql, const KeySchema &keys, BigDataPlan plan, QString lanternd,
                   QProcessEnvironment environment, QTextStream &log);

    /** Runs every step not done yet; prints one line per step with its time. */
    void fill();

    static QByteArray doneKey() { return QByteArrayLiteral("bigdata:fill"); }
    /** After the bench's `lanternd recover` re-queued them: the dead workers' tasks claimed into
        their backup lists again, so the next run on this fixture finds the tree it measures. */
    void replantDeadWorkers();

private:
    void step(const QString &name, const std::function<QString()> &body);
    QString checkinMonth(QDate month);
    QString checkinLog();
    QString pastCampaignsSql();
    QString pastCampaignsRedis();
    QString liveCampaigns();
    QString grabs();
    QString deadLetters();
    QString drain();
    QString workers();
    QString retirePools();
    QString auditLog();
    /** A worker's claims (RPOP from the big campaign's queue, LPUSH to its backup list), one
        entry at a time, and the worker in the set. */
    static void hold(QList<QByteArrayList> &commands, const KeySchema &keys, qint64 campaign, const QString &worker, int count);
    void run(QList<QByteArrayList> commands);

    RedisClient &m_redis;
    SqlConnection &m_sql;
    const KeySchema &m_keys;
    BigDataPlan m_plan;
    QString m_lanternd;
    QProcessEnvironment m_environment;
    QTextStream &m_log;
};

} // namespace lantern::bench
