// Who may do what, enforced by MariaDB and Redis (issue 25): every lanternd action under every
// role, allowed or refused with exit 5 and nothing written; what raw redis-cli and mariadb
// clients of an operator's account cannot do; the audit's account that no client can forge; the
// four-eyes rule on big campaigns; the whole flow under the least-privileged accounts.
#include "accessfixture.h"
#include "clitest.h"
#include "serveprocess.h"

#include "access/role.h"
#include "core/errors.h"
#include "envelope/campaignschedule.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

#include <memory>

namespace tst_cli_access {

using namespace lantern;
using namespace lantern::test;
using namespace lantern::test::cli;

namespace {

const QStringList Tables{QStringLiteral("audit_log"), QStringLiteral("campaign"), QStringLiteral("envelope"), QStringLiteral("grab"),
                         QStringLiteral("payout"), QStringLiteral("checkin_log"), QStringLiteral("points_ledger"),
                         QStringLiteral("grab_refused"), QStringLiteral("campaign_schedule")};
const QStringList OperatorRoles{QStringLiteral("viewer"), QStringLiteral("support"), QStringLiteral("manager"), QStringLiteral("oncall")};
const QStringList RoleNames{QStringLiteral("viewer"), QStringLiteral("support"), QStringLiteral("manager"), QStringLiteral("oncall"),
                        QStringLiteral("worker"), QStringLiteral("api"), QStringLiteral("admin")};

std::unique_ptr<AccessFixture> s_fixture;

QStringList words(const char *text)
{
    return QString::fromLatin1(text).split(QLatin1Char(' '));
}

/** A small campaign (below the four-eyes bound) made by the set-up's account: its id. */
QString campaignBy(const Lanternd &lanternd, bool launch, QByteArray *failure)
{
    const Result created = lanternd.run(words("campaign create --name matrix --total-cents 1000 --count 10"));
    if (created.exitCode != 0) {
        *failure = created.describe();
        return {};
    }
    const QString id = QString::number(created.json().value(QStringLiteral("id")).toInteger());
    if (launch) {
        const Result launched = lanternd.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), id});
        if (launched.exitCode != 0) {
            *failure = launched.describe();
            return {};
        }
    }
    return id;
}

} // namespace

class TestCliAccess final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void installTwiceChangesNothing();
    void operatorLifecycle();
    void matrix_data();
    void matrix();
    void rawClientsCannotWrite_data();
    void rawClientsCannotWrite();
    void noOperatorRunsDangerousCommands_data();
    void noOperatorRunsDangerousCommands();
    void serverRefusalReadsTheSame();
    void actorIsTheAccount();
    void fourEyes();
    void leastPrivilegedFlow();
    void ledgerRefusesAForgedLaunch();
    void scheduledLaunchWithoutApprovalIsMissed();
};

void TestCliAccess::initTestCase()
{
    s_fixture = std::make_unique<AccessFixture>();
    LANTERND_VERIFY_OK(s_fixture->admin().run({QStringLiteral("migrate")}));
    LANTERND_VERIFY_OK(s_fixture->admin().run({QStringLiteral("access"), QStringLiteral("install")}));
    QByteArray failure;
    for (const QString &role : RoleNames)
        QVERIFY2(s_fixture->addAccount(role, role, &failure), failure.constData());
    QVERIFY2(s_fixture->addAccount(QStringLiteral("manager2"), QStringLiteral("manager"), &failure), failure.constData());
}

void TestCliAccess::cleanupTestCase()
{
    s_fixture.reset();
    dropFreshDatabases();
}

void TestCliAccess::installTwiceChangesNothing()
{
    const auto grants = [] {
        SqlConnection root(s_fixture->sql().db);
        QStringList all;
        for (const QString &role : RoleNames) {
            QSqlQuery query = root.exec(QStringLiteral("SHOW GRANTS FOR `%1_%2`").arg(s_fixture->sql().db.database, role));
            while (query.next())
                all << query.value(0).toString();
        }
        all.sort();
        return all;
    };
    const QStringList before = grants();
    QVERIFY(before.size() > RoleNames.size());
    LANTERND_VERIFY_OK(s_fixture->admin().run({QStringLiteral("access"), QStringLiteral("install")}));
    QCOMPARE(grants(), before);
}

