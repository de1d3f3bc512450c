// Tables copy and export what they show (issue 14, point 7): CSV as RFC 4180 writes it,
// tab-separated rows for the clipboard in the order the view shows them, and an export
// written off the GUI thread holding exactly the rows and header on screen.
#include "console/common/tabletext.h"
#include "tableactions.h"
#include "testsuite.h"

#include <QFile>
#include <QItemSelectionModel>
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
        QCOMPARE(QString::fromUtf8(file.readAll()), QStringLiteral("Name,Amount\r\n\"Spring, north\",¥8.88\r\nAutumn,¥1.00\r\n"));

        // A file that cannot be written says why.
        exported.clear();
        actions->exportTo(QStringLiteral("/nonexistent/dir/x.csv"));
        QVERIFY(exported.wait(10000));
        QVERIFY(!exported.first().at(1).toString().isEmpty());
    }
};

LANTERN_WIDGET_TEST_SUITE(TestTableText);

} // namespace tst_tabletext

#include "tst_tabletext.moc"
