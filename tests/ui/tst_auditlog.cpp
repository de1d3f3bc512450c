// The Audit log: AuditQuery's keyset pages, sort orders and filters on both SQL dialects (rows written by
// AuditLog::record, as every command writes them), AuditLogModel under QAbstractItemModelTester,
// AuditService on its own thread, and the AuditView paging, sorting and filtering through its
// buttons and header.
// The test waits on signals only.
#include "audit/auditlog.h"
#include "audit/auditdetailpanel.h"
#include "audit/auditview.h"
#include "console/audit/auditlogmodel.h"
#include "console/audit/auditquery.h"
#include "console/audit/auditservice.h"
#include "console/common/dedicatedthread.h"
#include "common/messagebanner.h"
#include "mysqlportability.h"
#include "sql/migrator.h"
#include "sql/sqlconnection.h"
#include "testservers.h"
#include "testsuite.h"

#include <QAbstractItemModelTester>
#include <QDirIterator>
#include <QFile>
#include <QRegularExpression>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QStandardPaths>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

namespace tst_auditlog {

using namespace lantern;
using lantern::ui::AuditView;
using lantern::ui::MessageBanner;

namespace {

constexpr int AnswerTimeoutMs = 15000;
constexpr int Rows = 450;
const QTimeZone Shanghai("Asia/Shanghai");
const QStringList Actors{QStringLiteral("alice"), QStringLiteral("bob"), QStringLiteral("carol-ops")};
const QStringList Actions{QStringLiteral("checkin.makeup"), QStringLiteral("campaign.create"), QStringLiteral("campaign.launch"),
                          QStringLiteral("queue.recover")};

/** Row i: every 30 minutes from 2025-03-01 00:00 in Shanghai. */
AuditEntry seed(int i)
{
    AuditEntry entry;
    entry.atMs = QDateTime(QDate(2025, 3, 1), QTime(0, 0), Shanghai).addSecs(qint64(i) * 1800).toMSecsSinceEpoch();
    entry.actor = Actors.at(i % Actors.size());
    entry.action = Actions.at(i % Actions.size());
    entry.target = entry.action.startsWith(QLatin1String("campaign")) ? QStringLiteral("campaign:%1").arg(i % 7)
                                                                      : QStringLiteral("uid:%1").arg(10000 + i % 10);
    entry.detail = QStringLiteral("{\"reason\":\"case %1\",\"via\":\"console\"}").arg(i);
    return entry;
}

QList<qint64> idsOf(const QList<AuditEntry> &entries)
{
    QList<qint64> ids;
    for (const AuditEntry &entry : entries)
        ids << entry.id;
    return ids;
}

} // namespace

class TestAuditLog final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void pagesAreKeysetNewestFirst_data() { dialects(); }
    void pagesAreKeysetNewestFirst();
    void filters_data();
    void filters();
    void likeWildcardsMatchLiterally_data() { dialects(); }
    void likeWildcardsMatchLiterally();
    void filteredPagesCoverEveryMatch_data() { dialects(); }
    void filteredPagesCoverEveryMatch();
    void sortsTheWholeLogByEachColumn_data();
    void sortsTheWholeLogByEachColumn();

    void modelPassesTheTester();
    void readableDetail_data();
    void readableDetail();
    void everyActionTheProductRecordsHasWords();

    void serviceAnswersOnItsThread();
    void serviceExplainsAnUnreachableDatabase();
    void viewPagesAndFilters();
    void viewSortsByAHeaderClick();

private:
    void dialects();
    /** The seeded rows matching `filter` (what the database must answer), newest first. */
    QList<qint64> expected(const AuditFilter &filter) const;
    /** expected(filter) in `order`, sorted here (ties by id in the same direction). */
    QList<qint64> expected(const AuditFilter &filter, const AuditOrder &order) const;
    static QList<qint64> allPages(SqlConnection &sql, const AuditFilter &filter, int pageSize, const AuditOrder &order = {});
    /** The view's configuration on `dialect`'s database, in Shanghai, on 2025-03-10. */
    Config viewConfig(const QString &dialect) const;
    /** Shows `view` on `config` and waits for its first page. */
    static void showView(AuditView &view, const Config &config);

    QMap<QString, DbUrl> m_urls;
    QList<AuditEntry> m_seeded;  // with the ids the database gave them, oldest first
};

