// Campaigns on real Redis and both SQL dialects: create validation, a launch that is idempotent
// and resumable after a crash, every grab outcome, the pause kill switch, a concurrent grab storm
// (never over-issued, never two to one user, sums exact), close balancing the ledger, and each
// transition audited once (a repeat writes nothing; SQL caught up after a crash, audited once).
#include "core/errors.h"
#include "envelope/campaignservice.h"
#include "envelope/campaignstore.h"
#include "envelope/grabservice.h"
#include "redis/keyschema.h"
#include "redis/luascript.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTest>
#include <QThread>

#include <atomic>
#include <limits>
#include <mutex>

namespace tst_campaign {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

CampaignDraft draft(qint64 total, qint64 count, qint64 min = 1, int maxAttempts = 9)
{
    CampaignDraft d;
    d.name = QStringLiteral("festival");
    d.totalCents = total;
    d.count = count;
    d.minCents = min;
    d.seed = 42;
    d.maxAttempts = maxAttempts;
    return d;
}

qint64 scalar(SqlConnection &sql, const QString &query, const QVariantList &values = {})
{
    QSqlQuery result = sql.exec(query, values);
    return result.next() ? result.value(0).toLongLong() : -1;
}
} // namespace

class TestCampaign : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void createRefusesBadInput_data();
    void createRefusesBadInput();
    void dialects_data();
    void launchIsIdempotentAndResumable_data() { dialects_data(); }
    void launchIsIdempotentAndResumable();
    void grabOutcomes_data() { dialects_data(); }
    void grabOutcomes();
    void pauseStopsGrabsAndLosesNothing_data() { dialects_data(); }
    void pauseStopsGrabsAndLosesNothing();
    void grabStorm_data() { dialects_data(); }
    void grabStorm();
    void closeRefundsAndBalances_data() { dialects_data(); }
    void closeRefundsAndBalances();
    void closedCampaignCannotRelaunch_data() { dialects_data(); }
    void closedCampaignCannotRelaunch();
    void transitionsAuditedOnce_data() { dialects_data(); }
    void transitionsAuditedOnce();

private:
    RedisUrl m_redisUrl;
};

void TestCampaign::initTestCase()
{
    m_redisUrl = test::redisUrl();
}

void TestCampaign::createRefusesBadInput_data()
{
    QTest::addColumn<CampaignDraft>("bad");
    QTest::newRow("count 0") << draft(100, 0);
    QTest::newRow("total below count x min") << draft(99, 10, 10);
    QTest::newRow("count x min overflows int64") << draft(std::numeric_limits<qint64>::max(), 10'000'000, std::numeric_limits<qint64>::max() / 2);
    QTest::newRow("negative total") << draft(-5, 1);
    QTest::newRow("min 0") << draft(100, 10, 0);
    QTest::newRow("count over the cap") << draft(std::numeric_limits<qint64>::max(), 10'000'001);
    QTest::newRow("no attempts allowed") << draft(100, 10, 1, 0);
    CampaignDraft unnamed = draft(100, 10);
    unnamed.name = QStringLiteral("   ");
    QTest::newRow("blank name") << unnamed;
}

void TestCampaign::createRefusesBadInput()
{
    QFETCH(CampaignDraft, bad);
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, CampaignService::validate(bad));
}

