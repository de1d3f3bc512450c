// What the alerting rules and the dashboard read (issue 27), from a real `lanternd serve` and a
// real `lanternd work` against the private Redis: a scrape taken while a storm of grabs and
// check-ins is in flight passes `promtool check metrics` (Prometheus's own lint: names, units,
// HELP/TYPE, _total on counters), holds every series a rule of
// packaging/prometheus/lantern-rules.yml or a query of packaging/grafana/lantern.json names, with
// the labels the rules group by; and every dashboard query is PromQL promtool accepts.
#include "clitest.h"
#include "serveprocess.h"
#include "testservers.h"
#include "testsuite.h"
#include "token/usertoken.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

namespace tst_cli_alerts {

using namespace lantern::test::cli;

namespace {

const QString Secret = QStringLiteral("alerts-test-secret");
constexpr int Envelopes = 150;
constexpr int StormUsers = 200;  // grabs of StormUsers users (Envelopes ok, the rest sold out), and their check-ins

QString sourceFile(const char *path)
{
    return QStringLiteral(LANTERN_SOURCE_DIR "/") + QLatin1String(path);
}

QByteArray readAll(const QString &path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/** The PromQL of every panel of the dashboard. */
QStringList dashboardQueries()
{
    QStringList queries;
    const QJsonArray panels = QJsonDocument::fromJson(readAll(sourceFile("packaging/grafana/lantern.json"))).object().value(QLatin1String("panels")).toArray();
    for (const QJsonValue &panel : panels) {
        for (const QJsonValue &target : panel.toObject().value(QLatin1String("targets")).toArray())
            queries << target.toObject().value(QLatin1String("expr")).toString();
    }
    return queries;
}

/** The lantern_* series names in `text`. */
QSet<QString> seriesNamed(const QString &text)
{
    static const QRegularExpression name(QStringLiteral("\\blantern_[a-z0-9_]+"));
    QSet<QString> names;
    for (auto it = name.globalMatch(text); it.hasNext();)
        names.insert(it.next().captured());
    return names;
}

/** Runs promtool with `arguments` (and `input` on its stdin): its exit code and what it said. */
std::pair<int, QByteArray> promtool(const QStringList &arguments, const QByteArray &input = {})
{
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QStringLiteral("promtool"), arguments);
    if (!process.waitForStarted())
        return {-1, "promtool did not start: is the prometheus package installed (scripts/test installs it)?"};
    process.write(input);
    process.closeWriteChannel();
    process.waitForFinished(60000);
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAll()};
}

} // namespace

class TestCliAlerts : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void cleanupTestCase() { dropFreshDatabases(); }
    void scrapeDuringAStormHoldsWhatAlertsRead();
    void dashboardQueriesArePromQL();
};