void TestAuditLog::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
    for (const auto &[name, url] : test::sqlDialects()) {
        test::resetTables(url);
        SqlConnection sql(url);
        QList<AuditEntry> seeded;
        sql.transaction([&] {
            for (int i = 0; i < Rows; ++i) {
                AuditEntry entry = seed(i);
                AuditLog(sql).record(entry.actor, entry.action, entry.target, QJsonDocument::fromJson(entry.detail.toUtf8()).object(),
                                     entry.atMs);
                seeded << entry;
            }
            // Targets holding LIKE's wildcards, and one they would match if not escaped.
            for (const QString &target : {QStringLiteral("queue:100%_done!"), QStringLiteral("queue:100xydone!")}) {
                AuditEntry entry = seed(Rows);
                entry.target = target;
                entry.action = QStringLiteral("queue.recover");
                AuditLog(sql).record(entry.actor, entry.action, entry.target, {}, entry.atMs);
                entry.detail = QStringLiteral("{}");
                seeded << entry;
            }
        });
        QSqlQuery ids = sql.exec(QStringLiteral("SELECT id FROM audit_log ORDER BY id"));
        for (AuditEntry &entry : seeded) {
            QVERIFY(ids.next());
            entry.id = ids.value(0).toLongLong();
        }
        m_seeded = seeded;  // the same rows in both dialects, only the ids may differ
        m_urls.insert(name, url);
    }
}

void TestAuditLog::dialects()
{
    QTest::addColumn<DbUrl>("url");
    for (auto it = m_urls.cbegin(); it != m_urls.cend(); ++it)
        QTest::newRow(qPrintable(it.key())) << it.value();
}

QList<qint64> TestAuditLog::allPages(SqlConnection &sql, const AuditFilter &filter, int pageSize, const AuditOrder &order)
{
    QList<qint64> ids;
    AuditQuery query(sql, Shanghai);
    AuditCursor cursor;
    for (int pages = 0; pages < 100; ++pages) {
        const AuditPage page = query.page(filter, order, cursor, pageSize);
        ids += idsOf(page.entries);
        if (!page.hasMore)
            return ids;
        cursor = AuditCursor::after(page.entries.constLast(), order.key);
    }
    return ids;
}

QList<qint64> TestAuditLog::expected(const AuditFilter &filter, const AuditOrder &order) const
{
    const auto valueOf = [&](const AuditEntry &entry) -> QVariant {
        switch (order.key) {
        case AuditOrder::Key::Actor:
            return entry.actor;
        case AuditOrder::Key::Action:
            return entry.action;
        case AuditOrder::Key::Target:
            return entry.target;
        case AuditOrder::Key::Time:
            break;
        }
        return entry.atMs;
    };
    QHash<qint64, const AuditEntry *> byId;
    for (const AuditEntry &entry : m_seeded)
        byId.insert(entry.id, &entry);
    QList<qint64> ids = expected(filter);
    // The seeded texts are lower-case ASCII that differ before any punctuation, so a byte order
    // here is also MariaDB's utf8mb4_general_ci order.
    std::sort(ids.begin(), ids.end(), [&](qint64 a, qint64 b) {
        const QVariant va = valueOf(*byId.value(a));
        const QVariant vb = valueOf(*byId.value(b));
        const QPartialOrdering cmp = QVariant::compare(va, vb);
        const bool less = cmp == QPartialOrdering::Less || (cmp == QPartialOrdering::Equivalent && a < b);
        const bool greater = cmp == QPartialOrdering::Greater || (cmp == QPartialOrdering::Equivalent && a > b);
        return order.direction == Qt::AscendingOrder ? less : greater;
    });
    return ids;
}

QList<qint64> TestAuditLog::expected(const AuditFilter &filter) const
{
    QList<qint64> ids;
    for (auto it = m_seeded.crbegin(); it != m_seeded.crend(); ++it) {
        const QDate day = QDateTime::fromMSecsSinceEpoch(it->atMs, Shanghai).date();
        if (!filter.actor.isEmpty() && !it->actor.contains(filter.actor, Qt::CaseInsensitive))
            continue;
        if (!filter.action.isEmpty() && !it->action.startsWith(filter.action, Qt::CaseInsensitive))
            continue;
        if (!filter.target.isEmpty() && !it->target.contains(filter.target, Qt::CaseInsensitive))
            continue;
        if ((filter.from.isValid() && day < filter.from) || (filter.to.isValid() && day > filter.to))
            continue;
        ids << it->id;
    }
    return ids;
}

