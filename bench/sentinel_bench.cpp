// lantern-bench-sentinel: a Redis Sentinel failover in the middle of a grab storm (issue 29,
// point 6). Three sentinels, a master and a replica of the bench's own (TestSentinels), `lanternd
// serve` and a long-running `lanternd work` on redis-sentinel://...#lantern; client threads grab
// through HTTP without pause and, half-way, SENTINEL FAILOVER. It reports the seconds from the
// failover command until grabs succeed again, the 503s answered meanwhile, anything else, the
// acknowledged grabs the new master does not hold, and whether `lanternd verify` finds any
// envelope paid twice once the worker has drained. It measures; it asserts nothing.
#include "bearerfile.h"
#include "benchcampaign.h"
#include "httpprobe.h"
#include "httpsettings.h"
#include "payoutprovider.h"
#include "serveprocess.h"
#include "summaryrows.h"

#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/dburl.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testsentinels.h"
#include "token/usertoken.h"

#include <QCommandLineParser>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>

#include <atomic>
#include <mutex>
#include <thread>

using namespace lantern;
using namespace lantern::bench;

namespace {

struct SentinelSettings {
    HttpSettings http;
    int seconds = 12;  // the storm; the failover at half-time
};

SentinelSettings parseSettings(const QCoreApplication &app)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
            "A Sentinel failover mid grab storm: three sentinels, a master and a replica of the bench's own, lanternd serve and "
            "lanternd work on redis-sentinel://...#lantern, --clients threads grabbing through HTTP; SENTINEL FAILOVER half-way. "
            "--redis is not used."));
    addHttpOptions(parser);
    parser.addOption({QStringLiteral("seconds"), QStringLiteral("Length of the storm."), QStringLiteral("s"), QStringLiteral("12")});
    processArguments(parser, app);
    SentinelSettings settings;
    settings.http = httpSettings(parser);
    settings.seconds = int(integerOption(parser, QStringLiteral("seconds"), 2, 600));
    return settings;
}

/** One answer of the storm. */
struct Answer {
    qint64 atMs = 0;  // since the storm began
    int status = 0;   // 0: no answer (connection refused, timeout)
    qint64 uid = 0;
    QString outcome;  // "ok", "already", "sold_out", ...
};

class FailoverStorm final {
public:
    explicit FailoverStorm(const SentinelSettings &settings) : m_settings(settings), m_http(settings.http), m_keys(m_http.bench.prefix), m_out(stdout)
    {
        m_db = QStringLiteral("sqlite://") + m_work.filePath(QStringLiteral("campaign.db"));
    }