void TestCampaign::dialects_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestCampaign::launchIsIdempotentAndResumable()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix());
    CampaignService service(redis, sql, keys);
    const Campaign campaign = service.create(draft(1'000'000, 2500, 5), Now);
    QCOMPARE(campaign.status, CampaignStatus::Draft);

    // A launch that crashed after its first pool chunk and part of the SQL envelopes.
    const std::vector<qint64> amounts = splitEnvelopes(campaign.splitSpec());
    CampaignStore(sql).insertEnvelopes(campaign.id, std::vector<qint64>(amounts.begin(), amounts.begin() + 700));
    QByteArrayList chunk{"1"};
    for (qint64 seq = 1; seq <= 1000; ++seq)
        chunk << QByteArray::number(seq) + ':' + QByteArray::number(amounts[size_t(seq - 1)]);
    const LuaScript poolLoad(QStringLiteral("pool_load"));
    QCOMPARE(poolLoad.run(redis, {keys.campaignMeta(campaign.id), keys.campaignPool(campaign.id)}, chunk).toInteger(), 1000LL);
    // Replaying a chunk that is already loaded changes nothing.
    QCOMPARE(poolLoad.run(redis, {keys.campaignMeta(campaign.id), keys.campaignPool(campaign.id)}, chunk).toInteger(), 1000LL);
    QCOMPARE(GrabService(redis, keys).grab(campaign.id, 1, Now).status, QStringLiteral("not_live"));

    QCOMPARE(service.launch(campaign.id).status, CampaignStatus::Live);
    QCOMPARE(service.launch(campaign.id).status, CampaignStatus::Live);  // again: unchanged

    const RedisValue pool = redis.command({"LRANGE", keys.campaignPool(campaign.id), "0", "-1"});
    QCOMPARE(qint64(pool.elements.size()), campaign.count);
    qint64 poolSum = 0;
    for (size_t i = 0; i < pool.elements.size(); ++i) {
        const QByteArray entry = pool.elements[i].toBytes();
        QCOMPARE(entry.left(entry.indexOf(':')).toLongLong(), qint64(i + 1));  // seq order, no gap, no duplicate
        poolSum += entry.mid(entry.indexOf(':') + 1).toLongLong();
    }
    QCOMPARE(poolSum, campaign.totalCents);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM envelope WHERE campaign_id = ?"), {campaign.id}), campaign.count);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT SUM(amount_cents) FROM envelope WHERE campaign_id = ?"), {campaign.id}), campaign.totalCents);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT MIN(amount_cents) FROM envelope WHERE campaign_id = ?"), {campaign.id}) >= 5, true);
    QCOMPARE(CampaignStore(sql).find(campaign.id)->status, CampaignStatus::Live);
    // The split recorded once the launch resumed is the whole one the rows make (the crashed
    // launch recorded its 700), with the envelope watch as it stands.
    const QString recorded = QStringLiteral("SELECT %1 FROM envelope_split WHERE campaign_id = ?");
    QCOMPARE(scalar(sql, recorded.arg(QStringLiteral("envelopes")), {campaign.id}), campaign.count);
    QCOMPARE(scalar(sql, recorded.arg(QStringLiteral("envelope_cents")), {campaign.id}), campaign.totalCents);
    QCOMPARE(scalar(sql, recorded.arg(QStringLiteral("smallest_cents")), {campaign.id}),
             scalar(sql, QStringLiteral("SELECT MIN(amount_cents) FROM envelope WHERE campaign_id = ?"), {campaign.id}));
    QCOMPARE(scalar(sql, recorded.arg(QStringLiteral("first_seq")), {campaign.id}), 1);
    QCOMPARE(scalar(sql, recorded.arg(QStringLiteral("last_seq")), {campaign.id}), campaign.count);
    QCOMPARE(scalar(sql, recorded.arg(QStringLiteral("watch_changes")), {campaign.id}),
             scalar(sql, QStringLiteral("SELECT changes FROM ledger_watch WHERE name = 'envelope'"), {}));
}