void TestCliAlerts::scrapeDuringAStormHoldsWhatAlertsRead()
{
    const SqlTarget sql = freshSql(QStringLiteral("sqlite"));
    Lanternd lanternd(redisUrlText(), sql.url, lantern::test::uniquePrefix());
    lanternd.defaults.insert(QStringLiteral("token-secret"), Secret);
    LANTERND_LAUNCH_CAMPAIGN(id, lanternd, (QStringList{QStringLiteral("--name"), QStringLiteral("storm"), QStringLiteral("--total-cents"),
                                                        QString::number(Envelopes * 100), QStringLiteral("--count"), QString::number(Envelopes)}));
    // A launch on the timetable, an hour ahead: the series of scheduled transitions.
    LANTERND_VERIFY_OK(lanternd.run({QStringLiteral("campaign"), QStringLiteral("create"), QStringLiteral("--name"), QStringLiteral("later"),
                                     QStringLiteral("--total-cents"), QStringLiteral("1000"), QStringLiteral("--count"), QStringLiteral("10"),
                                     QStringLiteral("--launch-at"), QDateTime::currentDateTimeUtc().addSecs(3600).toString(Qt::ISODate)}));

    // A worker paying through a provider that fails a fifth of the calls, beating every 1/3 s.
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("LANTERN_PAYOUT_FAIL_RATE"), QStringLiteral("0.2"));
    environment.insert(QStringLiteral("LANTERN_HEARTBEAT_TTL_S"), QStringLiteral("1"));
    const WorkerProcess worker(lanternd, QStringLiteral("w-alerts"), environment);
    QVERIFY(worker.started());
    ServeClient server(lanternd);
    QVERIFY2(server.waitListening(), server.stderrText().constData());

    // The worker's first pass checks the ledger and its beat says what it holds.
    QByteArray scraped;
    const QByteArray balanced = "lantern_ledger_balanced{campaign=\"" + id.toUtf8() + "\"} 1\n";
    const auto workerReported = [&] {
        scraped = server.request("GET", QStringLiteral("/metrics")).body;
        return scraped.contains(balanced) && scraped.contains("lantern_worker_grabs_persisted_total{worker=\"w-alerts\"}");
    };
    QTRY_VERIFY2_WITH_TIMEOUT(workerReported(), scraped.constData(), 30000);

    // The storm: every user grabs and checks in at once; the scrape goes out while it is in flight.
    QNetworkAccessManager network;
    network.setProxy(QNetworkProxy::NoProxy);
    QList<QNetworkReply *> storm;
    const lantern::UserTokens tokens(QStringLiteral("lantern"), Secret.toUtf8());
    for (int uid = 1; uid <= StormUsers; ++uid) {
        QNetworkRequest grab(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/campaigns/%2/grab").arg(server.port()).arg(id)));
        grab.setRawHeader("Authorization", "Bearer " + tokens.mintBearer(uid, QDateTime::currentSecsSinceEpoch() + 3600).toUtf8());
        storm << network.post(grab, QByteArray());
        QNetworkRequest checkin(QUrl(QStringLiteral("http://127.0.0.1:%1/v1/checkin").arg(server.port())));
        checkin.setRawHeader("Authorization", grab.rawHeader("Authorization"));
        storm << network.post(checkin, QByteArray());
    }
    const auto stormDone = [&storm] { return std::all_of(storm.cbegin(), storm.cend(), [](QNetworkReply *reply) { return reply->isFinished(); }); };
    const HttpReply duringStorm = server.request("GET", QStringLiteral("/metrics"));
    QVERIFY2(!stormDone(), "the storm was over before the scrape: take more users");
    QCOMPARE(duringStorm.status, 200);
    QTRY_VERIFY_WITH_TIMEOUT(stormDone(), 60000);
    for (QNetworkReply *reply : std::as_const(storm)) {
        QCOMPARE(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        reply->deleteLater();
    }

    // Prometheus's own lint on the exposition taken during the storm.
    const auto [lintCode, lint] = promtool({QStringLiteral("check"), QStringLiteral("metrics")}, duringStorm.body);
    QVERIFY2(lintCode == 0 && lint.trimmed().isEmpty(), QByteArray(lint + "\n--- scraped:\n" + duringStorm.body).constData());

    // Every series a rule or a dashboard query names is one lanternd exported in that scrape.
    const QString rules = QString::fromUtf8(readAll(sourceFile("packaging/prometheus/lantern-rules.yml")));
    QVERIFY(!rules.isEmpty());
    QSet<QString> named = seriesNamed(rules);
    for (const QString &query : dashboardQueries())
        named += seriesNamed(query);
    QVERIFY2(named.size() >= 25, qPrintable(QStringList(named.cbegin(), named.cend()).join(u' ')));
    QStringList missing;
    for (const QString &name : std::as_const(named)) {
        const QRegularExpression sample(QStringLiteral("^%1[{ ]").arg(name), QRegularExpression::MultilineOption);
        if (!sample.match(QString::fromUtf8(duringStorm.body)).hasMatch())
            missing << name;
    }
    missing.sort();
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u' ') + QStringLiteral("\n--- scraped:\n") + QString::fromUtf8(duringStorm.body)));

    // The labels the alerts group and print by, as the rules' unit tests give them.
    for (const QByteArray &line : QByteArrayList{"lantern_queue_depth{queue=\"payout:" + id.toUtf8() + "\"} ",
                                                 "lantern_dead_letter_entries{queue=\"checkin\"} ",
                                                 "lantern_campaign_envelopes_remaining{campaign=\"" + id.toUtf8() + "\"} ",
                                                 "lantern_ledger_refused_grabs_total{campaign=\"" + id.toUtf8() + "\"} 0\n",
                                                 "lantern_campaigns{status=\"live\"} 1\n", "lantern_workers{state=\"alive\"} 1\n",
                                                 "lantern_worker_last_heartbeat_age_seconds{worker=\"w-alerts\"} ",
                                                 "lantern_campaign_transitions_due_seconds{campaign=\"", "lantern_redis_up 1\n",
                                                 "lantern_redis_loading 0\n", "lantern_redis_restarts_total 0\n"})
        QVERIFY2(duringStorm.body.contains(line), line.constData());

    // After the storm the worker's drain catches up with what serve admitted: every ok grab persisted.
    const QByteArray persisted = "lantern_worker_grabs_persisted_total{worker=\"w-alerts\"} " + QByteArray::number(Envelopes) + '\n';
    const auto drained = [&] {
        scraped = server.request("GET", QStringLiteral("/metrics")).body;
        return scraped.contains(persisted);
    };
    QTRY_VERIFY2_WITH_TIMEOUT(drained(), scraped.constData(), 60000);
    QVERIFY(scraped.contains(QByteArray(QByteArray("lantern_grabs_total{outcome=\"ok\"} ") + QByteArray::number(Envelopes) + '\n')));
    QVERIFY(scraped.contains(QByteArray(QByteArray("lantern_campaign_envelopes_remaining{campaign=\"") + id.toUtf8() + "\"} 0\n")));
    QCOMPARE(server.stop().first, 0);
}

void TestCliAlerts::dashboardQueriesArePromQL()
{
    // promtool parses PromQL in rule files: each query of the dashboard as a recording rule.
    const QStringList queries = dashboardQueries();
    QVERIFY2(queries.size() >= 20, QByteArray::number(queries.size()).constData());
    QByteArray rules = "groups:\n  - name: lantern-dashboard\n    rules:\n";
    for (qsizetype i = 0; i < queries.size(); ++i) {
        QVERIFY2(!queries[i].contains(u'\n') && !queries[i].contains(u'\''), qPrintable(queries[i]));
        rules += "      - record: lantern_dashboard:query" + QByteArray::number(i) + "\n        expr: '" + queries[i].toUtf8() + "'\n";
    }
    QTemporaryDir dir;
    QFile file(dir.filePath(QStringLiteral("dashboard-queries.yml")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(rules);
    file.close();
    const auto [code, said] = promtool({QStringLiteral("check"), QStringLiteral("rules"), file.fileName()});
    QVERIFY2(code == 0, QByteArray(said + "\n--- rules:\n" + rules).constData());
    QVERIFY2(said.contains(QByteArray("SUCCESS: " + QByteArray::number(queries.size()) + " rules found")), said.constData());
}

LANTERN_TEST_SUITE(TestCliAlerts);

} // namespace tst_cli_alerts

#include "tst_cli_alerts.moc"
