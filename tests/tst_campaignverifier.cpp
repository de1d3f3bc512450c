// The ledger check at a large company's size (issue 26), on real Redis and both SQL dialects.
// `lanternd verify` of every campaign reads each table once, grouped by campaign, and finds
// exactly what verifying each campaign finds, on a ledger tampered with in every way the rules
// see (a split that does not sum, an envelope below the minimum, a grab that is not its
// envelope's amount, a payout row gone, a payout the provider has no record of, a refused grab
// of a campaign never launched); a view that keeps a campaign's split between refreshes still
// sees an envelope updated, deleted or inserted on the next refresh, and reads the split again
// only then (the triggers of migration 0008 count such changes); a view's first open takes the
// split the launch recorded (migration 0011) only while nothing can have changed the rows since.
#include "envelope/campaignservice.h"
#include "envelope/campaignverifier.h"
#include "envelope/envelopedrain.h"
#include "envelope/grabservice.h"
#include "payout/simulatedpayoutgateway.h"
#include "redis/keyschema.h"
#include "redis/redisclient.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

namespace tst_campaignverifier {

using namespace lantern;

namespace {
constexpr qint64 Now = 1795000000000;

QStringList described(const QList<Violation> &violations)
{
    QStringList lines;
    for (const Violation &violation : violations)
        lines << QStringLiteral("%1/%2/%3/%4").arg(violation.campaignId).arg(violation.invariant).arg(violation.detail).arg(violation.deadLettered);
    return lines;
}

/** Campaigns of 10 envelopes (1,000 cents, at least 50 each) on a fresh prefix. */
struct Ledger {
    Ledger(const RedisUrl &redisUrl, const DbUrl &url)
        : redis(redisUrl), sql(url), keys(test::uniquePrefix()), service(redis, sql, keys), gateway(redis, keys.prefix(), SimulationKnobs{}, 0)
    {
    }
    /** A campaign launched, `grabs` users grabbing, drained (every payout paid). */
    qint64 campaign(qint64 grabs, bool launch = true)
    {
        CampaignDraft draft;
        draft.name = QStringLiteral("verified");
        draft.totalCents = 1000;
        draft.count = 10;
        draft.minCents = 50;
        draft.seed = 11;
        const qint64 id = service.create(draft, Now).id;
        if (!launch)
            return id;
        service.launch(id);
        for (qint64 uid = 1; uid <= grabs; ++uid)
            refused += GrabService(redis, keys).grab(id, uid, Now).status != QLatin1String("ok");
        EnvelopeDrainOptions options;
        options.errorLogPath = errors.filePath(QStringLiteral("errors.log"));
        EnvelopeDrain(redis, sql, keys, QStringLiteral("w1"), gateway, options).drainAll();
        return id;
    }
    void run(const QString &statement, const QVariantList &values) { sql.exec(statement, values); }
    qint64 scalar(const QString &statement, const QVariantList &values)
    {
        QSqlQuery query = sql.exec(statement, values);
        return query.next() ? query.value(0).toLongLong() : -1;
    }

    RedisClient redis;
    SqlConnection sql;
    const KeySchema keys;
    CampaignService service;
    QTemporaryDir errors;
    SimulatedPayoutGateway gateway;
    int refused = 0;  // grabs that did not succeed (none should)
};
} // namespace

class TestCampaignVerifier : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { m_redisUrl = test::redisUrl(); }
    void dialects_data();
    void everyCampaignAtOnceFindsWhatEachFinds_data() { dialects_data(); }
    void everyCampaignAtOnceFindsWhatEachFinds();
    void aKeptSplitSeesEveryChange_data() { dialects_data(); }
    void aKeptSplitSeesEveryChange();
    void aViewTrustsTheLaunchsSplitOnlyWhileTheRowsAreUnchanged_data() { dialects_data(); }
    void aViewTrustsTheLaunchsSplitOnlyWhileTheRowsAreUnchanged();

private:
    RedisUrl m_redisUrl;
};

void TestCampaignVerifier::dialects_data()
{
    QTest::addColumn<DbUrl>("url");
    for (const auto &[name, url] : test::sqlDialects())
        QTest::newRow(qPrintable(name)) << url;
}

