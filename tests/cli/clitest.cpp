#include "clitest.h"

#include "token/usertoken.h"

#include "sql/sqlconnection.h"
#include "testservers.h"

#include <QAtomicInteger>
#include <QCoreApplication>
#include <QHostAddress>
#include <QJsonDocument>
#include <QProcess>
#include <QJsonObject>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QUrl>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include <csignal>
#include <sys/types.h>

#ifndef LANTERND_PATH
#error "LANTERND_PATH must name the lanternd binary (see tests/cli/CMakeLists.txt)"
#endif

namespace lantern::test::cli {

namespace {

QString requiredEnv(const char *name)
{
    const QString value = qEnvironmentVariable(name);
    if (value.isEmpty())
        throw std::runtime_error(std::string(name) + " is not set: run the tests through scripts/test, which starts the private servers");
    return value;
}

int freePort()
{
    QTcpServer server;
    if (!server.listen(QHostAddress::LocalHost, 0))
        throw std::runtime_error("cannot reserve a local port");
    const int port = server.serverPort();
    server.close();
    return port;
}

QTemporaryDir &sandboxHome()
{
    static QTemporaryDir dir;
    return dir;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Result

bool Result::isOneJsonObject() const
{
    if (!out.endsWith('\n') || out.count('\n') != 1)
        return false;
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(out, &error);
    return error.error == QJsonParseError::NoError && document.isObject();
}

QJsonObject Result::json() const
{
    return isOneJsonObject() ? QJsonDocument::fromJson(out).object() : QJsonObject();
}

QByteArray Result::describe() const
{
    return "exit " + QByteArray::number(exitCode) + "\nstdout: " + out + "\nstderr: " + err;
}

// ---------------------------------------------------------------------------------------------
// SQL targets

SqlTarget freshSql(const QString &dialect)
{
    SqlTarget target;
    target.dialect = dialect;
    if (dialect == QLatin1String("sqlite")) {
        target.db = sqliteUrl();
        target.url = QStringLiteral("sqlite://") + target.db.path;
        return target;
    }
    if (dialect != QLatin1String("mysql"))
        throw std::invalid_argument("unknown dialect");
    static QAtomicInteger<int> counter;
    const QString name = QStringLiteral("cli_%1_%2").arg(QCoreApplication::applicationPid()).arg(counter.fetchAndAddRelaxed(1));
    {
        SqlConnection server(mysqlUrl());
        server.exec(QStringLiteral("CREATE DATABASE `%1` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci").arg(name));
    }
    QUrl url(requiredEnv("LANTERN_TEST_MYSQL"));
    url.setPath(QLatin1Char('/') + name);
    target.url = url.toString();
    target.db = DbUrl::parse(target.url);
    return target;
}

void dropFreshDatabases()
{
    SqlConnection server(mysqlUrl());
    QSqlQuery query = server.exec(QStringLiteral("SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE ?"),
                                  {QStringLiteral("cli\\_%1\\_%").arg(QCoreApplication::applicationPid())});
    QStringList names;
    while (query.next())
        names << query.value(0).toString();
    for (const QString &name : std::as_const(names))
        server.exec(QStringLiteral("DROP DATABASE IF EXISTS `%1`").arg(name));
}

QStringList dialects()
{
    return {QStringLiteral("mysql"), QStringLiteral("sqlite")};
}

// ---------------------------------------------------------------------------------------------
// Servers

QString redisUrlText(int database)
{
    const QString base = requiredEnv("LANTERN_TEST_REDIS");
    return database == 0 ? base : base + QLatin1Char('/') + QString::number(database);
}

RedisUrl redisUrlOf(int database)
{
    return RedisUrl::parse(redisUrlText(database));
}

QString unreachableRedisUrl()
{
    return QStringLiteral("redis://127.0.0.1:%1").arg(freePort());
}

QString unreachableMysqlUrl()
{
    return QStringLiteral("mysql://root@127.0.0.1:%1/lantern_test").arg(freePort());
}

QString unreachableSqlUrl(const QString &dialect)
{
    // /dev/null is a file, so no directory can ever be created below it.
    return dialect == QLatin1String("mysql") ? unreachableMysqlUrl() : QStringLiteral("sqlite:///dev/null/lantern/lantern.db");
}

// ---------------------------------------------------------------------------------------------
// Running lanternd

WorkerProcess::WorkerProcess(const Lanternd &lanternd, const QString &id, const QProcessEnvironment &environment)
    : m_process(std::make_unique<QProcess>())
{
    QProcessEnvironment sandbox = sandboxEnvironment();
    sandbox.insert(environment);
    m_process->setProcessEnvironment(sandbox);
    m_process->start(QStringLiteral(LANTERND_PATH), lanternd.withDefaults({QStringLiteral("work"), QStringLiteral("--id"), id}));
    m_process->waitForStarted();
}

WorkerProcess::~WorkerProcess()
{
    if (m_process->state() != QProcess::NotRunning) {
        test::signalChild(m_process->processId(), SIGCONT);
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

bool WorkerProcess::started() const
{
    return m_process->processId() > 0;
}

bool WorkerProcess::running() const
{
    return m_process->state() == QProcess::Running;
}

qint64 WorkerProcess::pid() const
{
    return m_process->processId();
}

const QByteArray &WorkerProcess::err()
{
    m_err += m_process->readAllStandardError();
    return m_err;
}

bool WorkerProcess::stop(int timeoutMs)
{
    m_process->terminate();
    const bool finished = m_process->waitForFinished(timeoutMs);
    err();
    return finished && m_process->exitStatus() == QProcess::NormalExit && m_process->exitCode() == 0;
}

QByteArray WorkerProcess::out()
{
    return m_process->readAllStandardOutput();
}

QProcessEnvironment sandboxEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString &name : env.keys()) {
        if (name.startsWith(QLatin1String("LANTERN_")))
            env.remove(name);
    }
    const QString home = sandboxHome().path();
    env.insert(QStringLiteral("HOME"), home);
    env.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
    env.insert(QStringLiteral("USER"), QStringLiteral("cli-test"));
    // English messages whatever the developer's locale: the tests compare parts of stderr.
    for (const char *name : {"LANGUAGE", "LC_ALL", "LC_MESSAGES"})
        env.remove(QString::fromLatin1(name));
    env.insert(QStringLiteral("LANG"), QStringLiteral("C.UTF-8"));
    return env;
}

Lanternd::Lanternd(const QString &redisUrl, const QString &dbUrl, const QString &prefix, const QString &today)
{
    defaults.insert(QStringLiteral("redis"), redisUrl);
    defaults.insert(QStringLiteral("db"), dbUrl);
    defaults.insert(QStringLiteral("prefix"), prefix);
    if (!today.isEmpty())
        defaults.insert(QStringLiteral("today"), today);
}

QStringList Lanternd::withDefaults(const QStringList &arguments) const
{
    QStringList result = arguments;
    for (auto it = defaults.cbegin(); it != defaults.cend(); ++it) {
        const QString flag = QStringLiteral("--") + it.key();
        const bool given = std::any_of(arguments.cbegin(), arguments.cend(), [&flag](const QString &argument) {
            return argument == flag || argument.startsWith(flag + QLatin1Char('='));
        });
        if (!given)
            result << flag << it.value();
    }
    return result;
}

namespace {

void start(QProcess &process, const QStringList &arguments, const QProcessEnvironment &env)
{
    process.setProgram(QStringLiteral(LANTERND_PATH));
    process.setArguments(arguments);
    process.setProcessEnvironment(env);
    process.start();
}

Result finish(QProcess &process)
{
    Result result;
    if (!process.waitForStarted(10000)) {
        result.err = "could not start " LANTERND_PATH ": " + process.errorString().toUtf8();
        return result;
    }
    process.closeWriteChannel();
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished(10000);
        result.out = process.readAllStandardOutput();
        result.err = process.readAllStandardError() + "\n[lanternd did not finish within 60 s and was killed]";
        return result;
    }
    result.out = process.readAllStandardOutput();
    result.err = process.readAllStandardError();
    result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return result;
}

} // namespace

QString Lanternd::launchCampaign(const QStringList &createOptions, QByteArray *failure) const
{
    const Result created = run(QStringList{QStringLiteral("campaign"), QStringLiteral("create")} + createOptions);
    if (const QByteArray why = notOk(created); !why.isEmpty()) {
        *failure = why;
        return {};
    }
    const QString id = QString::number(created.json().value(QLatin1String("id")).toInteger());
    const Result launched = run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), id});
    if (const QByteArray why = notOk(launched); !why.isEmpty()) {
        *failure = why;
        return {};
    }
    return id;
}