void TestCliAccess::operatorLifecycle()
{
    const Lanternd &admin = s_fixture->admin();
    const QString name = s_fixture->accountName(QStringLiteral("carol"));
    const Result added = admin.run({QStringLiteral("operator"), QStringLiteral("add"), QStringLiteral("--name"), name, QStringLiteral("--role"),
                                    QStringLiteral("viewer")});
    LANTERND_VERIFY_OK(added);
    const QString password = added.json().value(QStringLiteral("password")).toString();
    QCOMPARE(password.size(), 24);  // generated, printed once
    QCOMPARE(added.json().value(QStringLiteral("redis_nodes")).toArray().size(), 1);  // the test Redis, a master without replicas
    QVERIFY2(admin.run({QStringLiteral("operator"), QStringLiteral("add"), QStringLiteral("--name"), name, QStringLiteral("--role"),
                        QStringLiteral("viewer")})
                             .exitCode
                     == 4,
             "a second add of the same name is refused");
    const QJsonArray listed = admin.run({QStringLiteral("operator"), QStringLiteral("list")}).json().value(QStringLiteral("operators")).toArray();
    QVERIFY(listed.contains(QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("role"), QStringLiteral("viewer")}}));

    DbUrl url = s_fixture->sql().db;
    url.user = name;
    url.password = password;
    RedisUrl redisUrl = RedisUrl::parse(s_fixture->redisUrl());
    redisUrl.user = name;
    redisUrl.password = password;
    { SqlConnection asCarol(url); RedisClient redis(redisUrl); QCOMPARE(redis.command({"PING"}).toBytes(), QByteArray("PONG")); }

    const Result rotated = admin.run({QStringLiteral("operator"), QStringLiteral("rotate"), QStringLiteral("--name"), name});
    LANTERND_VERIFY_OK(rotated);
    QVERIFY_THROWS_EXCEPTION(SqlUnavailableError, SqlConnection{url});  // the old password no longer opens MariaDB
    QVERIFY_THROWS_EXCEPTION(UnavailableError, RedisClient(redisUrl).command({"PING"}));  // nor Redis
    url.password = redisUrl.password = rotated.json().value(QStringLiteral("password")).toString();

    const Result promoted = admin.run({QStringLiteral("operator"), QStringLiteral("set-role"), QStringLiteral("--name"), name,
                                       QStringLiteral("--role"), QStringLiteral("oncall")});
    LANTERND_VERIFY_OK(promoted);
    url.password = promoted.json().value(QStringLiteral("password")).toString();
    {
        SqlConnection asCarol(url);
        QSqlQuery role = asCarol.exec(QStringLiteral("SELECT CURRENT_ROLE()"));
        QVERIFY(role.next());
        QCOMPARE(role.value(0).toString(), s_fixture->sql().db.database + QStringLiteral("_oncall"));
    }
    LANTERND_VERIFY_OK(admin.run({QStringLiteral("operator"), QStringLiteral("remove"), QStringLiteral("--name"), name}));
    QVERIFY_THROWS_EXCEPTION(SqlUnavailableError, SqlConnection{url});
    RedisClient root(RedisUrl::parse(s_fixture->redisUrl()));
    QVERIFY(root.command({"ACL", "GETUSER", name.toUtf8()}).isNil());
}

void TestCliAccess::matrix_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QString>("command");  // with CAMPAIGN (a live one) or DRAFT in place of an id
    const QStringList commands{
            QStringLiteral("campaign show --id CAMPAIGN"),
            QStringLiteral("verify"),
            QStringLiteral("queues"),
            QStringLiteral("campaign create --name m --total-cents 1000 --count 10"),
            QStringLiteral("campaign launch --id DRAFT"),
            QStringLiteral("campaign pause --id CAMPAIGN"),
            QStringLiteral("campaign close --id CAMPAIGN"),
            QStringLiteral("makeup --uid 77 --date 2025-03-08 --reason outage"),
            QStringLiteral("reconcile --date 2025-03-09"),
            QStringLiteral("recover"),
            QStringLiteral("switch --feature grab --state on"),
            QStringLiteral("grab --campaign CAMPAIGN --uid 5"),
            QStringLiteral("checkin --uid 6"),
            QStringLiteral("work --once"),
            QStringLiteral("migrate"),
            QStringLiteral("operator list"),
    };
    for (const QString &role : RoleNames) {
        for (const QString &command : commands)
            QTest::newRow(qPrintable(role + QStringLiteral(": ") + command)) << role << command;
    }
}

