// The Campaigns view's models, without servers: yuan text from int64 cents, the create dialog's
// validation, the split preview (histogram and figures of the exact split), the campaign list
// model and the grab-rate series, each model under QAbstractItemModelTester.
#include "console/campaigns/campaigndraftcheck.h"
#include "console/campaigns/campaigngrabrate.h"
#include "console/campaigns/campaignlistmodel.h"
#include "console/common/campaignmoney.h"
#include "console/campaigns/campaignsplitpreview.h"
#include "testsuite.h"

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSignalSpy>
#include <QTest>

#include <limits>
#include <numeric>

namespace tst_campaignmodels {

using namespace lantern;
using Field = CampaignDraftCheck::Field;

namespace {

CampaignDraftInput goodInput()
{
    CampaignDraftInput input;
    input.name = QStringLiteral("Spring Festival");
    input.total = QStringLiteral("888.88");
    input.count = QStringLiteral("100");
    input.minimum = QStringLiteral("0.01");
    input.seed = QStringLiteral("42");
    return input;
}

CampaignRow row(qint64 id, CampaignStatus status, qint64 grabbed)
{
    CampaignRow result;
    result.campaign.id = id;
    result.campaign.name = QStringLiteral("Campaign %1").arg(id);
    result.campaign.totalCents = 100'000;
    result.campaign.count = 500;
    result.campaign.status = status;
    result.grabbedCount = grabbed;
    result.grabbedCents = grabbed * 200;
    return result;
}

} // namespace

class TestCampaignModels final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void formatYuan_data();
    void formatYuan();
    void parseYuan_data();
    void parseYuan();
    void meanIsRounded();

    void draftCheck_data();
    void draftCheck();
    void draftCheckGivesTheDraft();
    void previewSpecWithoutAName();

    void previewSumsUp_data();
    void previewSumsUp();
    void previewModelUnderTester();
    void previewOfOneEnvelope();

    void listModelUnderTester();
    void listModelKeepsRowsOnSameIds();

    void grabRate();
    void grabRateGaps();
};

void TestCampaignModels::initTestCase()
{
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
}

void TestCampaignModels::formatYuan_data()
{
    QTest::addColumn<qint64>("cents");
    QTest::addColumn<QString>("text");
    QTest::newRow("one cent") << qint64(1) << QStringLiteral("¥0.01");
    QTest::newRow("zero") << qint64(0) << QStringLiteral("¥0.00");
    QTest::newRow("thousands grouped") << qint64(123456789) << QStringLiteral("¥1,234,567.89");
    QTest::newRow("negative") << qint64(-250) << QStringLiteral("-¥2.50");
    QTest::newRow("int64 max, exact") << std::numeric_limits<qint64>::max() << QStringLiteral("¥92,233,720,368,547,758.07");
    QTest::newRow("int64 min, no overflow") << std::numeric_limits<qint64>::min() << QStringLiteral("-¥92,233,720,368,547,758.08");
}

void TestCampaignModels::formatYuan()
{
    QFETCH(qint64, cents);
    QFETCH(QString, text);
    QCOMPARE(lantern::formatYuan(cents), text);
}

void TestCampaignModels::parseYuan_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<std::optional<qint64>>("cents");
    QTest::newRow("whole yuan") << QStringLiteral("12") << std::optional<qint64>(1200);
    QTest::newRow("one decimal") << QStringLiteral("12.5") << std::optional<qint64>(1250);
    QTest::newRow("two decimals") << QStringLiteral("0.01") << std::optional<qint64>(1);
    QTest::newRow("leading point") << QStringLiteral(".5") << std::optional<qint64>(50);
    QTest::newRow("grouped, with symbol") << QStringLiteral("¥1,234.56") << std::optional<qint64>(123456);
    QTest::newRow("fullwidth symbol") << QStringLiteral("￥8") << std::optional<qint64>(800);
    QTest::newRow("three decimals refused") << QStringLiteral("1.234") << std::optional<qint64>();
    QTest::newRow("negative refused") << QStringLiteral("-5") << std::optional<qint64>();
    QTest::newRow("exponent refused") << QStringLiteral("1e3") << std::optional<qint64>();
    QTest::newRow("empty refused") << QString() << std::optional<qint64>();
    QTest::newRow("lone point refused") << QStringLiteral(".") << std::optional<qint64>();
    QTest::newRow("int64 max cents") << QStringLiteral("92233720368547758.07") << std::optional<qint64>(std::numeric_limits<qint64>::max());
    QTest::newRow("one cent beyond int64 refused") << QStringLiteral("92233720368547758.08") << std::optional<qint64>();
    QTest::newRow("far beyond int64 refused") << QStringLiteral("99999999999999999999") << std::optional<qint64>();
}