Result Lanternd::run(const QStringList &arguments) const
{
    return runConcurrently({arguments}).constFirst();
}

QList<Result> Lanternd::runConcurrently(const QList<QStringList> &runs) const
{
    QProcessEnvironment env = sandboxEnvironment();
    for (const QString &name : extraEnv.keys())
        env.insert(name, extraEnv.value(name));
    std::vector<std::unique_ptr<QProcess>> processes;
    for (const QStringList &arguments : runs) {
        processes.push_back(std::make_unique<QProcess>());
        start(*processes.back(), withDefaults(arguments), env);
    }
    QList<Result> results;
    for (const auto &process : processes)
        results << finish(*process);
    return results;
}

Result Lanternd::runBytes(const QList<QByteArray> &arguments) const
{
    QStringList asText;
    for (const QByteArray &argument : arguments)
        asText << QString::fromUtf8(argument);
    QList<QByteArray> all = arguments;
    const QStringList withGlobals = withDefaults(asText);
    for (qsizetype i = asText.size(); i < withGlobals.size(); ++i)
        all << withGlobals.at(i).toUtf8();
    // Each argument travels as octal escapes that printf turns back into bytes; the trailing dot
    // keeps the command substitution from eating a final newline.
    QByteArray script = "set --\n";
    for (const QByteArray &argument : std::as_const(all)) {
        QByteArray escaped;
        for (const char byte : argument)
            escaped += "\\0" + QByteArray::number(static_cast<unsigned char>(byte), 8);
        script += "a=$(printf '%b.' '" + escaped + "'); set -- \"$@\" \"${a%.}\"\n";
    }
    script += "exec '" LANTERND_PATH "' \"$@\"\n";
    QProcessEnvironment env = sandboxEnvironment();
    for (const QString &name : extraEnv.keys())
        env.insert(name, extraEnv.value(name));
    QProcess process;
    process.setProgram(QStringLiteral("/bin/sh"));
    process.setArguments({QStringLiteral("-c"), QString::fromUtf8(script)});
    process.setProcessEnvironment(env);
    process.start();
    return finish(process);
}