void TestCliAccess::matrix()
{
    QFETCH(QString, role);
    QFETCH(QString, command);
    QByteArray failure;
    const QString live = campaignBy(s_fixture->admin(), true, &failure);
    QVERIFY2(!live.isEmpty(), failure.constData());
    const QString draft = campaignBy(s_fixture->admin(), false, &failure);
    QVERIFY2(!draft.isEmpty(), failure.constData());
    const QStringList arguments = QString(command).replace(QLatin1String("CAMPAIGN"), live).replace(QLatin1String("DRAFT"), draft).split(QLatin1Char(' '));
    const QString words = arguments.at(0) == QLatin1String("campaign") || arguments.at(0) == QLatin1String("operator")
            ? arguments.mid(0, 2).join(QLatin1Char(' '))
            : arguments.at(0);
    const access::Action action = *access::Roles::actionOfCommand(words);
    const bool allowed = access::Roles::allows(*access::Roles::fromName(role), action);

    RedisClient redis(RedisUrl::parse(s_fixture->redisUrl()));
    const RedisSnapshot redisBefore = snapshotRedis(redis, s_fixture->prefix().toUtf8());
    const SqlRowsSnapshot sqlBefore = snapshotSqlRows(s_fixture->sql().db, Tables);
    const Result result = s_fixture->as(role).run(arguments);
    if (allowed) {
        LANTERND_VERIFY_OK(result);
        return;
    }
    const QString message = QStringLiteral("the account %1 (%2) may not %3").arg(s_fixture->accountName(role), role, access::Roles::actionText(action));
    QVERIFY2(result.exitCode == 5, result.describe().constData());
    QCOMPARE(result.json(), (QJsonObject{{QStringLiteral("error"), QStringLiteral("forbidden")}, {QStringLiteral("message"), message}}));
    const RedisSnapshot redisAfter = snapshotRedis(redis, s_fixture->prefix().toUtf8());
    QVERIFY2(redisAfter.keys == redisBefore.keys, redisBefore.describeChange(redisAfter).constData());
    const SqlRowsSnapshot sqlAfter = snapshotSqlRows(s_fixture->sql().db, Tables);
    QVERIFY2(sqlAfter == sqlBefore, sqlBefore.describeChange(sqlAfter).constData());
}

void TestCliAccess::rawClientsCannotWrite_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QStringList>("redisCommand");  // KEY: the live campaign's key of that name
    QTest::addColumn<QString>("sql");               // ID: the live campaign's id
    for (const QString &role : {QStringLiteral("viewer"), QStringLiteral("support")}) {
        const auto row = [&](const char *name, const QStringList &redisCommand, const char *sql) {
            QTest::newRow(qPrintable(role + QStringLiteral(": ") + QLatin1String(name))) << role << redisCommand << QString::fromLatin1(sql);
        };
        row("set the campaign live / UPDATE its status", words("HSET meta status live"), "UPDATE campaign SET status = 'closed' WHERE id = ID");
        row("push envelopes into the pool / change its amounts", words("RPUSH pool 999:100000"), "UPDATE envelope SET amount_cents = 1 WHERE campaign_id = ID");
        row("take a queued payout / add a grab", words("LPOP tasks"), "INSERT INTO grab (campaign_id, seq, uid, amount_cents, grabbed_at_ms) VALUES (ID, 1, 9, 1, 1)");
        row("delete the dead letters / the audit", words("DEL dead"), "DELETE FROM audit_log");
        row("move a backup list / edit the audit", words("RENAME tasks backup:x"), "UPDATE audit_log SET actor = 'nobody'");
        row("pay / mark a payout paid", words("HSET draws 9 1:100"), "UPDATE payout SET status = 'paid'");
    }
    QTest::newRow("viewer: write a check-in bit / a check-in row") << QStringLiteral("viewer") << words("SETBIT checkin 1 1")
                                                                    << QStringLiteral("INSERT INTO checkin_log (uid, day, kind, signed_at) VALUES (1, '2025-03-01', 'normal', 1)");
}