void TestCampaignModels::parseYuan()
{
    QFETCH(QString, text);
    QFETCH(std::optional<qint64>, cents);
    QCOMPARE(lantern::parseYuan(text), cents);
}

void TestCampaignModels::meanIsRounded()
{
    QCOMPARE(meanCents(100, 3), qint64(33));
    QCOMPARE(meanCents(200, 3), qint64(67));
    QCOMPARE(meanCents(std::numeric_limits<qint64>::max(), 2), std::numeric_limits<qint64>::max() / 2 + 1);
}

void TestCampaignModels::draftCheck_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("total");
    QTest::addColumn<QString>("count");
    QTest::addColumn<QString>("minimum");
    QTest::addColumn<QString>("seed");
    QTest::addColumn<int>("field");
    QTest::addColumn<QString>("message");
    const auto row = [](const char *name, const QString &n, const QString &t, const QString &c, const QString &m, const QString &s, Field f,
                        const QString &message) { QTest::newRow(name) << n << t << c << m << s << int(f) << message; };
    const QString ok = QStringLiteral("x");
    row("blank name", QStringLiteral("   "), QStringLiteral("10"), QStringLiteral("5"), QStringLiteral("0.01"), QStringLiteral("1"), Field::Name,
        QStringLiteral("Give the campaign a name."));
    row("name of 129 characters", QString(129, QLatin1Char('n')), QStringLiteral("10"), QStringLiteral("5"), QStringLiteral("0.01"),
        QStringLiteral("1"), Field::Name, QStringLiteral("The name is too long: at most 128 characters."));
    row("control character in the name", QStringLiteral("a") + QChar(7) + QStringLiteral("b"), QStringLiteral("10"), QStringLiteral("5"), QStringLiteral("0.01"),
        QStringLiteral("1"), Field::Name, QStringLiteral("The name must not contain control characters."));
    row("count 0", ok, QStringLiteral("10"), QStringLiteral("0"), QStringLiteral("0.01"), QStringLiteral("1"), Field::Count,
        QStringLiteral("There must be at least one envelope."));
    row("count not a number", ok, QStringLiteral("10"), QStringLiteral("ten"), QStringLiteral("0.01"), QStringLiteral("1"), Field::Count,
        QStringLiteral("Not a whole number."));
    row("count over the maximum", ok, QStringLiteral("1000000"), QStringLiteral("10000001"), QStringLiteral("0.01"), QStringLiteral("1"),
        Field::Count, QStringLiteral("At most 10,000,000 envelopes per campaign."));
    row("total with three decimals", ok, QStringLiteral("1.001"), QStringLiteral("1"), QStringLiteral("0.01"), QStringLiteral("1"), Field::Total,
        QStringLiteral("Not an amount: use yuan with at most two decimals, e.g. 888.88 (and nothing beyond ¥92,233,720,368,547,758.07)."));
    row("total zero", ok, QStringLiteral("0"), QStringLiteral("1"), QStringLiteral("0.01"), QStringLiteral("1"), Field::Total,
        QStringLiteral("The total must be at least ¥0.01."));
    row("total below count × min", ok, QStringLiteral("0.99"), QStringLiteral("100"), QStringLiteral("0.01"), QStringLiteral("1"), Field::Total,
        QStringLiteral("Too little for 100 envelopes of at least ¥0.01: the total must be at least ¥1.00."));
    row("count × min overflows int64", ok, QStringLiteral("92233720368547758.07"), QStringLiteral("10000000"),
        QStringLiteral("92233720368547.76"), QStringLiteral("1"), Field::Minimum,
        QStringLiteral("10,000,000 envelopes of at least ¥92,233,720,368,547.76 is more money than can be counted: lower the count or the minimum."));
    row("minimum zero", ok, QStringLiteral("10"), QStringLiteral("5"), QStringLiteral("0"), QStringLiteral("1"), Field::Minimum,
        QStringLiteral("Every envelope must hold at least ¥0.01."));
    row("seed empty", ok, QStringLiteral("10"), QStringLiteral("5"), QStringLiteral("0.01"), QString(), Field::Seed,
        QStringLiteral("Enter a seed (a whole number), or press Random."));
    row("seed negative", ok, QStringLiteral("10"), QStringLiteral("5"), QStringLiteral("0.01"), QStringLiteral("-1"), Field::Seed,
        QStringLiteral("The seed is a whole number from 0 to 9223372036854775807."));
    row("seed beyond int64", ok, QStringLiteral("10"), QStringLiteral("5"), QStringLiteral("0.01"), QStringLiteral("9223372036854775808"),
        Field::Seed, QStringLiteral("The seed is a whole number from 0 to 9223372036854775807."));
}