    void run()
    {
        const QString url = m_sentinels.urlText();
        m_out << "Sentinels " << url << "; master 127.0.0.1:" << m_sentinels.masterPort() << ", replica in sync.\n";
        RedisClient redis(RedisUrl::parse(url));
        const std::unique_ptr<SqlConnection> sql = openMigrated(DbUrl::parse(m_db));
        CampaignService campaigns(redis, *sql, m_keys);
        const Campaign campaign = launchBenchCampaign(campaigns, QStringLiteral("lantern-bench-sentinel"), 200'000, m_http.bench.seed);
        const QString path = QStringLiteral("/v1/campaigns/%1/grab").arg(campaign.id);

        HttpSettings serveSettings = m_http;
        serveSettings.redisUrl = url;
        QDir().mkpath(m_work.filePath(QStringLiteral("serve")));
        ServeProcess serve(m_http.lanternd, serveArguments(serveSettings, m_http.serveThreads, m_db), m_work.filePath(QStringLiteral("serve")),
                           m_http.serverCpus);
        QProcess worker;
        worker.setProcessEnvironment(workerEnvironment());
        worker.setStandardOutputFile(m_work.filePath(QStringLiteral("work.out")));
        worker.setStandardErrorFile(m_work.filePath(QStringLiteral("work.err")));
        worker.start(m_http.lanternd, lanterndArguments(url, {QStringLiteral("work"), QStringLiteral("--id"), QStringLiteral("bench-w1")}));
        if (!worker.waitForStarted())
            throw LanternError(QStringLiteral("cannot start lanternd work"));

        const UserTokens tokens(QStringLiteral("lantern"), m_http.tokenSecret.toUtf8());
        const qint64 expires = QDateTime::currentSecsSinceEpoch() + 86'400;
        std::atomic<qint64> nextUid{1'000'000'000'000};
        std::atomic<bool> stop{false};
        std::mutex mutex;
        std::vector<Answer> answers;
        QElapsedTimer clock;
        clock.start();
        std::vector<std::thread> clients;
        for (int i = 0; i < m_http.bench.clients; ++i) {
            clients.emplace_back([&] {
                std::vector<Answer> mine;
                while (!stop.load()) {
                    Answer answer;
                    answer.uid = nextUid.fetch_add(1);
                    try {
                        const HttpAnswer reply = httpRequest(serve.port(), "POST", path.toLatin1(), tokens.mintBearer(answer.uid, expires).toLatin1());
                        answer.status = reply.status;
                        answer.outcome = QJsonDocument::fromJson(reply.body).object().value(QStringLiteral("status")).toString();
                    } catch (const LanternError &) {
                        answer.status = 0;
                    }
                    answer.atMs = clock.elapsed();
                    mine.push_back(answer);
                }
                std::lock_guard lock(mutex);
                answers.insert(answers.end(), mine.begin(), mine.end());
            });
        }
        QThread::msleep(ulong(m_settings.seconds) * 500);  // the storm's first half: the bench's own pace, not a synchronisation
        const qint64 failoverAtMs = clock.elapsed();
        const int newMaster = m_sentinels.failOver();
        const qint64 failoverDoneMs = clock.elapsed();
        while (clock.elapsed() < qint64(m_settings.seconds) * 1000)
            QThread::msleep(50);
        stop = true;
        for (std::thread &client : clients)
            client.join();
        serve.stop();
        worker.terminate();
        worker.waitForFinished(30000);
        RedisClient afterFailover(RedisUrl::parse(url));  // the first client's connection went with the old master
        report(answers, afterFailover, campaign, url, failoverAtMs, failoverDoneMs, newMaster);
    }

private:
    QStringList lanterndArguments(const QString &url, const QStringList &command) const
    {
        return command + QStringList{QStringLiteral("--redis"), url, QStringLiteral("--db"), m_db, QStringLiteral("--prefix"), m_http.bench.prefix};
    }

    /** Payouts go to an HTTP provider of the bench's own, whose ledger is not in Redis (the
        simulated one keeps its ledger in the same Redis, which a failover rolls back too). */
    QProcessEnvironment workerEnvironment() const
    {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("LANTERN_PAYOUT_URL"), m_provider.url().toString());
        return environment;
    }

    QJsonObject lanternd(const QString &url, const QStringList &command) const
    {
        QProcess process;
        process.setProcessEnvironment(workerEnvironment());
        process.start(m_http.lanternd, lanterndArguments(url, command));
        if (!process.waitForFinished(300000) || process.exitCode() != 0)
            throw LanternError(QStringLiteral("lanternd %1 failed: %2").arg(command.join(QLatin1Char(' ')), QString::fromLocal8Bit(process.readAllStandardError())));
        return QJsonDocument::fromJson(process.readAllStandardOutput()).object();
    }