void TestCliAccess::rawClientsCannotWrite()
{
    QFETCH(QString, role);
    QFETCH(QStringList, redisCommand);
    QFETCH(QString, sql);
    QByteArray failure;
    const QString id = campaignBy(s_fixture->admin(), true, &failure);
    QVERIFY2(!id.isEmpty(), failure.constData());
    const QByteArray tag = s_fixture->prefix().toUtf8() + "{cp:" + id.toUtf8() + "}:";
    QByteArrayList command;
    for (const QString &word : redisCommand)
        command << word.toUtf8();
    command[1] = command.at(1) == "checkin" ? QByteArray(s_fixture->prefix().toUtf8() + "{ck:0}:mb:0:2503") : QByteArray(tag + command.at(1));
    if (command.at(0) == "RENAME")
        command[2] = tag + command.at(2);

    RedisClient redis(RedisUrl::parse(s_fixture->redisUrl()));
    const RedisSnapshot redisBefore = snapshotRedis(redis, s_fixture->prefix().toUtf8());
    const SqlRowsSnapshot sqlBefore = snapshotSqlRows(s_fixture->sql().db, Tables);
    RedisClient asRole(s_fixture->redisUrlAs(role));
    QVERIFY_THROWS_EXCEPTION(ForbiddenError, asRole.command(command));
    SqlConnection sqlAsRole(s_fixture->dbUrlAs(role));
    QVERIFY_THROWS_EXCEPTION(ForbiddenError, sqlAsRole.exec(QString(sql).replace(QLatin1String("ID"), id)));
    const RedisSnapshot redisAfter = snapshotRedis(redis, s_fixture->prefix().toUtf8());
    QVERIFY2(redisAfter.keys == redisBefore.keys, redisBefore.describeChange(redisAfter).constData());
    QVERIFY(sqlBefore == snapshotSqlRows(s_fixture->sql().db, Tables));
}

void TestCliAccess::noOperatorRunsDangerousCommands_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QStringList>("command");
    const QList<QStringList> commands{words("FLUSHALL"), words("FLUSHDB"), words("CONFIG GET maxmemory"), words("SCRIPT FLUSH"),
                                      QStringList{QStringLiteral("SCRIPT"), QStringLiteral("LOAD"), QStringLiteral("return 1")},
                                      words("ACL LIST"), words("ACL SETUSER mallory on nopass +@all ~*"), words("DEBUG SLEEP 0"),
                                      words("KEYS *"), words("GET outside:key"), words("SET outside:key 1")};
    for (const QString &role : OperatorRoles) {
        for (const QStringList &command : commands)
            QTest::newRow(qPrintable(role + QStringLiteral(": ") + command.join(QLatin1Char(' ')))) << role << command;
    }
}

void TestCliAccess::noOperatorRunsDangerousCommands()
{
    QFETCH(QString, role);
    QFETCH(QStringList, command);
    QByteArrayList args;
    for (const QString &word : command)
        args << word.toUtf8();
    // The rules themselves (the server may refuse some, DEBUG, for reasons of its own) ...
    RedisClient root(RedisUrl::parse(s_fixture->redisUrl()));
    QByteArrayList dryRun{"ACL", "DRYRUN", s_fixture->accountName(role).toUtf8()};
    const QByteArray verdict = root.command(dryRun + args).toBytes();
    QVERIFY2(verdict.startsWith("This user has no permissions"), verdict.constData());
    // ... and the account trying it (DEBUG: refused by the server's enable-debug-command anyway).
    RedisClient asRole(s_fixture->redisUrlAs(role));
    if (args.constFirst() != "DEBUG")
        QVERIFY_THROWS_EXCEPTION(ForbiddenError, asRole.command(args));
}