void TestCampaignModels::draftCheck()
{
    QFETCH(QString, name);
    QFETCH(QString, total);
    QFETCH(QString, count);
    QFETCH(QString, minimum);
    QFETCH(QString, seed);
    QFETCH(int, field);
    QFETCH(QString, message);
    const CampaignDraftCheck check({name, total, count, minimum, SplitAlgorithm::DoubleMean, seed, 9});
    QVERIFY(!check.isValid());
    QVERIFY(!check.draft());
    QCOMPARE(check.error(Field(field)), message);
}

void TestCampaignModels::draftCheckGivesTheDraft()
{
    CampaignDraftInput input = goodInput();
    input.algorithm = SplitAlgorithm::UniformCuts;
    input.maxAttempts = 3;
    const CampaignDraftCheck check(input);
    QVERIFY2(check.isValid(), qPrintable(check.errors().values().join(QLatin1Char('|'))));
    QCOMPARE(check.draft()->name, QStringLiteral("Spring Festival"));
    QCOMPARE(check.draft()->totalCents, qint64(88888));
    QCOMPARE(check.draft()->count, qint64(100));
    QCOMPARE(check.draft()->minCents, qint64(1));
    QCOMPARE(check.draft()->algorithm, SplitAlgorithm::UniformCuts);
    QCOMPARE(check.draft()->seed, std::optional<quint64>(42));
    QCOMPARE(check.draft()->maxAttempts, 3);

    input.maxAttempts = 1001;
    QCOMPARE(CampaignDraftCheck(input).error(Field::MaxAttempts), QStringLiteral("From 1 to 1000 grab attempts per user."));
}

void TestCampaignModels::previewSpecWithoutAName()
{
    CampaignDraftInput input = goodInput();
    input.name.clear();
    const CampaignDraftCheck check(input);
    QVERIFY(!check.isValid());
    QVERIFY(check.splitSpec());  // the split can be previewed before the name is typed
    QCOMPARE(check.splitSpec()->totalCents, qint64(88888));
    input.count = QStringLiteral("0");
    QVERIFY(!CampaignDraftCheck(input).splitSpec());
}

void TestCampaignModels::previewSumsUp_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<qint64>("total");
    QTest::addColumn<qint64>("count");
    QTest::addColumn<qint64>("minimum");
    QTest::newRow("double mean, 10,000 of ¥88,888") << int(SplitAlgorithm::DoubleMean) << qint64(8'888'800) << qint64(10'000) << qint64(1);
    QTest::newRow("smoothed, 1,000 of ¥500 min ¥0.10") << int(SplitAlgorithm::Smoothed) << qint64(50'000) << qint64(1'000) << qint64(10);
    QTest::newRow("uniform cuts, 777 envelopes") << int(SplitAlgorithm::UniformCuts) << qint64(1'000'000) << qint64(777) << qint64(1);
    QTest::newRow("every envelope the minimum") << int(SplitAlgorithm::DoubleMean) << qint64(500) << qint64(500) << qint64(1);
}