void TestAuditLog::pagesAreKeysetNewestFirst()
{
    QFETCH(DbUrl, url);
    SqlConnection sql(url);
    AuditQuery query(sql, Shanghai);
    const auto ids = [&](qint64 lastId) {
        AuditCursor after;
        for (const AuditEntry &entry : m_seeded) {
            if (entry.id == lastId)
                after = AuditCursor::after(entry, AuditOrder::Key::Time);
        }
        return query.page({}, {}, after, 200);
    };
    const QList<qint64> all = expected({});
    QCOMPARE(all.size(), Rows + 2);

    const AuditPage first = ids(0);
    QCOMPARE(first.entries.size(), 200);
    QVERIFY(first.hasMore);
    QCOMPARE(idsOf(first.entries), all.mid(0, 200));  // newest first
    QCOMPARE(first.entries.first().actor, m_seeded.last().actor);
    const AuditPage second = ids(first.entries.last().id);
    QCOMPARE(idsOf(second.entries), all.mid(200, 200));
    QVERIFY(second.hasMore);
    const AuditPage third = ids(second.entries.last().id);
    QCOMPARE(idsOf(third.entries), all.mid(400));
    QCOMPARE(third.entries.size(), Rows + 2 - 400);
    QVERIFY(!third.hasMore);
    QCOMPARE(third.after.id, second.entries.last().id);
    QCOMPARE(third.after.value.toLongLong(), second.entries.last().atMs);

    // A row written meanwhile shows on the newest page without shifting older pages.
    AuditLog(sql).record(QStringLiteral("dave"), QStringLiteral("api.switch"), QStringLiteral("checkin"), {}, m_seeded.last().atMs + 1000);
    QCOMPARE(idsOf(ids(first.entries.last().id).entries), idsOf(second.entries));
    QCOMPARE(ids(0).entries.first().actor, QStringLiteral("dave"));
    sql.exec(QStringLiteral("DELETE FROM audit_log WHERE actor = 'dave'"));

    // A page is capped, whatever is asked for.
    QCOMPARE(query.page({}, {}, {}, 1'000'000).entries.size(), AuditQuery::MaxPageSize < Rows ? AuditQuery::MaxPageSize : Rows + 2);
}

void TestAuditLog::filters_data()
{
    QTest::addColumn<DbUrl>("url");
    QTest::addColumn<AuditFilter>("filter");
    for (auto it = m_urls.cbegin(); it != m_urls.cend(); ++it) {
        const auto row = [&](const char *name, const AuditFilter &filter) {
            QTest::newRow(qPrintable(it.key() + QStringLiteral(": ") + QLatin1String(name))) << it.value() << filter;
        };
        row("actor contains 'ops' -> carol-ops only", {QStringLiteral("ops"), {}, {}, {}, {}});
        row("actor match ignores case", {QStringLiteral("ALICE"), {}, {}, {}, {}});
        row("action prefix 'campaign' -> create and launch", {{}, QStringLiteral("campaign"), {}, {}, {}});
        row("action exact 'checkin.makeup'", {{}, QStringLiteral("checkin.makeup"), {}, {}, {}});
        row("target contains 'uid:10003'", {{}, {}, QStringLiteral("uid:10003"), {}, {}});
        row("one business day in Asia/Shanghai", {{}, {}, {}, QDate(2025, 3, 3), QDate(2025, 3, 3)});
        row("from a day on", {{}, {}, {}, QDate(2025, 3, 9), {}});
        row("up to a day", {{}, {}, {}, {}, QDate(2025, 3, 1)});
        row("everything at once", {QStringLiteral("bob"), QStringLiteral("queue"), QStringLiteral("uid:1000"), QDate(2025, 3, 2), QDate(2025, 3, 5)});
        row("nothing matches", {QStringLiteral("nobody"), {}, {}, {}, {}});
    }
}

void TestAuditLog::filters()
{
    QFETCH(DbUrl, url);
    QFETCH(AuditFilter, filter);
    SqlConnection sql(url);
    const QList<qint64> want = expected(filter);
    QCOMPARE(allPages(sql, filter, 1000), want);
    if (filter.from.isValid() && filter.from == filter.to)
        QCOMPARE(want.size(), 48);  // 24 hours of a row every 30 minutes, in the zone's day
}