void TestCliAccess::serverRefusalReadsTheSame()
{
    // Rights taken away behind Lantern's back: the account's role is revoked, so Lantern's own
    // check has no role to go by and MariaDB refuses the INSERT; the message is the same, plain.
    QByteArray failure;
    QVERIFY2(s_fixture->addAccount(QStringLiteral("revoked"), QStringLiteral("manager"), &failure), failure.constData());
    SqlConnection root(s_fixture->sql().db);
    const QString account = s_fixture->accountName(QStringLiteral("revoked"));
    root.exec(QStringLiteral("REVOKE `%1_manager` FROM '%2'@'%'").arg(s_fixture->sql().db.database, account));
    root.exec(QStringLiteral("GRANT SELECT ON `%1`.* TO '%2'@'%'").arg(s_fixture->sql().db.database, account));
    const SqlRowsSnapshot sqlBefore = snapshotSqlRows(s_fixture->sql().db, Tables);
    const Result refused = s_fixture->as(QStringLiteral("revoked")).run(words("campaign create --name x --total-cents 100 --count 1"));
    QVERIFY2(refused.exitCode == 5, refused.describe().constData());
    QCOMPARE(refused.json(), (QJsonObject{{QStringLiteral("error"), QStringLiteral("forbidden")},
                                          {QStringLiteral("message"), QStringLiteral("the account %1 may not create campaigns")
                                                                              .arg(s_fixture->accountName(QStringLiteral("revoked")))}}));
    QVERIFY2(refused.err.contains("INSERT command denied"), refused.err.constData());  // the server's words, on stderr
    QVERIFY(sqlBefore == snapshotSqlRows(s_fixture->sql().db, Tables));
}

void TestCliAccess::actorIsTheAccount()
{
    const QString manager = s_fixture->accountName(QStringLiteral("manager"));
    // A raw INSERT that names someone else: the database writes the account that logged in.
    SqlConnection asManager(s_fixture->dbUrlAs(QStringLiteral("manager")));
    asManager.exec(QStringLiteral("INSERT INTO audit_log (at_ms, actor, action, target, detail, account) VALUES (1, 'bob', 'forged', 'x', '{}', 'bob')"));
    QCOMPARE(sqlNumber(s_fixture->sql().db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'forged' AND account = ?"), {manager}), 1);
    // lanternd under the account records it, and refuses another --operator.
    const Result other = s_fixture->as(QStringLiteral("manager")).run(words("campaign create --name x --total-cents 100 --count 1 --operator bob"));
    QVERIFY2(other.exitCode == 2, other.describe().constData());
    const Result created = s_fixture->as(QStringLiteral("manager")).run(words("campaign create --name x --total-cents 100 --count 1"));
    LANTERND_VERIFY_OK(created);
    QCOMPARE(sqlNumber(s_fixture->sql().db,
                       QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.create' AND actor = ? AND account = ? AND target = ?"),
                       {manager, manager, QStringLiteral("campaign:%1").arg(created.json().value(QStringLiteral("id")).toInteger())}),
             1);
}

void TestCliAccess::fourEyes()
{
    const Lanternd manager = s_fixture->as(QStringLiteral("manager"));
    const Lanternd manager2 = s_fixture->as(QStringLiteral("manager2"));
    const QString creator = s_fixture->accountName(QStringLiteral("manager"));
    const Result created = manager.run(words("campaign create --name big --total-cents 2000000 --count 100"));
    LANTERND_VERIFY_OK(created);
    QCOMPARE(created.json().value(QStringLiteral("needs_approval")).toBool(), true);
    QCOMPARE(created.json().value(QStringLiteral("created_by")).toString(), creator);
    const QString id = QString::number(created.json().value(QStringLiteral("id")).toInteger());

    RedisClient redis(RedisUrl::parse(s_fixture->redisUrl()));
    const RedisSnapshot redisBefore = snapshotRedis(redis, s_fixture->prefix().toUtf8());
    const SqlRowsSnapshot sqlBefore = snapshotSqlRows(s_fixture->sql().db, Tables);
    const Result early = manager.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), id});
    QVERIFY2(early.exitCode == 4 && early.json().value(QStringLiteral("error")).toString() == QLatin1String("needs_approval"), early.describe().constData());
    const Result own = manager.run({QStringLiteral("campaign"), QStringLiteral("approve"), QStringLiteral("--id"), id});
    QVERIFY2(own.exitCode == 4 && own.json().value(QStringLiteral("error")).toString() == QLatin1String("same_account"), own.describe().constData());
    // Raw UPDATEs by the creator: the database refuses both.
    SqlConnection raw(s_fixture->dbUrlAs(QStringLiteral("manager")));
    QVERIFY_THROWS_EXCEPTION(NamedRefusal, raw.exec(QStringLiteral("UPDATE campaign SET status = 'live' WHERE id = ?"), {id}));
    QVERIFY_THROWS_EXCEPTION(NamedRefusal, raw.exec(QStringLiteral("UPDATE campaign SET approved_by = 'manager2' WHERE id = ?"), {id}));
    QVERIFY(redisBefore.keys == snapshotRedis(redis, s_fixture->prefix().toUtf8()).keys);
    QVERIFY(sqlBefore == snapshotSqlRows(s_fixture->sql().db, Tables));

    const Result approved = manager2.run({QStringLiteral("campaign"), QStringLiteral("approve"), QStringLiteral("--id"), id});
    LANTERND_VERIFY_OK(approved);
    QCOMPARE(approved.json().value(QStringLiteral("approved_by")).toString(), s_fixture->accountName(QStringLiteral("manager2")));
    const Result launched = manager.run({QStringLiteral("campaign"), QStringLiteral("launch"), QStringLiteral("--id"), id});
    LANTERND_VERIFY_OK(launched);
    QCOMPARE(launched.json().value(QStringLiteral("status")).toString(), QStringLiteral("live"));
    QCOMPARE(sqlNumber(s_fixture->sql().db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.approve' AND account = ?"),
                       {s_fixture->accountName(QStringLiteral("manager2"))}),
             1);
}