// ---------------------------------------------------------------------------------------------
// Snapshots

namespace {

qint64 persistentKeys(RedisClient &redis)
{
    const qint64 size = redis.command({QByteArrayLiteral("DBSIZE")}).toInteger();
    const QByteArray line = "db" + QByteArray::number(redis.url().db) + ':';
    for (const QByteArray &entry : redis.command({QByteArrayLiteral("INFO"), QByteArrayLiteral("keyspace")}).toBytes().split('\n')) {
        if (!entry.startsWith(line))
            continue;
        for (const QByteArray &field : entry.trimmed().mid(line.size()).split(',')) {
            if (field.startsWith("expires="))
                return size - field.mid(8).toLongLong();
        }
    }
    return size;  // no line: an empty database
}

} // namespace

RedisSnapshot snapshotRedis(RedisClient &redis, const QByteArray &prefix)
{
    RedisSnapshot snapshot;
    snapshot.dbSize = persistentKeys(redis);
    // SCAN is per node: every master's keys, each with a cursor of its own (one on one server).
    for (const auto &[master, ignored] : redis.onEveryMaster({QByteArrayLiteral("PING")})) {
        QByteArray cursor = "0";
        do {
            const RedisValue reply = redis.onMaster(master, {QByteArrayLiteral("SCAN"), cursor, QByteArrayLiteral("MATCH"), prefix + '*',
                                                             QByteArrayLiteral("COUNT"), QByteArrayLiteral("1000")});
            cursor = reply.elements.at(0).toBytes();
            for (const RedisValue &key : reply.elements.at(1).elements)
                snapshot.keys.insert(key.toBytes(), QByteArray());
        } while (cursor != "0");
    }
    for (auto it = snapshot.keys.begin(); it != snapshot.keys.end(); ++it)
        it.value() = redis.command({QByteArrayLiteral("DUMP"), it.key()}).toBytes();
    return snapshot;
}

void deleteKeys(RedisClient &redis, const QByteArray &prefix)
{
    const RedisSnapshot snapshot = snapshotRedis(redis, prefix);
    for (auto it = snapshot.keys.cbegin(); it != snapshot.keys.cend(); ++it)
        redis.command({QByteArrayLiteral("UNLINK"), it.key()});
}

