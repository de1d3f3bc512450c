// Tables copy and export what they show (issue 14, point 7): CSV as RFC 4180 writes it,
// tab-separated rows for the clipboard in the order the view shows them, and an export
// written off the GUI thread holding exactly the rows and header on screen.
#include "console/audit/auditlogmodel.h"
#include "console/campaigns/campaignlistmodel.h"
#include "console/common/tabletext.h"
#include "console/queues/deadlettermodel.h"
#include "common/tableactions.h"
#include "testsuite.h"

#include <QFile>
#include <QDateTime>
#include <QItemSelectionModel>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

namespace tst_tabletext {

using namespace lantern;
using lantern::ui::TableActions;

namespace {

/** Header "Name","Amount"; rows as given. */
std::unique_ptr<QStandardItemModel> tableOf(const QList<QStringList> &rows)
{
    auto model = std::make_unique<QStandardItemModel>(0, 2);
    model->setHorizontalHeaderLabels({QStringLiteral("Name"), QStringLiteral("Amount")});
    for (const QStringList &row : rows)
        model->appendRow({new QStandardItem(row.at(0)), new QStandardItem(row.at(1))});
    return model;
}

} // namespace

class TestTableText final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fields_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("csv");
        QTest::addColumn<QString>("tsv");
        QTest::newRow("plain") << QStringLiteral("Spring") << QStringLiteral("Spring") << QStringLiteral("Spring");
        QTest::newRow("comma: quoted") << QStringLiteral("¥1,234.00") << QStringLiteral("\"¥1,234.00\"") << QStringLiteral("¥1,234.00");
        QTest::newRow("quote: doubled") << QStringLiteral("the \"big\" one") << QStringLiteral("\"the \"\"big\"\" one\"")
                                        << QStringLiteral("the \"big\" one");
        QTest::newRow("line break: quoted in CSV, a space when pasted")
                << QStringLiteral("a\nb") << QStringLiteral("\"a\nb\"") << QStringLiteral("a b");
        QTest::newRow("tab: a space when pasted") << QStringLiteral("a\tb") << QStringLiteral("a\tb") << QStringLiteral("a b");
    }

    void fields()
    {
        QFETCH(QString, text);
        QFETCH(QString, csv);
        QFETCH(QString, tsv);
        QCOMPARE(TableText::field(text, TableText::Format::Csv), csv);
        QCOMPARE(TableText::field(text, TableText::Format::Tsv), tsv);
    }

    void copyTakesSelectedRowsInViewOrder()
    {
        const auto model = tableOf({{QStringLiteral("a"), QStringLiteral("1")},
                                    {QStringLiteral("b"), QStringLiteral("2")},
                                    {QStringLiteral("c"), QStringLiteral("3")}});
        QTableView view;
        view.setModel(model.get());
        view.setSelectionBehavior(QAbstractItemView::SelectRows);
        view.setSelectionMode(QAbstractItemView::MultiSelection);
        view.show();
        TableActions *actions = TableActions::install(&view, QStringLiteral("test"));
        view.selectRow(2);
        view.selectRow(0);
        QCOMPARE(actions->selectionText(), QStringLiteral("a\t1\nc\t3\n"));
    }

    void exportWritesEveryRowWithTheHeader()
    {
        const auto model = tableOf({{QStringLiteral("Spring, north"), QStringLiteral("¥8.88")}, {QStringLiteral("Autumn"), QStringLiteral("¥1.00")}});
        QTableView view;
        view.setModel(model.get());
        TableActions *actions = TableActions::install(&view, QStringLiteral("campaigns"));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath(QStringLiteral("campaigns.csv"));
        QSignalSpy exported(actions, &TableActions::exported);
        actions->exportTo(path);
        QVERIFY(exported.wait(10000));
        QCOMPARE(exported.first().at(1).toString(), QString());
        QFile file(path);
        QVERIFY(file.open(QIODevice::ReadOnly));
        // A byte order mark first: Excel reads the file as UTF-8 (Chinese names, ¥).
        QCOMPARE(file.readAll(), QByteArray("\xEF\xBB\xBF") + QStringLiteral("Name,Amount\r\n\"Spring, north\",¥8.88\r\nAutumn,¥1.00\r\n").toUtf8());
        // ... and says so (issue 24, point 9): how many rows, where.
        QMessageBox *said = nullptr;
        QTRY_VERIFY((said = view.findChild<QMessageBox *>(QStringLiteral("exportResult"))) != nullptr);
        QVERIFY2(said->text().contains(QStringLiteral("2 row")) && said->text().contains(QStringLiteral("campaigns.csv")), qPrintable(said->text()));
        QCOMPARE(said->icon(), QMessageBox::Information);
        said->close();
        delete said;

        // A file that cannot be written says why.
        exported.clear();
        actions->exportTo(QStringLiteral("/nonexistent/dir/x.csv"));
        QVERIFY(exported.wait(10000));
        QVERIFY(!exported.first().at(1).toString().isEmpty());
        QTRY_VERIFY((said = view.findChild<QMessageBox *>(QStringLiteral("exportResult"))) != nullptr);
        QCOMPARE(said->icon(), QMessageBox::Warning);
    }

    // Issue 24, point 9: a CSV holds values, not words — a model's ExportRole columns.
    void exportHoldsValuesWhereTheModelGivesThem()
    {
        CampaignListModel model;
        CampaignPage page;
        CampaignRow row;
        row.campaign.id = 7;
        row.campaign.name = QStringLiteral("春节红包, north");
        row.campaign.count = 200;
        row.campaign.totalCents = 100000;
        row.campaign.createdAtMs = QDateTime(QDate(2026, 1, 28), QTime(20, 0)).toMSecsSinceEpoch();
        row.grabbedCount = 165;
        row.grabbedCents = 80505;
        row.campaign.createdBy = QStringLiteral("alice");
        row.campaign.needsApproval = true;
        row.campaign.approvedBy = QStringLiteral("bob");
        page.rows << row;
        page.total = 1;
        model.setPage(page);
        const QStringList lines = TableText::all(model, TableText::Format::Csv).split(QStringLiteral("\r\n"));
        QVERIFY2(lines.first().contains(QStringLiteral("Grabbed,Envelopes,Total (yuan),Grabbed amount (yuan)")), qPrintable(lines.first()));
        QVERIFY2(lines.at(1).startsWith(QStringLiteral("7,\"春节红包, north\",")), qPrintable(lines.at(1)));
        QVERIFY2(lines.at(1).contains(QStringLiteral(",165,200,1000.00,805.05,")), qPrintable(lines.at(1)));
        // The four eyes as values: who created it, whether it needs approval, who approved it.
        QVERIFY2(lines.first().endsWith(QStringLiteral(",Created,Created by,Needs approval,Approved by")), qPrintable(lines.first()));
        QVERIFY2(lines.at(1).endsWith(QStringLiteral(",2026-01-28 20:00:00,alice,1,bob")), qPrintable(lines.at(1)));
        // The clipboard keeps the words, as the table shows them.
        QVERIFY(TableText::rows(model, {model.index(0, 0)}, TableText::Format::Tsv).contains(QStringLiteral("165 / 200")));

        // The audit log exports the action's stored name and the detail's JSON as stored.
        AuditLogModel audit;
        AuditPage auditPage;
        AuditEntry entry;
        entry.id = 1;
        entry.atMs = row.campaign.createdAtMs;
        entry.actor = QStringLiteral("alice");
        entry.action = QStringLiteral("campaign.close");
        entry.target = QStringLiteral("campaign:7");
        entry.detail = QStringLiteral("{\"refunded_cents\":19495,\"workers\":[\"w1\",\"w2\"]}");
        auditPage.entries << entry;
        audit.setPage(auditPage);
        QCOMPARE(audit.index(0, AuditLogModel::Action).data().toString(), QStringLiteral("Campaign closed"));
        QVERIFY2(audit.index(0, AuditLogModel::Detail).data().toString().contains(QStringLiteral("w1, w2")),
                 qPrintable(audit.index(0, AuditLogModel::Detail).data().toString()));
        const QString csv = TableText::all(audit, TableText::Format::Csv);
        QVERIFY2(csv.contains(QStringLiteral("campaign.close")) && csv.contains(QStringLiteral("\"{\"\"refunded_cents\"\":19495,")), qPrintable(csv));
        QVERIFY(csv.startsWith(QStringLiteral("Time,Who,Action,Target,Details (JSON)\r\n")));

        // A dead letter exports as stored, byte for byte (what a retry would put back).
        DeadLetterModel deadLetters;
        DeadLetterPage letters;
        letters.list = QStringLiteral("payout:7");
        letters.depth = 1;
        letters.entries << QByteArray("{\"campaign\":\"7\",\"seq\":\"4");
        letters.notes << DeadLetterNote{QStringLiteral("not a payout task"), 1, row.campaign.createdAtMs};
        letters.positions << 1;
        deadLetters.setPage(letters);
        const QString letterCsv = TableText::all(deadLetters, TableText::Format::Csv);
        QVERIFY2(letterCsv.contains(QStringLiteral("\"{\"\"campaign\"\":\"\"7\"\",\"\"seq\"\":\"\"4\"")), qPrintable(letterCsv));
        QVERIFY2(letterCsv.contains(QStringLiteral("Entry (as stored)")) && letterCsv.contains(QStringLiteral("2026-01-28 20:00:00")), qPrintable(letterCsv));
    }

    void yuanNumbers_data()
    {
        QTest::addColumn<qint64>("cents");
        QTest::addColumn<QString>("text");
        QTest::newRow("whole") << qint64(100000) << QStringLiteral("1000.00");
        QTest::newRow("one cent") << qint64(1) << QStringLiteral("0.01");
        QTest::newRow("a refund of 5 cents") << qint64(-5) << QStringLiteral("-0.05");
        QTest::newRow("negative yuan") << qint64(-1205) << QStringLiteral("-12.05");
        QTest::newRow("largest") << std::numeric_limits<qint64>::max() << QStringLiteral("92233720368547758.07");
    }

    void yuanNumbers()
    {
        QFETCH(qint64, cents);
        QFETCH(QString, text);
        QCOMPARE(TableText::yuanNumber(cents), text);
    }
};

LANTERN_WIDGET_TEST_SUITE(TestTableText);

} // namespace tst_tabletext

#include "tst_tabletext.moc"