void TestCliAccess::leastPrivilegedFlow()
{
    QByteArray failure;
    const QString id = campaignBy(s_fixture->as(QStringLiteral("manager")), true, &failure);
    QVERIFY2(!id.isEmpty(), failure.constData());
    Lanternd api = s_fixture->as(QStringLiteral("api"));
    const QString secret = QStringLiteral("access-test-secret");
    api.defaults.insert(QStringLiteral("token-secret"), secret);
    for (int uid = 1; uid <= 4; ++uid) {
        const Result grabbed = api.run({QStringLiteral("grab"), QStringLiteral("--campaign"), id, QStringLiteral("--uid"), QString::number(uid)});
        LANTERND_VERIFY_OK(grabbed);
        LANTERND_VERIFY_OK(api.run({QStringLiteral("checkin"), QStringLiteral("--uid"), QString::number(uid)}));
    }
    {
        // `serve` under the api account: check-ins and the rest of the grabs over HTTP.
        ServeClient server(api);
        QVERIFY2(server.waitListening(), server.stderrText().constData());
        for (int uid = 5; uid <= 30; ++uid) {
            const QString bearer = bearerWithSecret(secret, uid);
            const HttpReply checkin = server.request("POST", QStringLiteral("/v1/checkin"), bearer);
            QVERIFY2(checkin.status == 200, checkin.describe().constData());
            const HttpReply grab = server.request("POST", QStringLiteral("/v1/campaigns/%1/grab").arg(id), bearer);
            QVERIFY2(grab.status == 200, grab.describe().constData());
        }
        QCOMPARE(server.stop().first, 0);
    }
    LANTERND_VERIFY_OK(s_fixture->as(QStringLiteral("worker")).run(words("work --once")));
    QCOMPARE(sqlNumber(s_fixture->sql().db, QStringLiteral("SELECT COUNT(*) FROM checkin_log WHERE uid BETWEEN 1 AND 30")), 30);
    const Result shown = s_fixture->as(QStringLiteral("viewer")).run({QStringLiteral("campaign"), QStringLiteral("show"), QStringLiteral("--id"), id});
    LANTERND_VERIFY_OK(shown);
    QCOMPARE(shown.json().value(QStringLiteral("paid_count")).toInteger(), 10);
    const Result verified = s_fixture->as(QStringLiteral("viewer")).run({QStringLiteral("verify"), QStringLiteral("--campaign"), id});
    LANTERND_VERIFY_OK(verified);
    QVERIFY2(verified.json().value(QStringLiteral("ok")).toBool(), verified.out.constData());
}