void TestAuditLog::likeWildcardsMatchLiterally()
{
    QFETCH(DbUrl, url);
    SqlConnection sql(url);
    AuditQuery query(sql, Shanghai);
    const AuditPage page = query.page({{}, {}, QStringLiteral("100%_done!"), {}, {}});
    QCOMPARE(page.entries.size(), 1);
    QCOMPARE(page.entries.first().target, QStringLiteral("queue:100%_done!"));
    QCOMPARE(query.page({{}, {}, QStringLiteral("queue:100"), {}, {}}).entries.size(), 2);
    QCOMPARE(query.page({{}, QStringLiteral("_"), {}, {}, {}}).entries.size(), 0);
}

void TestAuditLog::filteredPagesCoverEveryMatch()
{
    QFETCH(DbUrl, url);
    SqlConnection sql(url);
    const AuditFilter filter{QStringLiteral("a"), QStringLiteral("c"), {}, QDate(2025, 3, 2), {}};
    const QList<qint64> want = expected(filter);
    QVERIFY(want.size() > 60);
    QCOMPARE(allPages(sql, filter, 25), want);  // several pages, no gaps, no repeats
}

void TestAuditLog::modelPassesTheTester()
{
    AuditLogModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setTimeZone(Shanghai);
    SqlConnection sql(m_urls.first());
    AuditQuery query(sql, Shanghai);
    const AuditPage first = query.page({}, {}, {}, 200);
    model.setPage(first);
    QCOMPARE(model.rowCount(), 200);
    QCOMPARE(model.columnCount(), int(AuditLogModel::ColumnCount));
    const AuditEntry &newest = first.entries.first();
    QCOMPARE(model.data(model.index(0, AuditLogModel::Actor)).toString(), newest.actor);
    // The action in words; its stored name in the tooltip (and the CSV).
    QCOMPARE(model.data(model.index(0, AuditLogModel::Action)).toString(), AuditLogModel::actionText(newest.action));
    QCOMPARE(model.data(model.index(0, AuditLogModel::Action), Qt::ToolTipRole).toString(), newest.action);
    QCOMPARE(model.data(model.index(0, AuditLogModel::Target)).toString(), newest.target);
    QCOMPARE(model.data(model.index(0, AuditLogModel::Time)).toString(),
             QDateTime::fromMSecsSinceEpoch(newest.atMs, Shanghai).toString(u"yyyy-MM-dd HH:mm:ss"));
    QCOMPARE(model.data(model.index(0, 0), AuditLogModel::IdRole).toLongLong(), newest.id);
    QCOMPARE(model.rowOf(newest.id), 0);
    const AuditEntry &row5 = first.entries.at(5);
    QVERIFY(model.data(model.index(5, AuditLogModel::Detail)).toString().contains(QLatin1String("Reason: ")));
    QCOMPARE(model.data(model.index(5, AuditLogModel::Detail)).toString(), AuditLogModel::readableDetail(row5.detail));
    QVERIFY(model.headerData(AuditLogModel::Detail, Qt::Horizontal).toString().size() > 0);
    model.setPage(query.page({}, {}, AuditCursor::after(first.entries.last(), AuditOrder::Key::Time), 200));
    QCOMPARE(model.rowCount(), 200);
    model.setTimeZone(QTimeZone::utc());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
}

void TestAuditLog::readableDetail_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("readable");
    QTest::newRow("pairs in key order") << QStringLiteral("{\"via\":\"console\",\"reason\":\"outage\"}")
                                        << QStringLiteral("Reason: outage · Via: console");
    QTest::newRow("money as money, counts grouped") << QStringLiteral("{\"count\":1000,\"total_cents\":500000}")
                                                    << QStringLiteral("Envelopes: 1,000 · Total: ¥5,000.00");
    QTest::newRow("a refund of 4,960.26 yuan") << QStringLiteral("{\"refunded_cents\":496026,\"status\":\"closed\"}")
                                               << QStringLiteral("Refunded: ¥4,960.26 · Status: closed");
    QTest::newRow("unknown keys as words, money keys without _cents")
            << QStringLiteral("{\"bonus_pool_cents\":-250,\"pool_size\":12345}") << QStringLiteral("Bonus pool: -¥2.50 · Pool size: 12,345");
    QTest::newRow("identifiers not grouped") << QStringLiteral("{\"id\":12345}") << QStringLiteral("Campaign: 12345");
    QTest::newRow("a list as its items (issue 24, point 10)") << QStringLiteral("{\"ids\":[1,2],\"ok\":true}") << QStringLiteral("Ids: 1, 2 · Ok: yes");
    QTest::newRow("an amount stored as a string") << QStringLiteral("{\"amount_cents\":\"1943\"}") << QStringLiteral("Amount: ¥19.43");
    QTest::newRow("empty object -> nothing") << QStringLiteral("{}") << QString();
    QTest::newRow("empty values are left out") << QStringLiteral("{\"reason\":\"\",\"via\":\"cli\"}") << QStringLiteral("Via: cli");
    QTest::newRow("not JSON -> as it is") << QStringLiteral("legacy text") << QStringLiteral("legacy text");
}