void TestCampaignVerifier::everyCampaignAtOnceFindsWhatEachFinds()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Ledger ledger(m_redisUrl, url);
    const qint64 clean = ledger.campaign(3);
    const qint64 draft = ledger.campaign(0, false);
    const qint64 split = ledger.campaign(2);
    ledger.run(QStringLiteral("UPDATE envelope SET amount_cents = amount_cents + 1 WHERE campaign_id = ? AND seq = 9"), {split});
    const qint64 belowMinimum = ledger.campaign(0);
    ledger.run(QStringLiteral("UPDATE envelope SET amount_cents = 1 WHERE campaign_id = ? AND seq IN (4, 5)"), {belowMinimum});
    const qint64 mismatched = ledger.campaign(2);
    ledger.run(QStringLiteral("UPDATE grab SET amount_cents = amount_cents + 5 WHERE campaign_id = ?"), {mismatched});
    const qint64 unpaid = ledger.campaign(4);
    ledger.run(QStringLiteral("DELETE FROM payout WHERE campaign_id = ? AND seq = (SELECT MIN(seq) FROM grab WHERE campaign_id = ?)"), {unpaid, unpaid});
    const qint64 unknownToProvider = ledger.campaign(2);
    QSqlQuery paid = ledger.sql.exec(QStringLiteral("SELECT idempotency_key FROM payout WHERE campaign_id = ?"), {unknownToProvider});
    while (paid.next())
        QCOMPARE(ledger.redis.command({"HDEL", ledger.keys.prefix() + "payoutsim:ledger", paid.value(0).toString().toUtf8()}).toInteger(), 1LL);
    ledger.run(QStringLiteral("INSERT INTO grab_refused (campaign_id, seq, uid, amount_cents, reason, refused_at_ms) VALUES (?, 1, 99, 10, 'not_launched', ?)"),
               {draft, Now});

    QCOMPARE(ledger.refused, 0);
    CampaignVerifier verifier(ledger.redis, ledger.sql, ledger.keys);
    const std::unique_ptr<SimulatedPayoutGateway> provider = verifier.readSimulatedLedger();
    QList<Violation> each;
    for (const qint64 id : {clean, draft, split, belowMinimum, mismatched, unpaid, unknownToProvider})
        each << verifier.verify(id);
    const quint64 before = ledger.redis.roundTrips();
    const QList<Violation> all = verifier.verifyAll();
    QCOMPARE(described(all), described(each));
    // Three pipelines for the campaigns (one chunk) and one provider batch, not a few per campaign.
    QVERIFY2(ledger.redis.roundTrips() - before <= 4, qPrintable(QString::number(ledger.redis.roundTrips() - before)));

    // Every tampering found, each under its rule; the clean campaign has nothing.
    const QString found = described(all).join(QLatin1Char('\n'));
    for (const QString &line : described(all))
        QVERIFY2(!line.startsWith(QStringLiteral("%1/").arg(clean)), qPrintable(found));
    QVERIFY2(found.contains(QStringLiteral("%1/1/envelopes sum to 1001 cents, the total is 1000").arg(split)), qPrintable(found));
    QVERIFY2(found.contains(QStringLiteral("%1/1/2 envelopes below the minimum of 50 cents").arg(belowMinimum)), qPrintable(found));
    QVERIFY2(found.contains(QStringLiteral("%1/2/2 grabs do not match their envelope").arg(mismatched)), qPrintable(found));
    QVERIFY2(found.contains(QStringLiteral("%1/3/3 payouts").arg(unpaid)), qPrintable(found));
    QVERIFY2(found.contains(QStringLiteral("%1/3/2 payouts recorded as paid are not in the provider's ledger").arg(unknownToProvider)), qPrintable(found));
    QVERIFY2(found.contains(QStringLiteral("%1/2/1 grabs of envelopes the ledger holds no launch of").arg(draft)), qPrintable(found));
}

void TestCampaignVerifier::aKeptSplitSeesEveryChange()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Ledger ledger(m_redisUrl, url);
    const qint64 id = ledger.campaign(0);
    SplitMemos memos;
    const auto verify = [&] {
        CampaignVerifier verifier(ledger.redis, ledger.sql, ledger.keys);  // a new one each refresh, as the views make
        verifier.keepSplits(&memos);
        return described(verifier.verify(id)).join(QLatin1Char('\n'));
    };
    QCOMPARE(verify(), QString());
    QCOMPARE(memos.size(), 1);

    // Updated, then put back: seen on the next refresh each time.
    ledger.run(QStringLiteral("UPDATE envelope SET amount_cents = amount_cents + 1 WHERE campaign_id = ? AND seq = 3"), {id});
    QVERIFY(verify().contains(QStringLiteral("envelopes sum to 1001 cents")));
    ledger.run(QStringLiteral("UPDATE envelope SET amount_cents = amount_cents - 1 WHERE campaign_id = ? AND seq = 3"), {id});
    QCOMPARE(verify(), QString());
    // Deleted: the count and the sum are off, and the seqs have a gap, so nothing is kept.
    const qint64 fifth = ledger.scalar(QStringLiteral("SELECT amount_cents FROM envelope WHERE campaign_id = ? AND seq = 5"), {id});
    ledger.run(QStringLiteral("DELETE FROM envelope WHERE campaign_id = ? AND seq = 5"), {id});
    QVERIFY(verify().contains(QStringLiteral("9 envelopes in SQL, the campaign has 10")));
    QVERIFY(memos.isEmpty());
    ledger.run(QStringLiteral("INSERT INTO envelope (campaign_id, seq, amount_cents) VALUES (?, 5, ?)"), {id, fifth});
    QCOMPARE(verify(), QString());
    QCOMPARE(memos.size(), 1);
    // Inserted after the last seq: seen as well (no trigger counts an insert; the last seq moved).
    ledger.run(QStringLiteral("INSERT INTO envelope (campaign_id, seq, amount_cents) VALUES (?, 11, 1)"), {id});
    QVERIFY(verify().contains(QStringLiteral("11 envelopes in SQL, the campaign has 10")));
    ledger.run(QStringLiteral("DELETE FROM envelope WHERE campaign_id = ? AND seq = 11"), {id});
    QCOMPARE(verify(), QString());

    // The kept split is what is read: with the trigger gone, an update goes unseen where a check
    // that keeps nothing sees it (which is why migration 0008 installs it; the test puts it back).
    const bool mysql = ledger.sql.dialect() == DbUrl::Dialect::MySql;
    ledger.sql.runMigrationText(QStringLiteral("DROP TRIGGER trg_envelope_updated"));
    ledger.run(QStringLiteral("UPDATE envelope SET amount_cents = amount_cents + 1 WHERE campaign_id = ? AND seq = 3"), {id});
    const QString unseen = verify();
    const QStringList seen = described(CampaignVerifier(ledger.redis, ledger.sql, ledger.keys).verify(id));
    ledger.run(QStringLiteral("UPDATE envelope SET amount_cents = amount_cents - 1 WHERE campaign_id = ? AND seq = 3"), {id});
    ledger.sql.runMigrationText(mysql ? QStringLiteral("CREATE TRIGGER trg_envelope_updated AFTER UPDATE ON envelope FOR EACH ROW "
                                                       "UPDATE ledger_watch SET changes = changes + 1 WHERE name = 'envelope'")
                                      : QStringLiteral("CREATE TRIGGER trg_envelope_updated AFTER UPDATE ON envelope FOR EACH ROW BEGIN "
                                                       "UPDATE ledger_watch SET changes = changes + 1 WHERE name = 'envelope'; END"));
    QCOMPARE(unseen, QString());
    QVERIFY2(seen.join(QLatin1Char('\n')).contains(QStringLiteral("envelopes sum to 1001 cents")), qPrintable(seen.join(QLatin1Char('\n'))));
}