void TestCliAccess::ledgerRefusesAForgedLaunch()
{
    // A manager sets a draft live and fills its pool with raw Redis commands, skipping the SQL
    // launch: the grab is handed out, the drain refuses it ('not_launched') and pays nothing.
    const Result created = s_fixture->as(QStringLiteral("manager")).run(words("campaign create --name forged --total-cents 500 --count 5"));
    LANTERND_VERIFY_OK(created);
    const QByteArray id = QByteArray::number(created.json().value(QStringLiteral("id")).toInteger());
    const QByteArray tag = s_fixture->prefix().toUtf8() + "{cp:" + id + "}:";
    RedisClient raw(s_fixture->redisUrlAs(QStringLiteral("manager")));
    raw.command({"HSET", tag + "meta", "status", "live", "max_attempts", "9"});
    raw.command({"RPUSH", tag + "pool", "1:400000"});
    raw.command({"SADD", s_fixture->prefix().toUtf8() + "campaigns", id});
    const Result grabbed = s_fixture->as(QStringLiteral("api")).run({QStringLiteral("grab"), QStringLiteral("--campaign"), QString::fromLatin1(id),
                                                                     QStringLiteral("--uid"), QStringLiteral("42")});
    LANTERND_VERIFY_OK(grabbed);
    QCOMPARE(grabbed.json().value(QStringLiteral("status")).toString(), QStringLiteral("ok"));
    LANTERND_VERIFY_OK(s_fixture->as(QStringLiteral("worker")).run(words("work --once")));

    const DbUrl &db = s_fixture->sql().db;
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM payout WHERE campaign_id = ?"), {id}), 0);
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM grab WHERE campaign_id = ?"), {id}), 0);
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM grab_refused WHERE campaign_id = ? AND reason = 'not_launched'"), {id}), 1);
    const Result verified = s_fixture->as(QStringLiteral("viewer")).run({QStringLiteral("verify"), QStringLiteral("--campaign"), QString::fromLatin1(id)});
    LANTERND_VERIFY_OK(verified);
    QCOMPARE(verified.json().value(QStringLiteral("ok")).toBool(), false);
    const QByteArray violations = QJsonDocument(verified.json().value(QStringLiteral("violations")).toArray()).toJson();
    QVERIFY2(violations.contains("the ledger holds no launch of"), violations.constData());
    QVERIFY2(violations.contains("while the ledger holds a draft"), violations.constData());
}

void TestCliAccess::scheduledLaunchWithoutApprovalIsMissed()
{
    // Above the bound, due in 1.5 s, never approved: the worker's timetable gives the launch up.
    RedisClient redis(RedisUrl::parse(s_fixture->redisUrl()));
    const qint64 launchAt = redisTimeMs(redis) + 1500;
    const Result created = s_fixture->as(QStringLiteral("manager")).run(
            {QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("timed"), QStringLiteral("--total-cents"),
             QStringLiteral("3000000"), QStringLiteral("--count"), QStringLiteral("10"), QStringLiteral("--launch-at"), CampaignSchedule::isoTime(launchAt)});
    LANTERND_VERIFY_OK(created);
    const qint64 id = created.json().value(QStringLiteral("id")).toInteger();
    const DbUrl &db = s_fixture->sql().db;
    WorkerProcess worker(s_fixture->as(QStringLiteral("worker")), QStringLiteral("eyes"));
    QVERIFY(worker.started());
    QTRY_COMPARE_WITH_TIMEOUT(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM campaign_schedule WHERE campaign_id = ? AND state = 'missed' "
                                                           "AND reason LIKE '%four eyes%'"),
                                        {id}),
                              1, 30000);
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM campaign WHERE id = ? AND status = 'draft'"), {id}), 1);
    QCOMPARE(sqlNumber(db, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = 'campaign.missed' AND target = ?"),
                       {QStringLiteral("campaign:%1").arg(id)}),
             1);
    QVERIFY2(worker.stop(15000), worker.err().constData());
}

LANTERN_TEST_SUITE(TestCliAccess);

} // namespace tst_cli_access

#include "tst_cli_access.moc"
