#pragma once

// Shared fixture of the lanternd process tests: runs the real binary with QProcess against the
// private servers of scripts/test, and snapshots Redis and SQL to prove what a run changed.

#include "redis/redisclient.h"
#include "sql/dburl.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <memory>

class QProcess;

#include <QVariantList>

namespace lantern::test::cli {

/** One finished lanternd run. */
struct Result {
    int exitCode = -1;  // -1: it crashed or did not finish
    QByteArray out;
    QByteArray err;

    /** stdout as DESIGN §6 wants it: exactly one JSON object on one line; empty when it is not. */
    QJsonObject json() const;
    bool isOneJsonObject() const;
    /** Everything about the run, for failure messages. */
    QByteArray describe() const;
};

/** Where a test keeps its SQL: a fresh SQLite file or a fresh MySQL database of its own. */
struct SqlTarget {
    QString dialect;  // "mysql" or "sqlite"
    QString url;      // as lanternd takes it
    DbUrl db;
};

/** A new empty database of `dialect`. MySQL ones are private databases on the test server
    (CREATE DATABASE; dropped when the process ends), so suites running in parallel never see
    or reset each other's rows the way a shared lantern_test would. */
SqlTarget freshSql(const QString &dialect);
/** Drops the MySQL databases freshSql made in this process (call from cleanupTestCase). */
void dropFreshDatabases();
/** Both dialects, as data rows take them. */
QStringList dialects();

/** The private test Redis: its URL for lanternd (optionally another logical database). */
QString redisUrlText(int database = 0);
RedisUrl redisUrlOf(int database = 0);

/** A URL whose port nothing listens on (a port the kernel just handed out and took back). */
QString unreachableRedisUrl();
QString unreachableMysqlUrl();
/** For SQLite, "unreachable" is a path whose directory cannot be created. */
QString unreachableSqlUrl(const QString &dialect);

/** Runs lanternd with a sandboxed environment (no inherited LANTERN_*, HOME and XDG dirs in a
    temp dir, so a forgotten --db can never touch a real file; LANG=C.UTF-8, so messages are in
    English unless a test sets LANG or passes --lang). Options listed in `defaults`
    are appended unless the arguments already give them (as `--name v` or `--name=v`). */
class Lanternd final {
public:
    Lanternd() = default;
    Lanternd(const QString &redisUrl, const QString &dbUrl, const QString &prefix, const QString &today = {});

    /** Global options appended when absent: name (without --) -> value. */
    QMap<QString, QString> defaults;
    /** Extra environment for the child, on top of the sandbox. */
    QProcessEnvironment extraEnv;

    Result run(const QStringList &arguments) const;
    /** Like run, but each argument is raw bytes, delivered to lanternd unchanged (through
        /bin/sh and printf), so a test can pass what no QString can: bytes that are not UTF-8. */
    Result runBytes(const QList<QByteArray> &arguments) const;
    /** Starts every run at once and waits for all of them: for races between processes. */
    QList<Result> runConcurrently(const QList<QStringList> &runs) const;
    /** The arguments that `run` would pass (defaults added). */
    QStringList withDefaults(const QStringList &arguments) const;
    /** `campaign create` with `createOptions` (--name, --total-cents, ...), then `campaign
        launch`: the new campaign's id, or an empty id and the failed run in `failure`. */
    QString launchCampaign(const QStringList &createOptions, QByteArray *failure) const;
};

/** The environment every lanternd child gets before a test adds to it. */
QProcessEnvironment sandboxEnvironment();

/** A long-running `lanternd work --id ID` (the Lanternd's defaults added), started at once with
    the sandboxed environment; continued (after a SIGSTOP) and killed when it goes out of scope. */
class WorkerProcess final {
public:
    /** `environment`: variables set on top of the sandboxed environment (LANTERN_PAYOUT_FAIL_RATE, ...). */
    WorkerProcess(const Lanternd &lanternd, const QString &id, const QProcessEnvironment &environment = {});
    ~WorkerProcess();
    Q_DISABLE_COPY_MOVE(WorkerProcess)