void TestAuditLog::everyActionTheProductRecordsHasWords()
{
    // Every action name written anywhere in the product's sources (the audit model's own table
    // aside) is shown in words, so a Chinese operator never reads "campaign.schedule". Planting
    // an action without words here fails it.
    const QRegularExpression actionLiteral(QStringLiteral(R"re(QStringLiteral\("((?:campaign|checkin|deadletter|queue|api|access|operator)\.[a-z_]+)"\))re"));
    QStringList found;
    const QString root = test::MySqlPortabilityCheck::projectRoot();
    for (const QString &folder : {QStringLiteral("models"), QStringLiteral("app")}) {
        QDirIterator files(root + QLatin1Char('/') + folder, {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            const QString path = files.next();
            if (path.contains(QLatin1String("/models/console/audit/")))
                continue;
            QFile file(path);
            QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
            const QString text = QString::fromUtf8(file.readAll());
            for (auto match = actionLiteral.globalMatch(text); match.hasNext();) {
                const QString action = match.next().captured(1);
                if (!found.contains(action))
                    found << action;
            }
        }
    }
    QVERIFY2(found.size() >= 20, qPrintable(found.join(QLatin1Char(' '))));  // the scan reads the sources at all
    QStringList without;
    for (const QString &action : std::as_const(found)) {
        if (AuditLogModel::actionText(action) == action)
            without << action;
    }
    QVERIFY2(without.isEmpty(), qPrintable(QStringLiteral("audit actions without words: ") + without.join(QStringLiteral(", "))));
}

void TestAuditLog::readableDetail()
{
    QFETCH(QString, json);
    QFETCH(QString, readable);
    QCOMPARE(AuditLogModel::readableDetail(json), readable);
}

void TestAuditLog::serviceAnswersOnItsThread()
{
    Config config;
    config.db = m_urls.value(QStringLiteral("mysql"));
    config.timeZone = Shanghai;
    DedicatedThread<AuditService> service(QStringLiteral("audit-log"), config);
    QVERIFY(service->thread() != QThread::currentThread());
    QSignalSpy loaded(service.get(), &AuditService::pageLoaded);
    const AuditFilter filter{{}, QStringLiteral("checkin.makeup"), {}, {}, {}};
    const AuditOrder byActor{AuditOrder::Key::Actor, Qt::AscendingOrder};
    QMetaObject::invokeMethod(service.get(), "loadPage", Qt::QueuedConnection, Q_ARG(quint64, 7), Q_ARG(lantern::AuditFilter, filter),
                              Q_ARG(lantern::AuditOrder, byActor), Q_ARG(lantern::AuditCursor, AuditCursor{}), Q_ARG(int, 50));
    QVERIFY(loaded.wait(AnswerTimeoutMs));
    QCOMPARE(loaded.first().at(0).value<quint64>(), quint64(7));
    const auto page = loaded.first().at(1).value<AuditPage>();
    QCOMPARE(idsOf(page.entries), expected(filter, byActor).mid(0, 50));
    QVERIFY(page.hasMore);
    QCOMPARE(page.order, byActor);
}

void TestAuditLog::serviceExplainsAnUnreachableDatabase()
{
    Config config;
    config.db = DbUrl::parse(QStringLiteral("mysql://lantern@127.0.0.1:1/lantern"));
    DedicatedThread<AuditService> service(QStringLiteral("audit-log"), config);
    QSignalSpy failed(service.get(), &AuditService::loadFailed);
    QMetaObject::invokeMethod(service.get(), "loadPage", Qt::QueuedConnection, Q_ARG(quint64, 1), Q_ARG(lantern::AuditFilter, AuditFilter{}),
                              Q_ARG(lantern::AuditOrder, AuditOrder{}), Q_ARG(lantern::AuditCursor, AuditCursor{}), Q_ARG(int, 50));
    QVERIFY(failed.wait(AnswerTimeoutMs));
    QCOMPARE(failed.first().at(1).toString(),
             QStringLiteral("The database at mysql://lantern@127.0.0.1:1/lantern cannot be reached. Check that it is running, then try again."));
    QVERIFY(!failed.first().at(2).toString().isEmpty());  // the technical cause, behind Details
}

Config TestAuditLog::viewConfig(const QString &dialect) const
{
    Config config;
    config.db = m_urls.value(dialect);
    config.timeZone = Shanghai;
    config.todayOverride = QDate(2025, 3, 10);
    return config;
}

void TestAuditLog::showView(AuditView &view, const Config &config)
{
    view.resize(1100, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy shown(&view, &AuditView::pageShown);
    view.attachBackend(config);
    QVERIFY(shown.wait(AnswerTimeoutMs));
}

void TestAuditLog::viewPagesAndFilters()
{
    const Config config = viewConfig(QStringLiteral("sqlite"));
    SqlConnection sql(config.db);
    const QList<qint64> all = allPages(sql, {}, 1000);

    AuditView view;
    QSignalSpy shown(&view, &AuditView::pageShown);
    showView(view, config);
    if (QTest::currentTestFailed())
        return;
    QCOMPARE(view.model()->rowCount(), AuditView::PageSize);
    QCOMPARE(view.model()->data(view.model()->index(0, 0), AuditLogModel::IdRole).toLongLong(), all.first());
    QVERIFY(!view.previousButton()->isEnabled());
    QVERIFY(view.nextButton()->isEnabled());
    QVERIFY(view.pageLabel()->text().endsWith(QStringLiteral("newest first")));

    // Next, Next, then Previous: the pages of the keyset, no row twice.
    QTest::mouseClick(view.nextButton(), Qt::LeftButton);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(view.pageNumber(), 2);
    QCOMPARE(view.model()->data(view.model()->index(0, 0), AuditLogModel::IdRole).toLongLong(), all.at(200));
    QTest::mouseClick(view.nextButton(), Qt::LeftButton);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(view.model()->rowCount(), Rows + 2 - 400);
    QVERIFY(!view.nextButton()->isEnabled());
    QTest::mouseClick(view.previousButton(), Qt::LeftButton);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(view.pageNumber(), 2);
    QCOMPARE(view.model()->data(view.model()->index(199, 0), AuditLogModel::IdRole).toLongLong(), all.at(399));

    // Selecting a row spells its detail out.
    view.table()->selectRow(3);
    const AuditEntry &selected = view.model()->entryAt(3);
    QVERIFY(view.detailPanel()->text().contains(selected.actor));
    QVERIFY(view.detailPanel()->text().contains(QStringLiteral("case ")));
    QVERIFY(view.detailPanel()->text().contains(QStringLiteral("Asia/Shanghai")));

    // Typing a target filters from the newest page on.
    const AuditFilter filter{{}, {}, QStringLiteral("uid:10003"), {}, {}};
    view.setFilter(filter);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(view.pageNumber(), 1);
    QCOMPARE(view.model()->rowCount(), expected(filter).size());
    for (int row = 0; row < view.model()->rowCount(); ++row)
        QCOMPARE(view.model()->entryAt(row).target, QStringLiteral("uid:10003"));

    view.setFilter({QStringLiteral("nobody"), {}, {}, {}, {}});
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(view.model()->rowCount(), 0);
    QCOMPARE(view.banner()->text(), QStringLiteral("No audit entries match these filters."));
}

void TestAuditLog::sortsTheWholeLogByEachColumn_data()
{
    QTest::addColumn<DbUrl>("url");
    QTest::addColumn<AuditOrder>("order");
    QTest::addColumn<AuditFilter>("filter");
    const QList<std::pair<const char *, AuditOrder::Key>> keys{{"time", AuditOrder::Key::Time},
                                                               {"who", AuditOrder::Key::Actor},
                                                               {"action", AuditOrder::Key::Action},
                                                               {"target", AuditOrder::Key::Target}};
    for (auto it = m_urls.cbegin(); it != m_urls.cend(); ++it) {
        for (const auto &[name, key] : keys) {
            for (const Qt::SortOrder direction : {Qt::AscendingOrder, Qt::DescendingOrder}) {
                const QString row = it.key() + QStringLiteral(": by ") + QLatin1String(name)
                                    + (direction == Qt::AscendingOrder ? QStringLiteral(" ascending") : QStringLiteral(" descending"));
                QTest::newRow(qPrintable(row)) << it.value() << AuditOrder{key, direction} << AuditFilter{};
                QTest::newRow(qPrintable(row + QStringLiteral(", filtered"))) << it.value() << AuditOrder{key, direction}
                                                                              << AuditFilter{{}, QStringLiteral("c"), {}, QDate(2025, 3, 2), {}};
            }
        }
    }
}

void TestAuditLog::sortsTheWholeLogByEachColumn()
{
    QFETCH(DbUrl, url);
    QFETCH(AuditOrder, order);
    QFETCH(AuditFilter, filter);
    SqlConnection sql(url);
    const QList<qint64> want = expected(filter, order);
    QVERIFY(want.size() > 100);
    // Pages of 37 cut through runs of equal values (150 rows share each actor): the id breaks
    // the ties, so no row is shown twice or skipped at a page boundary.
    QCOMPARE(allPages(sql, filter, 37, order), want);
    QCOMPARE(allPages(sql, filter, 1000, order), want);
}

void TestAuditLog::viewSortsByAHeaderClick()
{
    const Config config = viewConfig(QStringLiteral("mysql"));

    AuditView view;
    QSignalSpy shown(&view, &AuditView::pageShown);
    showView(view, config);
    if (QTest::currentTestFailed())
        return;
    QHeaderView *header = view.table()->horizontalHeader();
    QCOMPARE(header->sortIndicatorSection(), int(AuditLogModel::Time));
    QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);

    // A click on "Who" sorts the whole log by who (not the page shown): carol-ops's rows are on
    // page 1 only once the database sorted all of them.
    const auto clickHeader = [&](int column) {
        const QPoint at(header->sectionViewportPosition(column) + header->sectionSize(column) / 2, header->height() / 2);
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, at);
    };
    clickHeader(AuditLogModel::Actor);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    const AuditOrder byActor{AuditOrder::Key::Actor, header->sortIndicatorOrder()};
    QCOMPARE(view.order(), byActor);
    QCOMPARE(header->sortIndicatorSection(), int(AuditLogModel::Actor));
    const QList<qint64> want = expected({}, byActor);
    QCOMPARE(view.pageNumber(), 1);
    QCOMPARE(idsOf(view.model()->page().entries), want.mid(0, AuditView::PageSize));
    QVERIFY(view.pageLabel()->text().contains(QStringLiteral("by who")));

    // Next continues that order; a second click reverses it from its first page.
    QTest::mouseClick(view.nextButton(), Qt::LeftButton);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(idsOf(view.model()->page().entries), want.mid(AuditView::PageSize, AuditView::PageSize));
    clickHeader(AuditLogModel::Actor);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(view.pageNumber(), 1);
    const AuditOrder reversed{AuditOrder::Key::Actor, byActor.direction == Qt::AscendingOrder ? Qt::DescendingOrder : Qt::AscendingOrder};
    QCOMPARE(view.order(), reversed);
    QCOMPARE(idsOf(view.model()->page().entries), expected({}, reversed).mid(0, AuditView::PageSize));

    // The details are free text: a click there leaves the order and asks nothing.
    clickHeader(AuditLogModel::Detail);
    QVERIFY(!view.isBusy());
    QCOMPARE(header->sortIndicatorSection(), int(AuditLogModel::Actor));
    QCOMPARE(view.order(), reversed);

    // A filter keeps the order.
    const AuditFilter filter{{}, QStringLiteral("campaign"), {}, {}, {}};
    view.setFilter(filter);
    QVERIFY(shown.wait(AnswerTimeoutMs));
    QCOMPARE(idsOf(view.model()->page().entries), expected(filter, reversed).mid(0, AuditView::PageSize));
}

LANTERN_WIDGET_TEST_SUITE(TestAuditLog);

} // namespace tst_auditlog

#include "tst_auditlog.moc"