void TestCampaignModels::previewSumsUp()
{
    QFETCH(int, algorithm);
    QFETCH(qint64, total);
    QFETCH(qint64, count);
    QFETCH(qint64, minimum);
    const SplitSpec spec{total, count, minimum, SplitAlgorithm(algorithm), 20250101};
    const SplitPreview preview = computeSplitPreview(spec, 16, 10);
    const std::vector<qint64> amounts = splitEnvelopes(spec);
    QCOMPARE(preview.minCents, *std::min_element(amounts.cbegin(), amounts.cend()));
    QCOMPARE(preview.maxCents, *std::max_element(amounts.cbegin(), amounts.cend()));
    QVERIFY(preview.minCents >= minimum);
    QCOMPARE(preview.meanCents, meanCents(total, count));
    QVERIFY(preview.buckets.size() >= 1 && preview.buckets.size() <= 16);
    qint64 inBuckets = 0;
    qint64 previousTo = preview.minCents - 1;
    for (const SplitBucket &bucket : preview.buckets) {
        QCOMPARE(bucket.fromCents, previousTo + 1);  // contiguous, no gaps, no overlaps
        QVERIFY(bucket.toCents >= bucket.fromCents);
        previousTo = bucket.toCents;
        inBuckets += bucket.envelopes;
    }
    QCOMPARE(previousTo, preview.maxCents);
    QCOMPARE(inBuckets, count);
    QCOMPARE(preview.firstAmounts.size(), qsizetype(std::min<qint64>(10, count)));
    QCOMPARE(preview.firstAmounts.constFirst(), amounts.front());
    QCOMPARE(preview.atMinimum, qint64(std::count(amounts.cbegin(), amounts.cend(), minimum)));
}