    bool started() const;
    bool running() const;
    qint64 pid() const;
    /** Everything it has written to stderr so far. */
    const QByteArray &err();
    /** SIGTERM, then waits up to `timeoutMs`; true when it exited normally with code 0. */
    bool stop(int timeoutMs);
    /** What it printed on stdout (its stats, once stopped). */
    QByteArray out();

private:
    std::unique_ptr<QProcess> m_process;
    QByteArray m_err;
};

/** Every key under a prefix with its DUMP, and the server's key count. */
struct RedisSnapshot {
    /** DBSIZE less the keys that have a time to live (INFO keyspace's expires): a lock or a
        heartbeat of another suite in the same database that expires meanwhile is no change a
        command made; a key without one that appears or goes anywhere in the database is. */
    qint64 dbSize = -1;
    QMap<QByteArray, QByteArray> keys;

    bool operator==(const RedisSnapshot &other) const = default;
    QByteArray describeChange(const RedisSnapshot &after) const;
};
RedisSnapshot snapshotRedis(RedisClient &redis, const QByteArray &prefix);
/** Deletes every key under a prefix (SCAN + UNLINK), so a suite leaves its database clean. */
void deleteKeys(RedisClient &redis, const QByteArray &prefix);

/** Row counts of the tables commands write, and the ledger total. */
struct SqlSnapshot {
    qint64 checkins = -1;
    qint64 ledger = -1;
    qint64 audit = -1;
    qint64 pointsTotal = -1;

    bool operator==(const SqlSnapshot &other) const = default;
    QByteArray describe() const;
};
SqlSnapshot snapshotSql(const DbUrl &db);

/** Every row of some tables, each rendered as a JSON object of its columns and sorted: what a
    run must leave byte-for-byte as it was when it is said to write nothing. */
struct SqlRowsSnapshot {
    QMap<QString, QByteArrayList> tables;  // table -> its rows, sorted

    bool operator==(const SqlRowsSnapshot &other) const = default;
    /** The rows that appeared or disappeared, table by table. */
    QByteArray describeChange(const SqlRowsSnapshot &after) const;
};
/** `tables` are trusted identifiers (they are pasted into SELECT * FROM). */
SqlRowsSnapshot snapshotSqlRows(const DbUrl &db, const QStringList &tables);

/** A single number from SQL, e.g. a COUNT(*); -1 when the query returns no row. */
qint64 sqlNumber(const DbUrl &db, const QString &query, const QVariantList &values = {});

/** A bearer for `uid` signed with `secret` (the default token salt), valid for an hour. */
QString bearerWithSecret(const QString &secret, qint64 uid);

/** Keys of a JSON object, sorted, for exact-shape comparisons. */
QStringList sortedKeys(const QJsonObject &object);

/** Why `result` is not a successful run printing exactly one JSON object; empty when it is. */
QByteArray notOk(const Result &result);
/** Why `result` is not a successful run printing exactly `expected`; empty when it is. */
QByteArray jsonMismatch(const Result &result, const QJsonObject &expected);

} // namespace lantern::test::cli

/** Fails the test unless `result` exited 0 and printed exactly one JSON object. */
#define LANTERND_VERIFY_OK(result)                                                                                    \
    do {                                                                                                              \
        const QByteArray lantern_why_ = lantern::test::cli::notOk(result);                                            \
        QVERIFY2(lantern_why_.isEmpty(), lantern_why_.constData());                                                   \
    } while (false)

/** Declares `id`, the id of a campaign created with `createOptions` and launched; fails the test
    when either command does. */
#define LANTERND_LAUNCH_CAMPAIGN(id, lanternd, createOptions)                                                         \
    QString id;                                                                                                       \
    do {                                                                                                              \
        QByteArray lantern_why_;                                                                                      \
        id = (lanternd).launchCampaign(createOptions, &lantern_why_);                                                 \
        QVERIFY2(!id.isEmpty(), lantern_why_.constData());                                                            \
    } while (false)

/** Fails the test unless `result` exited 0 and printed exactly `expected` (keys and values). */
#define LANTERND_COMPARE_JSON(result, expected)                                                                       \
    do {                                                                                                              \
        const QByteArray lantern_why_ = lantern::test::cli::jsonMismatch((result), (expected));                       \
        QVERIFY2(lantern_why_.isEmpty(), lantern_why_.constData());                                                   \
    } while (false)
