// Issue 24, point 6: the console fits a 1366×768 laptop, and 2× scaling on a 1600×1000 screen,
// in English and in Chinese: the window's minimum size fits the smaller of the two (800×500
// logical, less a title bar); at 1366×768 every view is shown whole (no scroll bar), the Users
// view too with a missed day selected (its tallest side panel); and that selection never resizes
// the window.
#include "common/consoletheme.h"
#include "common/consoleview.h"
#include "console/users/calendarmodel.h"
#include "console/users/usermonth.h"
#include "shell/mainwindow.h"
#include "testsuite.h"
#include "translations.h"
#include "users/usersummarypanel.h"
#include "users/usersview.h"
#include "common/viewscroller.h"

#include <QImage>
#include <QLabel>
#include <QVBoxLayout>
#include <QScrollArea>
#include <QScrollBar>
#include <QTest>

namespace tst_layout {

using namespace lantern;
using lantern::ui::MainWindow;

namespace {
// 2× on 1600×1000: 800×500 logical, less a title bar.
const QSize SmallestScreen(800, 500 - 32);
// 1366×768, less a title bar and a panel.
const QSize Laptop(1366, 768 - 32 - 36);
} // namespace

class TestLayout final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void fitsSmallScreens_data();
    void fitsSmallScreens();
    void iconsShowOnTheDarkTheme();
    void wrappedTextIsNeverSqueezed();
};

void TestLayout::fitsSmallScreens_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("en") << QStringLiteral("en");
    QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
}

void TestLayout::fitsSmallScreens()
{
    QFETCH(QString, language);
    installTranslations(language);
    MainWindow window(CheckinRules{});
    window.resize(Laptop);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QSize minimum = window.minimumSizeHint();
    QVERIFY2(minimum.width() <= SmallestScreen.width() && minimum.height() <= SmallestScreen.height(),
             qPrintable(QStringLiteral("window minimum %1×%2").arg(minimum.width()).arg(minimum.height())));

    // The Users view at its tallest: a user shown, a missed day selected, a make-up offered.
    UserMonth month;
    month.uid = 10001;
    month.token = QStringLiteral("n96DLd1p");
    month.month = QDate(2025, 3, 1);
    month.today = QDate(2025, 3, 20);
    month.signedDays = {1, 2, 3, 5, 19, 20};
    month.makeupDays = {4};
    ui::UserSummaryPanel *summary = window.usersView()->summaryPanel();
    summary->showUser(month, 3);
    const QString day = QLocale().toString(QDate(2025, 3, 6), QLocale::LongFormat);
    summary->setSelectedDay(QStringLiteral("<b>%1</b><br>%2").arg(day, CalendarModel::stateName(CalendarModel::DayState::Missed)));
    summary->setMakeupAvailable(true, ui::UsersView::tr("Grant a make-up for %1.").arg(day));
    QCoreApplication::processEvents();
    QCOMPARE(window.size(), Laptop);  // the selection added lines: the window did not grow

    for (ui::ConsoleView *view : window.views()) {
        window.showView(view->viewName());
        QCoreApplication::processEvents();
        auto *scroll = window.findChild<QScrollArea *>(view->viewName() + QStringLiteral("Scroll"));
        QVERIFY(scroll);
        const QSize needed = view->minimumSizeHint();
        const QSize room = scroll->viewport()->size();
        QVERIFY2(needed.width() <= room.width() && needed.height() <= room.height(),
                 qPrintable(QStringLiteral("%1: needs %2×%3, has %4×%5")
                                    .arg(view->viewName())
                                    .arg(needed.width())
                                    .arg(needed.height())
                                    .arg(room.width())
                                    .arg(room.height())));
        QVERIFY2(!scroll->verticalScrollBar()->isVisible(), qPrintable(view->viewName()));
        QVERIFY2(!scroll->horizontalScrollBar()->isVisible(), qPrintable(view->viewName()));
    }
    QCOMPARE(window.size(), Laptop);
}

// Issue 24, point 8: the campaign and toolbar buttons' play, pause and stop icons are drawn in
// the button text's colour: light on the dark theme (Fusion's own are black there).
void TestLayout::iconsShowOnTheDarkTheme()
{
    ui::ConsoleTheme::apply(ui::ConsoleTheme::Theme::Dark);
    QWidget widget;
    const QColor background = widget.palette().color(QPalette::Button);
    const QImage image = ui::ConsoleTheme::standardIcon(&widget, QStyle::SP_MediaPause).pixmap(16, 16).toImage();
    int drawn = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor pixel = image.pixelColor(x, y);
            if (pixel.alpha() < 128)
                continue;
            ++drawn;
            QVERIFY2(std::abs(pixel.lightness() - background.lightness()) > 100,
                     qPrintable(QStringLiteral("icon %1 on button %2").arg(pixel.name(), background.name())));
        }
    }
    QVERIFY(drawn > 10);
    ui::ConsoleTheme::apply(ui::ConsoleTheme::Theme::Light);
}

void TestLayout::wrappedTextIsNeverSqueezed()
{
    // A view of word-wrapped lines above rows of fixed height (the campaign page: subtitle, its
    // times, the drain table), in a scroller narrower than the lines: each row keeps its height
    // and the view scrolls, instead of the rows being laid over each other.
    auto *view = new QWidget;
    auto *layout = new QVBoxLayout(view);
    QList<QLabel *> rows;
    for (int i = 0; i < 3; ++i) {
        auto *wrapped = new QLabel(QStringLiteral("A long line that wraps when the view is narrow, as a campaign's subtitle does. ").repeated(4), view);
        wrapped->setWordWrap(true);
        layout->addWidget(wrapped);
    }
    for (int i = 0; i < 8; ++i) {
        rows << new QLabel(QStringLiteral("Row %1").arg(i), view);
        layout->addWidget(rows.last());
    }
    lantern::ui::ViewScroller scroller(view);
    scroller.resize(320, 240);
    scroller.show();
    QVERIFY(QTest::qWaitForWindowExposed(&scroller));
    QTRY_VERIFY(view->width() > 0);
    QVERIFY2(view->height() >= layout->minimumHeightForWidth(view->width()),
             qPrintable(QStringLiteral("view %1 px high, its rows need %2").arg(view->height()).arg(layout->minimumHeightForWidth(view->width()))));
    for (QLabel *row : std::as_const(rows))
        QVERIFY2(row->height() >= row->minimumSizeHint().height(), qPrintable(row->text()));
    QVERIFY(scroller.verticalScrollBar()->isVisible());
}

LANTERN_WIDGET_TEST_SUITE(TestLayout);

} // namespace tst_layout

#include "tst_layout.moc"