void TestCampaign::grabOutcomes()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix());
    CampaignService service(redis, sql, keys);
    const Campaign campaign = service.create(draft(300, 2, 1, 2), Now);
    GrabService grabs(redis, keys);
    QCOMPARE(grabs.grab(campaign.id, 1, Now).status, QStringLiteral("not_live"));
    service.launch(campaign.id);

    const GrabOutcome first = grabs.grab(campaign.id, 1, Now);
    QCOMPARE(first.status, QStringLiteral("ok"));
    QCOMPARE(first.seq, 1);
    const GrabOutcome again = grabs.grab(campaign.id, 1, Now);
    QCOMPARE(again.status, QStringLiteral("already"));
    QCOMPARE(again.seq, first.seq);
    QCOMPARE(again.amountCents, first.amountCents);
    const GrabOutcome second = grabs.grab(campaign.id, 2, Now);
    QCOMPARE(second.status, QStringLiteral("ok"));
    QCOMPARE(first.amountCents + second.amountCents, 300);
    QCOMPARE(grabs.grab(campaign.id, 3, Now).status, QStringLiteral("sold_out"));
    QCOMPARE(grabs.grab(campaign.id, 3, Now).status, QStringLiteral("sold_out"));
    QCOMPARE(grabs.grab(campaign.id, 3, Now).status, QStringLiteral("too_many_attempts"));
    QCOMPARE(grabs.grab(campaign.id, 999, Now + 1).status, QStringLiteral("sold_out"));

    // Each successful grab queued exactly one payout task naming its envelope.
    const RedisValue tasks = redis.command({"LRANGE", keys.campaignTasks(campaign.id), "0", "-1"});
    QCOMPARE(tasks.elements.size(), size_t(2));
    const QJsonObject task = QJsonDocument::fromJson(tasks.elements.back().toBytes()).object();  // the oldest
    QCOMPARE(task.value(QLatin1String("uid")).toString(), QStringLiteral("1"));
    QCOMPARE(task.value(QLatin1String("seq")).toString(), QStringLiteral("1"));
    QCOMPARE(task.value(QLatin1String("amount")).toString().toLongLong(), first.amountCents);
}

