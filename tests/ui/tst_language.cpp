// The interface language can be switched in the app: the Language menu offers the system's,
// English and Chinese, and installing another language replaces the translators (switching back
// and forth never leaves an old one in front).
#include "common/consoleview.h"
#include "shell/mainwindow.h"
#include "testsuite.h"
#include "translations.h"

#include <QAction>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QTest>

namespace tst_language {

using namespace lantern;
using lantern::ui::MainWindow;

namespace {

QString usersTitle()
{
    const MainWindow window(CheckinRules{});
    return window.view(QStringLiteral("users"))->title();
}

/** The Language menu's entry for `code` ("" = the system's). */
QAction *languageAction(MainWindow &window, const QString &code)
{
    for (QAction *menu : window.menuBar()->actions()) {
        if (!menu->menu() || menu->text() != MainWindow::tr("&Language"))
            continue;
        for (QAction *action : menu->menu()->actions()) {
            if (action->isCheckable() && action->data().toString() == code)
                return action;
        }
    }
    return nullptr;
}

} // namespace

class TestLanguage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void switchesBackAndForth()
    {
        installTranslations(QStringLiteral("en"));
        QCOMPARE(usersTitle(), QStringLiteral("Users"));
        installTranslations(QStringLiteral("zh_CN"));
        const QString chinese = usersTitle();
        QVERIFY(chinese != QLatin1String("Users"));
        QVERIFY(std::any_of(chinese.cbegin(), chinese.cend(), [](QChar c) { return c.script() == QChar::Script_Han; }));
        QCOMPARE(QLocale().name(), QStringLiteral("zh_CN"));
        installTranslations(QStringLiteral("en"));
        QCOMPARE(usersTitle(), QStringLiteral("Users"));
        installTranslations(QStringLiteral("zh_CN"));
        QCOMPARE(usersTitle(), chinese);
    }

    // Issue 24, point 6: Qt's own buttons (a message box's Cancel) speak Chinese too: Debian's
    // qt6-translations-l10n is a dependency, and its qtbase catalogue is loaded.
    void qtsOwnWordsAreTranslated()
    {
        installTranslations(QStringLiteral("zh_CN"));
        const QString cancel = QCoreApplication::translate("QPlatformTheme", "Cancel");
        installTranslations(QStringLiteral("en"));
        QVERIFY2(cancel != QLatin1String("Cancel"), "qtbase_zh_CN.qm was not loaded: is qt6-translations-l10n installed?");
        QVERIFY(std::any_of(cancel.cbegin(), cancel.cend(), [](QChar c) { return c.script() == QChar::Script_Han; }));
    }

    void languageWithoutTranslationGetsEnglishPlurals_data()
    {
        QTest::addColumn<QString>("language");
        QTest::newRow("French (no translation)") << QStringLiteral("fr_FR");
        QTest::newRow("the C locale of a bare system") << QStringLiteral("C");
    }

    void languageWithoutTranslationGetsEnglishPlurals()
    {
        QFETCH(QString, language);
        installTranslations(language);
        const auto waiting = [](int n) { return QCoreApplication::translate("lantern::ui::QueuesView", "%n task(s) waiting", nullptr, n); };
        QCOMPARE(waiting(1), QStringLiteral("1 task waiting"));
        QCOMPARE(waiting(3), QStringLiteral("3 tasks waiting"));
        QCOMPARE(usersTitle(), QStringLiteral("Users"));
        installTranslations(QStringLiteral("en"));
    }

    void menuOffersEachLanguageUnderItsOwnName()
    {
        installTranslations(QStringLiteral("en"));
        MainWindow window{CheckinRules{}};
        QSignalSpy chosen(&window, &MainWindow::languageChosen);
        QAction *chinese = languageAction(window, QStringLiteral("zh_CN"));
        QAction *english = languageAction(window, QStringLiteral("en"));
        QAction *system = languageAction(window, QString());
        QVERIFY(chinese && english && system);
        QVERIFY(chinese->text().contains(QStringLiteral("简体中文")));  // findable whatever the current language
        chinese->trigger();
        QCOMPARE(chosen.size(), 1);
        QCOMPARE(chosen.first().at(0).toString(), QStringLiteral("zh_CN"));
        QVERIFY(chinese->isChecked() && !english->isChecked());
        system->trigger();
        QCOMPARE(chosen.last().at(0).toString(), QString());
    }
};

LANTERN_WIDGET_TEST_SUITE(TestLanguage);

} // namespace tst_language

#include "tst_language.moc"
