// Consoles racing on one campaign (issue 15): several CampaignConsoleService instances, each on a
// thread of its own with its own connections as separate consoles have, launch, pause, resume and
// close the same campaign at the same moment, round after round. Each change is answered as a
// change by exactly one of them and written to audit_log once ("via":"console"); the others are
// told nothing changed. Against the private Redis and both SQL dialects.
#include "console/campaigns/campaignconsoleservice.h"
#include "console/common/dedicatedthread.h"
#include "envelope/campaignservice.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QJsonDocument>
#include <QScopeGuard>
#include <QSqlQuery>
#include <QTest>

#include <memory>
#include <vector>

namespace tst_campaignconsolerace {

using namespace lantern;

namespace {

constexpr int Consoles = 8;
constexpr int Rounds = 3;
constexpr int AnswerTimeoutMs = 30000;

} // namespace

class TestCampaignConsoleRace final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void concurrentActions_data();
    void concurrentActions();

private:
    /** One answer of a service: which console, and whether it says it changed the campaign. */
    struct Answer {
        int console = -1;
        bool changed = false;
        QString status;  // the campaign's status as answered; empty when the request failed
        QString failure;
    };

    /** Sends `action` to every console at once and waits for all answers, in m_answers. */
    void raceAction(const std::vector<std::unique_ptr<DedicatedThread<CampaignConsoleService>>> &consoles, qint64 campaignId,
                    CampaignAction action);

    QList<Answer> m_answers;  // received on the test's thread only (queued from the services)
};

void TestCampaignConsoleRace::concurrentActions_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name + QStringLiteral(": 8 consoles x launch, pause, resume, close, 3 rounds -> one audit row each"))) << url;
}

void TestCampaignConsoleRace::raceAction(const std::vector<std::unique_ptr<DedicatedThread<CampaignConsoleService>>> &consoles,
                                         qint64 campaignId, CampaignAction action)
{
    m_answers.clear();
    std::vector<QMetaObject::Connection> connections;
    const auto disconnectAll = qScopeGuard([&connections] {
        for (const QMetaObject::Connection &connection : connections)
            disconnect(connection);
    });
    for (int i = 0; i < int(consoles.size()); ++i) {
        CampaignConsoleService *service = consoles[size_t(i)]->get();
        connections.push_back(connect(service, &CampaignConsoleService::acted, this,
                                      [this, i](quint64, CampaignAction, const Campaign &campaign, bool changed) {
                                          m_answers << Answer{i, changed, campaignStatusName(campaign.status), QString()};
                                      }));
        connections.push_back(connect(service, &CampaignConsoleService::requestFailed, this,
                                      [this, i](quint64, const QString &message, const QString &detail) {
                                          m_answers << Answer{i, false, QString(), message + QStringLiteral(": ") + detail};
                                      }));
    }
    for (int i = 0; i < int(consoles.size()); ++i) {
        CampaignConsoleService *service = consoles[size_t(i)]->get();
        QMetaObject::invokeMethod(service, [service, campaignId, action, i] {
            service->act(quint64(i), campaignId, action, QStringLiteral("console%1").arg(i));
        });
    }
    QTRY_COMPARE_WITH_TIMEOUT(m_answers.size(), qsizetype(consoles.size()), AnswerTimeoutMs);
}

void TestCampaignConsoleRace::concurrentActions()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Config config;
    config.redis = test::redisUrl();
    config.db = url;
    config.keyPrefix = test::uniquePrefix();
    const KeySchema keys(config.keyPrefix, config.shards);
    RedisClient redis(config.redis);
    SqlConnection sql(url);

    std::vector<std::unique_ptr<DedicatedThread<CampaignConsoleService>>> consoles;
    for (int i = 0; i < Consoles; ++i)
        consoles.push_back(std::make_unique<DedicatedThread<CampaignConsoleService>>(QStringLiteral("console%1").arg(i), config));

    const QList<std::pair<CampaignAction, QString>> steps{{CampaignAction::Launch, QStringLiteral("live")},
                                                          {CampaignAction::Pause, QStringLiteral("paused")},
                                                          {CampaignAction::Resume, QStringLiteral("live")},
                                                          {CampaignAction::Close, QStringLiteral("closed")}};
    for (int round = 1; round <= Rounds; ++round) {
        CampaignDraft draft;
        draft.name = QStringLiteral("race %1").arg(round);
        draft.totalCents = 5000;
        draft.count = 5;
        draft.seed = 11;
        const qint64 id = CampaignService(redis, sql, keys).create(draft, 1795000000000).id;
        for (const auto &[action, status] : steps) {
            raceAction(consoles, id, action);
            if (QTest::currentTestFailed())
                return;
            int changed = 0;
            for (const Answer &answer : std::as_const(m_answers)) {
                QVERIFY2(answer.failure.isEmpty(), qPrintable(answer.failure));
                QCOMPARE(answer.status, status);
                changed += answer.changed ? 1 : 0;
            }
            QCOMPARE(changed, 1);
        }
        QSqlQuery rows = sql.exec(QStringLiteral("SELECT action, COUNT(*), MIN(detail) FROM audit_log WHERE target = ? GROUP BY action ORDER BY action"),
                                  {QStringLiteral("campaign:%1").arg(id)});
        QStringList counts;
        while (rows.next()) {
            counts << rows.value(0).toString() + QStringLiteral(" x") + rows.value(1).toString();
            const QJsonObject detail = QJsonDocument::fromJson(rows.value(2).toString().toUtf8()).object();
            QCOMPARE(detail.value(QLatin1String("via")).toString(), QStringLiteral("console"));
        }
        QCOMPARE(QStringLiteral("round %1: ").arg(round) + counts.join(QStringLiteral(", ")),
                 QStringLiteral("round %1: campaign.close x1, campaign.launch x1, campaign.pause x1, campaign.resume x1").arg(round));
    }
}

LANTERN_TEST_SUITE(TestCampaignConsoleRace);

} // namespace tst_campaignconsolerace

#include "tst_campaignconsolerace.moc"
