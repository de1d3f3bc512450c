// Banners never move the page (issue 14, point 5): the strip is reserved while hidden, a long
// text is elided there (whole in text() and the tooltip), the details open over the content;
// and a message stays until dismissed or replaced, except the error of a read that a later
// read replaces.
#include "common/messagebanner.h"
#include "testsuite.h"

#include <QLabel>
#include <QLineEdit>
#include <QTest>
#include <QToolButton>
#include <QVBoxLayout>

namespace tst_messagebanner {

using lantern::ui::MessageBanner;

namespace {

/** A page as the views have it: a banner above a field the user clicks in. */
struct Page {
    QWidget widget;
    MessageBanner *banner;
    QLineEdit *field;

    Page() : banner(new MessageBanner(&widget)), field(new QLineEdit(&widget))
    {
        auto *layout = new QVBoxLayout(&widget);
        layout->addWidget(banner);
        layout->addWidget(field);
        layout->addStretch(1);
        widget.resize(500, 400);
        widget.show();
    }
    QRect fieldRect() const { return field->geometry(); }
};

QToolButton *detailsButton(MessageBanner *banner)
{
    for (QToolButton *button : banner->findChildren<QToolButton *>()) {
        if (button->isCheckable())
            return button;
    }
    return nullptr;
}

} // namespace

class TestMessageBanner final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pageNeverMoves_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("detail");
        QTest::newRow("short message") << QStringLiteral("Profile saved.") << QString();
        QTest::newRow("long message with details")
                << QStringLiteral("Redis at redis://127.0.0.1:6379/0 does not answer. Check that it is running, then try again. ").repeated(4)
                << QStringLiteral("failed while reading a reply: timed out\nsecond line\nthird line");
    }

    void pageNeverMoves()
    {
        QFETCH(QString, text);
        QFETCH(QString, detail);
        Page page;
        QVERIFY(QTest::qWaitForWindowExposed(&page.widget));
        const QRect before = page.fieldRect();
        page.banner->showMessage(MessageBanner::Kind::Error, text, detail);
        QCoreApplication::processEvents();
        QCOMPARE(page.fieldRect(), before);
        QCOMPARE(page.banner->text(), text);  // whole, however the strip shows it
        QToolButton *details = detailsButton(page.banner);
        QVERIFY(details);
        QCOMPARE(details->isVisible(), !detail.isEmpty());
        if (details->isVisible()) {
            details->click();
            QVERIFY(page.banner->detailsShown());
            QCoreApplication::processEvents();
            QCOMPARE(page.fieldRect(), before);
            auto *over = page.widget.findChild<QLabel *>(QStringLiteral("messageBannerDetails"));
            QVERIFY(over && over->text().contains(detail) && over->text().contains(text.trimmed()));
        }
        page.banner->clear();
        QCoreApplication::processEvents();
        QCOMPARE(page.fieldRect(), before);
        QVERIFY(!page.banner->detailsShown());
    }

    void messagesStayUntilReplaced()
    {
        Page page;
        page.banner->showMessage(MessageBanner::Kind::Positive, QStringLiteral("Make-up granted."));
        page.banner->readSucceeded();  // the next refresh
        QCOMPARE(page.banner->text(), QStringLiteral("Make-up granted."));

        page.banner->showReadFailure(QStringLiteral("Redis does not answer."));
        QCOMPARE(page.banner->kind(), MessageBanner::Kind::Error);
        page.banner->readSucceeded();  // fresh data replaces the error of the read that failed
        QVERIFY(page.banner->isHidden());

        page.banner->showDataNote(MessageBanner::Kind::Information, QStringLiteral("No entries match."));
        page.banner->readSucceeded();
        QVERIFY(page.banner->isHidden());

        page.banner->showReadFailure(QStringLiteral("Redis does not answer."));
        page.banner->showMessage(MessageBanner::Kind::Error, QStringLiteral("The launch failed."));
        page.banner->readSucceeded();  // an action's outcome is not the read's to take away
        QCOMPARE(page.banner->text(), QStringLiteral("The launch failed."));
    }
};

LANTERN_WIDGET_TEST_SUITE(TestMessageBanner);

} // namespace tst_messagebanner

#include "tst_messagebanner.moc"