QByteArray RedisSnapshot::describeChange(const RedisSnapshot &after) const
{
    QByteArray text = "keys without a TTL " + QByteArray::number(dbSize) + " -> " + QByteArray::number(after.dbSize);
    for (auto it = after.keys.cbegin(); it != after.keys.cend(); ++it) {
        if (!keys.contains(it.key()))
            text += "\n  new key " + it.key();
        else if (keys.value(it.key()) != it.value())
            text += "\n  changed key " + it.key();
    }
    for (auto it = keys.cbegin(); it != keys.cend(); ++it) {
        if (!after.keys.contains(it.key()))
            text += "\n  deleted key " + it.key();
    }
    return text;
}

SqlRowsSnapshot snapshotSqlRows(const DbUrl &db, const QStringList &tables)
{
    SqlConnection connection(db);
    SqlRowsSnapshot snapshot;
    for (const QString &table : tables) {
        QSqlQuery query = connection.exec(QStringLiteral("SELECT * FROM ") + table);
        QByteArrayList rows;
        while (query.next()) {
            const QSqlRecord record = query.record();
            QJsonObject row;
            for (int i = 0; i < record.count(); ++i) {
                const QVariant value = record.value(i);
                if (value.isNull())
                    row.insert(record.fieldName(i), QJsonValue::Null);
                else if (value.typeId() == QMetaType::QByteArray)
                    row.insert(record.fieldName(i), QString::fromLatin1("0x" + value.toByteArray().toHex()));
                else
                    row.insert(record.fieldName(i), value.toString());
            }
            rows << QJsonDocument(row).toJson(QJsonDocument::Compact);
        }
        std::sort(rows.begin(), rows.end());
        snapshot.tables.insert(table, rows);
    }
    return snapshot;
}

QByteArray SqlRowsSnapshot::describeChange(const SqlRowsSnapshot &after) const
{
    QByteArray text;
    for (auto it = after.tables.cbegin(); it != after.tables.cend(); ++it) {
        const QByteArrayList before = tables.value(it.key());
        for (const QByteArray &row : it.value()) {
            if (!before.contains(row))
                text += "\n  " + it.key().toUtf8() + " new row " + row;
        }
        for (const QByteArray &row : before) {
            if (!it.value().contains(row))
                text += "\n  " + it.key().toUtf8() + " lost row " + row;
        }
    }
    return text.isEmpty() ? QByteArrayLiteral("no row changed") : "SQL rows changed:" + text;
}

qint64 sqlNumber(const DbUrl &db, const QString &query, const QVariantList &values)
{
    SqlConnection connection(db);
    QSqlQuery result = connection.exec(query, values);
    return result.next() ? result.value(0).toLongLong() : -1;
}

SqlSnapshot snapshotSql(const DbUrl &db)
{
    SqlConnection connection(db);
    const auto number = [&connection](const QString &query) {
        QSqlQuery result = connection.exec(query);
        return result.next() ? result.value(0).toLongLong() : -1;
    };
    SqlSnapshot snapshot;
    snapshot.checkins = number(QStringLiteral("SELECT COUNT(*) FROM checkin_log"));
    snapshot.ledger = number(QStringLiteral("SELECT COUNT(*) FROM points_ledger"));
    snapshot.audit = number(QStringLiteral("SELECT COUNT(*) FROM audit_log"));
    snapshot.pointsTotal = number(QStringLiteral("SELECT COALESCE(SUM(delta), 0) FROM points_ledger"));
    return snapshot;
}

QByteArray SqlSnapshot::describe() const
{
    return QStringLiteral("checkin_log %1, points_ledger %2, audit_log %3, points %4")
            .arg(checkins)
            .arg(ledger)
            .arg(audit)
            .arg(pointsTotal)
            .toUtf8();
}

QByteArray notOk(const Result &result)
{
    if (result.exitCode == 0 && result.isOneJsonObject())
        return {};
    return "expected exit 0 and one JSON object on stdout; " + result.describe();
}

QByteArray jsonMismatch(const Result &result, const QJsonObject &expected)
{
    if (const QByteArray why = notOk(result); !why.isEmpty())
        return why;
    if (result.json() == expected)
        return {};
    return "got      " + result.out.trimmed() + "\nexpected " + QJsonDocument(expected).toJson(QJsonDocument::Compact);
}

QStringList sortedKeys(const QJsonObject &object)
{
    QStringList keys = object.keys();
    keys.sort();
    return keys;
}

QString bearerWithSecret(const QString &secret, qint64 uid)
{
    return UserTokens(QStringLiteral("lantern"), secret.toUtf8()).mintBearer(uid, QDateTime::currentSecsSinceEpoch() + 3600);
}

} // namespace lantern::test::cli