    void report(std::vector<Answer> answers, RedisClient &redis, const Campaign &campaign, const QString &url, qint64 failoverAtMs,
                qint64 failoverDoneMs, int newMaster)
    {
        std::sort(answers.begin(), answers.end(), [](const Answer &a, const Answer &b) { return a.atMs < b.atMs; });
        qint64 ok = 0;
        qint64 unavailable = 0;
        qint64 other = 0;
        qint64 firstFailureMs = -1;  // the outage: from the first answer but 200 after the failover command
        qint64 lastFailureMs = -1;   // to the last one, and the first 200 after that
        QList<qint64> acknowledged;
        for (const Answer &answer : answers) {
            if (answer.status == 200) {
                if (answer.outcome == QLatin1String("ok")) {
                    ++ok;
                    acknowledged << answer.uid;
                }
                continue;
            }
            ++(answer.status == 503 ? unavailable : other);
            if (answer.atMs >= failoverAtMs) {
                if (firstFailureMs < 0)
                    firstFailureMs = answer.atMs;
                lastFailureMs = answer.atMs;
            }
        }
        qint64 recoveredMs = -1;
        for (const Answer &answer : answers) {
            if (answer.status == 200 && answer.atMs > lastFailureMs && lastFailureMs >= 0) {
                recoveredMs = answer.atMs;
                break;
            }
        }
        // An acknowledged grab the new master lost: its draw is missing.
        qint64 lost = 0;
        const QByteArray draws = m_keys.campaignDraws(QByteArray::number(campaign.id));  // one pool: the bench campaign has no sub-pools
        for (qsizetype i = 0; i < acknowledged.size(); i += 500) {
            QByteArrayList command{QByteArrayLiteral("HMGET"), draws};
            for (qsizetype j = i; j < std::min(i + 500, acknowledged.size()); ++j)
                command << QByteArray::number(acknowledged[j]);
            for (const RedisValue &value : redis.command(command).elements)
                lost += value.isNil() ? 1 : 0;
        }
        lanternd(url, {QStringLiteral("work"), QStringLiteral("--once"), QStringLiteral("--id"), QStringLiteral("bench-w2")});
        const QJsonObject verify = lanternd(url, {QStringLiteral("verify"), QStringLiteral("--campaign"), QString::number(campaign.id)});
        const bool verified = verify.value(QStringLiteral("ok")).toBool();
        const double outageSeconds = recoveredMs < 0 ? 0 : double(recoveredMs - firstFailureMs) / 1000.0;
        const double sinceCommandSeconds = recoveredMs < 0 ? 0 : double(recoveredMs - failoverAtMs) / 1000.0;
        // Paid twice: the provider pays once per idempotency key (one per envelope); a second key
        // for an envelope, or a second envelope for a user, would show as more payments than the
        // ledger's paid rows.
        const test::ProviderFigures provider = m_provider.figures();
        const DbUrl db = DbUrl::parse(m_db);
        SqlConnection ledger(db, SqlAccess::ReadOnly);
        QSqlQuery paid = ledger.exec(QStringLiteral("SELECT COUNT(*), COUNT(DISTINCT uid) FROM grab WHERE campaign_id = ?"), {campaign.id});
        const qint64 grabRows = paid.next() ? paid.value(0).toLongLong() : -1;
        const qint64 grabUsers = grabRows >= 0 ? paid.value(1).toLongLong() : -1;

        m_out << "\n| figure | value |\n|---|---:|\n"
              << "| answers during the storm (" << m_settings.seconds << " s, " << m_http.bench.clients << " HTTP clients) | " << answers.size() << " |\n"
              << "| grabs acknowledged (200 ok) | " << ok << " |\n"
              << "| SENTINEL FAILOVER until every sentinel named the new master (127.0.0.1:" << newMaster << ") and the old one followed it, s | "
              << QString::number(double(failoverDoneMs - failoverAtMs) / 1000.0, 'f', 2) << " |\n"
              << "| the outage: from the first answer but 200 to the first 200 after the last one, s | " << QString::number(outageSeconds, 'f', 2) << " |\n"
              << "| from the failover command to that first 200, s | " << QString::number(sinceCommandSeconds, 'f', 2) << " |\n"
              << "| 503 answered | " << unavailable << " |\n"
              << "| anything but 200 and 503 (no answer included) | " << other << " |\n"
              << "| acknowledged grabs the new master does not hold (lost) | " << lost << " |\n"
              << "| grabs in the ledger (SQL), their distinct users | " << grabRows << ", " << grabUsers << " |\n"
              << "| payments the provider made (one per idempotency key), keys that came again | " << provider.payments << ", "
              << provider.repeatedKeys << " |\n"
              << "| lanternd verify after the worker drained | " << (verified ? "ok" : "**violations**") << " |\n";
        if (!verified)
            m_out << "\n" << QJsonDocument(verify).toJson(QJsonDocument::Compact) << '\n';
        m_out.flush();
        appendSummaryRows(m_http.bench.summaryFile,
                          {{QStringLiteral("seconds of 503 in a SENTINEL FAILOVER mid grab storm (%1 answered 503, %2 anything else)")
                                    .arg(unavailable)
                                    .arg(other),
                            QString::number(outageSeconds, 'f', 2), QStringLiteral("seconds from the failover command to the first 200 after"),
                            QString::number(sinceCommandSeconds, 'f', 2), ratioText(outageSeconds, sinceCommandSeconds)},
                           {QStringLiteral("payments after that storm, the worker drained (%1 acknowledged grabs lost in the failover; "
                                           "lanternd verify %2)")
                                    .arg(lost)
                                    .arg(verified ? QStringLiteral("ok") : QStringLiteral("**violations**")),
                            QString::number(provider.payments), QStringLiteral("grabs in the SQL ledger"), QString::number(grabRows),
                            ratioText(double(provider.payments), double(grabRows))}});
    }

    const SentinelSettings &m_settings;
    const HttpSettings &m_http;
    KeySchema m_keys;
    QTextStream m_out;
    QTemporaryDir m_work;
    QString m_db;
    test::TestSentinels m_sentinels;
    test::PayoutProvider m_provider{[] {
        test::ProviderScript script;
        script.keepRequests = false;
        return script;
    }()};
};

int run(const QCoreApplication &app)
{
    const SentinelSettings settings = parseSettings(app);
    FailoverStorm(settings).run();
    return 0;
}

} // namespace

int main(int argc, char *argv[])
{
    return benchMain(argc, argv, QStringLiteral("lantern-bench-sentinel"), run);
}