void TestCampaign::pauseStopsGrabsAndLosesNothing()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix());
    CampaignService service(redis, sql, keys);
    const Campaign campaign = service.create(draft(10'000, 10), Now);
    service.launch(campaign.id);
    GrabService grabs(redis, keys);
    for (qint64 uid = 1; uid <= 3; ++uid)
        QCOMPARE(grabs.grab(campaign.id, uid, Now).status, QStringLiteral("ok"));

    QCOMPARE(service.pause(campaign.id).status, CampaignStatus::Paused);
    QCOMPARE(CampaignStore(sql).find(campaign.id)->status, CampaignStatus::Paused);
    QCOMPARE(grabs.grab(campaign.id, 4, Now).status, QStringLiteral("not_live"));
    QCOMPARE(grabs.grab(campaign.id, 1, Now).status, QStringLiteral("not_live"));
    const CampaignSummary paused = service.show(campaign.id);
    QCOMPARE(paused.remainingCount, 7);
    QCOMPARE(paused.grabbedCount, 3);
    QCOMPARE(paused.remainingCents + paused.grabbedCents, 10'000);
    QVERIFY_THROWS_EXCEPTION(RefusedError, service.launch(campaign.id));  // a paused campaign resumes, it is not relaunched

    QCOMPARE(service.resume(campaign.id).status, CampaignStatus::Live);
    QCOMPARE(grabs.grab(campaign.id, 4, Now).status, QStringLiteral("ok"));
    QCOMPARE(service.show(campaign.id).remainingCount, 6);
}

void TestCampaign::grabStorm()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    const KeySchema keys(test::uniquePrefix());
    qint64 campaignId = 0;
    constexpr qint64 Total = 88'888'888;
    constexpr qint64 Envelopes = 1000;
    {
        RedisClient redis(m_redisUrl);
        SqlConnection sql(url);
        CampaignService service(redis, sql, keys);
        campaignId = service.create(draft(Total, Envelopes, 100, 3), Now).id;
        service.launch(campaignId);
    }
    // 40 clients, 4,000 users (four per envelope), every user trying twice.
    constexpr int Clients = 40;
    constexpr qint64 Users = 4000;
    std::atomic<qint64> nextUser{1};
    std::mutex mutex;
    QHash<qint64, GrabOutcome> won;  // uid -> envelope
    QHash<QString, int> outcomes;
    QList<QThread *> threads;
    for (int c = 0; c < Clients; ++c) {
        threads << QThread::create([&] {
            RedisClient redis(m_redisUrl);
            GrabService grabs(redis, keys);
            for (qint64 uid = nextUser++; uid <= Users; uid = nextUser++) {
                for (int attempt = 0; attempt < 2; ++attempt) {
                    const GrabOutcome outcome = grabs.grab(campaignId, uid, Now);
                    const std::lock_guard lock(mutex);
                    ++outcomes[outcome.status];
                    if (outcome.status == QLatin1String("ok"))
                        won.insert(uid, outcome);
                }
            }
        });
        threads.back()->start();
    }
    for (QThread *thread : threads) {
        QVERIFY(thread->wait(120000));
        delete thread;
    }
    QCOMPARE(outcomes.value(QStringLiteral("ok")), Envelopes);         // never over-issued
    QCOMPARE(qint64(won.size()), Envelopes);                          // never two to one user
    QCOMPARE(outcomes.value(QStringLiteral("already")), Envelopes);    // each winner's second try
    QCOMPARE(outcomes.value(QStringLiteral("sold_out")), (Users - Envelopes) * 2);
    QSet<qint64> seqs;
    qint64 sum = 0;
    for (const GrabOutcome &outcome : std::as_const(won)) {
        seqs.insert(outcome.seq);
        sum += outcome.amountCents;
        QVERIFY(outcome.amountCents >= 100);
    }
    QCOMPARE(qint64(seqs.size()), Envelopes);  // every envelope to one user
    QCOMPARE(sum, Total);

    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const CampaignSummary summary = CampaignService(redis, sql, keys).show(campaignId);
    QCOMPARE(summary.grabbedCount, Envelopes);
    QCOMPARE(summary.grabbedCents, Total);
    QCOMPARE(summary.remainingCount, 0);
    QCOMPARE(redis.command({"HLEN", keys.campaignDraws(campaignId)}).toInteger(), Envelopes);
    QCOMPARE(redis.command({"LLEN", keys.campaignTasks(campaignId)}).toInteger(), Envelopes);
}

void TestCampaign::closeRefundsAndBalances()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix());
    CampaignService service(redis, sql, keys);
    const Campaign campaign = service.create(draft(50'000, 20, 10), Now);
    service.launch(campaign.id);
    GrabService grabs(redis, keys);
    qint64 grabbed = 0;
    for (qint64 uid = 1; uid <= 7; ++uid)
        grabbed += grabs.grab(campaign.id, uid, Now).amountCents;

    const Campaign closed = service.close(campaign.id);
    QCOMPARE(closed.status, CampaignStatus::Closed);
    QCOMPARE(closed.refundedCents, 50'000 - grabbed);
    QCOMPARE(grabs.grab(campaign.id, 8, Now).status, QStringLiteral("not_live"));
    QCOMPARE(redis.command({"EXISTS", keys.campaignPool(campaign.id)}).toInteger(), 0LL);

    const CampaignSummary summary = service.show(campaign.id);
    QCOMPARE(summary.grabbedCents + summary.campaign.refundedCents, 50'000);  // invariant 4
    QCOMPARE(summary.remainingCount, 0);
    QCOMPARE(summary.remainingCents, 0);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT refunded_cents FROM campaign WHERE id = ?"), {campaign.id}), 50'000 - grabbed);
    // Closing twice changes nothing.
    QCOMPARE(service.close(campaign.id).refundedCents, 50'000 - grabbed);
}

void TestCampaign::closedCampaignCannotRelaunch()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix());
    CampaignService service(redis, sql, keys);
    const Campaign campaign = service.create(draft(100, 10), Now);
    QCOMPARE(service.close(campaign.id).refundedCents, 100);  // a draft closes with everything refunded
    QVERIFY_THROWS_EXCEPTION(RefusedError, service.launch(campaign.id));
    QVERIFY_THROWS_EXCEPTION(RefusedError, service.resume(campaign.id));
    QVERIFY_THROWS_EXCEPTION(RefusedError, service.pause(campaign.id));
    QVERIFY_THROWS_EXCEPTION(InvalidInputError, service.show(campaign.id + 1000));
}

void TestCampaign::transitionsAuditedOnce()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    RedisClient redis(m_redisUrl);
    SqlConnection sql(url);
    const KeySchema keys(test::uniquePrefix());
    CampaignService service(redis, sql, keys);
    const Campaign campaign = service.create(draft(1000, 10), Now);
    const TransitionAudit audit{QStringLiteral("alice"), Now, QStringLiteral("test"), {}};
    const auto rows = [&](const char *action) {
        return scalar(sql, QStringLiteral("SELECT COUNT(*) FROM audit_log WHERE action = ? AND target = ?"),
                      {QString::fromLatin1(action), QStringLiteral("campaign:%1").arg(campaign.id)});
    };
    bool changed = false;
    service.launch(campaign.id, audit, &changed);
    QVERIFY(changed);
    service.launch(campaign.id, audit, &changed);  // a repeat: no row
    QVERIFY(!changed);
    QCOMPARE(rows("campaign.launch"), 1);
    QSqlQuery detail = sql.exec(QStringLiteral("SELECT actor, detail FROM audit_log WHERE action = 'campaign.launch'"));
    QVERIFY(detail.next());
    QCOMPARE(detail.value(0).toString(), QStringLiteral("alice"));
    QCOMPARE(QJsonDocument::fromJson(detail.value(1).toString().toUtf8()).object(),
             (QJsonObject{{QStringLiteral("status"), QStringLiteral("live")},
                          {QStringLiteral("refunded_cents"), 0},
                          {QStringLiteral("via"), QStringLiteral("test")}}));

    // A pause that moved Redis and died before SQL followed: the next pause catches SQL up and
    // records it, once.
    const LuaScript status(QStringLiteral("campaign_status"));
    QCOMPARE(status.run(redis, {keys.campaignMeta(campaign.id), keys.campaignPool(campaign.id), keys.campaignRepairLock(campaign.id)}, {"paused", "10"}).elements.at(0).toBytes(),
             QByteArray("ok"));
    QCOMPARE(CampaignStore(sql).find(campaign.id)->status, CampaignStatus::Live);
    QCOMPARE(service.pause(campaign.id, audit, &changed).status, CampaignStatus::Paused);
    QVERIFY(changed);
    QCOMPARE(CampaignStore(sql).find(campaign.id)->status, CampaignStatus::Paused);
    service.pause(campaign.id, audit, &changed);
    QVERIFY(!changed);
    QCOMPARE(rows("campaign.pause"), 1);

    // A refused edge writes nothing; without an audit, a change writes no row.
    QVERIFY_THROWS_EXCEPTION(RefusedError, service.launch(campaign.id, audit, &changed));
    QCOMPARE(CampaignStore(sql).find(campaign.id)->status, CampaignStatus::Paused);
    QCOMPARE(service.close(campaign.id, std::nullopt, &changed).refundedCents, 1000);
    QVERIFY(changed);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM audit_log")), 2);
    // Refused by Redis after SQL's status was written in the transaction: rolled back.
    QVERIFY_THROWS_EXCEPTION(RefusedError, service.pause(campaign.id, audit, &changed));
    QCOMPARE(CampaignStore(sql).find(campaign.id)->status, CampaignStatus::Closed);
    QCOMPARE(scalar(sql, QStringLiteral("SELECT COUNT(*) FROM audit_log")), 2);
}

LANTERN_TEST_SUITE(TestCampaign);

} // namespace tst_campaign

#include "tst_campaign.moc"