void TestCampaignModels::previewModelUnderTester()
{
    SplitPreviewModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    model.setPreview(computeSplitPreview({100'000, 300, 1, SplitAlgorithm::Smoothed, 7}));
    QVERIFY(model.rowCount() > 1);
    QCOMPARE(model.columnCount(), int(SplitPreviewModel::ColumnCount));
    qint64 total = 0;
    for (int row = 0; row < model.rowCount(); ++row)
        total += model.index(row, SplitPreviewModel::Envelopes).data(SplitPreviewModel::ValueRole).toLongLong();
    QCOMPARE(total, qint64(300));
    QCOMPARE(model.index(0, SplitPreviewModel::From).data().toString(), lantern::formatYuan(model.preview().minCents));
    model.clear();
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(!model.hasPreview());
}

void TestCampaignModels::previewOfOneEnvelope()
{
    const SplitPreview preview = computeSplitPreview({12345, 1, 1, SplitAlgorithm::DoubleMean, 1});
    QCOMPARE(preview.buckets.size(), qsizetype(1));
    QCOMPARE(preview.buckets.constFirst().envelopes, qint64(1));
    QCOMPARE(preview.minCents, qint64(12345));
    QCOMPARE(preview.maxCents, qint64(12345));
    QCOMPARE(preview.medianCents, qint64(12345));
}

void TestCampaignModels::listModelUnderTester()
{
    CampaignListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPage({{row(3, CampaignStatus::Live, 120), row(2, CampaignStatus::Paused, 500), row(1, CampaignStatus::Draft, 0)}, 0, 3});
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.columnCount(), int(CampaignListModel::ColumnCount));
    QCOMPARE(model.index(0, CampaignListModel::Progress).data().toString(), QStringLiteral("120 / 500"));
    QCOMPARE(model.index(0, CampaignListModel::Total).data().toString(), QStringLiteral("¥1,000.00"));
    QCOMPARE(model.index(0, CampaignListModel::Grabbed).data().toString(), QStringLiteral("¥240.00"));
    QCOMPARE(model.index(1, CampaignListModel::Status).data().toString(), QStringLiteral("Paused"));
    QCOMPARE(model.index(1, CampaignListModel::Grabbed).data(CampaignListModel::ValueRole).toLongLong(), qint64(100'000));
    QCOMPARE(model.index(2, CampaignListModel::Name).data(CampaignListModel::IdRole).toLongLong(), qint64(1));
    QCOMPARE(model.rowOf(2), 1);
    QCOMPARE(model.rowOf(99), -1);
    model.setPage({{row(4, CampaignStatus::Draft, 0)}, 0, 4});
    QCOMPARE(model.rowCount(), 1);
    model.setPage({});
    QCOMPARE(model.rowCount(), 0);
}

void TestCampaignModels::listModelKeepsRowsOnSameIds()
{
    CampaignListModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setPage({{row(2, CampaignStatus::Live, 1), row(1, CampaignStatus::Live, 1)}, 0, 2});
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
    model.setPage({{row(2, CampaignStatus::Live, 9), row(1, CampaignStatus::Closed, 1)}, 0, 2});
    QCOMPARE(resets.size(), 0);
    QCOMPARE(changes.size(), 1);
    QCOMPARE(model.index(0, CampaignListModel::Progress).data().toString(), QStringLiteral("9 / 500"));
    QCOMPARE(model.index(1, CampaignListModel::Status).data().toString(), QStringLiteral("Closed"));
}

void TestCampaignModels::grabRate()
{
    GrabRateSeries series(3);
    QVERIFY(!series.addReading(7, 10'000, 0));       // the first reading gives no rate
    QVERIFY(series.addReading(7, 12'000, 100));      // 100 grabs in 2 s
    QCOMPARE(series.points().constLast().perSecond, 50.0);
    QVERIFY(!series.addReading(7, 12'100, 130));     // too soon after the last: folded
    QVERIFY(series.addReading(7, 13'000, 130));
    QCOMPARE(series.points().constLast().perSecond, 30.0);
    QVERIFY(series.addReading(7, 14'000, 130));
    QVERIFY(series.addReading(7, 15'000, 330));
    QCOMPARE(series.points().size(), qsizetype(3));  // bounded
    QCOMPARE(series.peak(), 200.0);
    QVERIFY(!series.addReading(8, 16'000, 5));       // another campaign starts over
    QVERIFY(series.points().isEmpty());
    QCOMPARE(series.readings(), 1);
}

// A time nothing was read is a gap in the chart, not a straight line across it.
void TestCampaignModels::grabRateGaps()
{
    GrabRateSeries series;
    QVERIFY(!series.addReading(7, 0, 0));
    QVERIFY(series.addReading(7, 2'000, 20));    // every 2 s
    QVERIFY(series.addReading(7, 4'000, 40));
    QVERIFY(!series.addReading(7, 64'000, 640)); // a minute without a reading: no rate averaged over it
    QVERIFY(series.addReading(7, 66'000, 700));  // every 2 s again: a new segment
    QVERIFY(series.points().constLast().afterGap);
    QCOMPARE(series.points().constLast().perSecond, 30.0);
    QVERIFY(series.addReading(7, 68'000, 720));
    QVERIFY(!series.points().constLast().afterGap);
    QCOMPARE(series.segments().size(), qsizetype(2));
    QCOMPARE(series.segments().constFirst().size(), qsizetype(2));
    QCOMPARE(series.segments().constLast().size(), qsizetype(2));

    // A slower refresh is no gap once it is the rhythm: 30 s after 30 s joins up.
    GrabRateSeries slow;
    slow.addReading(7, 0, 0);
    slow.addReading(7, 30'000, 30);
    slow.addReading(7, 60'000, 60);
    slow.addReading(7, 90'000, 90);
    QCOMPARE(slow.segments().size(), qsizetype(1));
    // Short silences under GapMs never cut, whatever the rhythm before.
    GrabRateSeries quick;
    quick.addReading(7, 0, 0);
    quick.addReading(7, 500, 5);
    quick.addReading(7, 1'000, 10);
    quick.addReading(7, 4'000, 40);
    QCOMPARE(quick.segments().size(), qsizetype(1));
}

LANTERN_TEST_SUITE(TestCampaignModels);

} // namespace tst_campaignmodels

#include "tst_campaignmodels.moc"