void TestCampaignVerifier::aViewTrustsTheLaunchsSplitOnlyWhileTheRowsAreUnchanged()
{
    QFETCH(DbUrl, url);
    test::resetTables(url);
    Ledger ledger(m_redisUrl, url);
    const qint64 id = ledger.campaign(2);
    const auto view = [&] {  // a console's first open: nothing kept yet
        SplitMemos memos;
        CampaignVerifier verifier(ledger.redis, ledger.sql, ledger.keys);
        verifier.keepSplits(&memos);
        return described(verifier.verify(id)).join(QLatin1Char('\n'));
    };
    const auto full = [&] { return described(CampaignVerifier(ledger.redis, ledger.sql, ledger.keys).verify(id)).join(QLatin1Char('\n')); };
    QCOMPARE(view(), QString());
    QCOMPARE(full(), QString());
    const QString recordedCents = QStringLiteral("SELECT envelope_cents FROM envelope_split WHERE campaign_id = ?");
    QCOMPARE(ledger.scalar(recordedCents, {id}), 1000);

    // The recorded split is what a first open reads (not the rows): changed by hand, the view
    // shows it; the full check reads the rows and says the record differs from them.
    ledger.run(QStringLiteral("UPDATE envelope_split SET envelope_cents = envelope_cents + 1 WHERE campaign_id = ?"), {id});
    QVERIFY2(view().contains(QStringLiteral("envelopes sum to 1001 cents")), qPrintable(view()));
    const QString found = full();
    QVERIFY2(found.contains(QStringLiteral("%1/1/the launch recorded 10 envelopes of 1001 cents").arg(id)), qPrintable(found));
    QVERIFY2(found.contains(QStringLiteral("where the rows hold 10 of 1000 cents")), qPrintable(found));
    QVERIFY2(!found.contains(QStringLiteral("envelopes sum to")), qPrintable(found));
    ledger.run(QStringLiteral("UPDATE envelope_split SET envelope_cents = envelope_cents - 1 WHERE campaign_id = ?"), {id});

    // An envelope inserted after the last seq moves it: the record is not trusted, the rows are read.
    ledger.run(QStringLiteral("INSERT INTO envelope (campaign_id, seq, amount_cents) VALUES (?, 11, 1)"), {id});
    QVERIFY2(view().contains(QStringLiteral("11 envelopes in SQL, the campaign has 10")), qPrintable(view()));
    QVERIFY2(!full().contains(QStringLiteral("the launch recorded")), qPrintable(full()));
    // An envelope updated (even if put back) moves the watch: never trusted again, however the record reads.
    ledger.run(QStringLiteral("DELETE FROM envelope WHERE campaign_id = ? AND seq = 11"), {id});
    ledger.run(QStringLiteral("UPDATE envelope_split SET envelope_cents = envelope_cents + 1 WHERE campaign_id = ?"), {id});
    QCOMPARE(view(), QString());
    QCOMPARE(full(), QString());
}

LANTERN_TEST_SUITE(TestCampaignVerifier);

} // namespace tst_campaignverifier

#include "tst_campaignverifier.moc"
